/* ready.h - when a guest is ready: booted (the agent answers and the
 * image's lab-seed unit ran the seed's user-data to its end) or restored
 * (the agent answers; its clock is then set from the host). */
#ifndef LAB_READY_H
#define LAB_READY_H

#include <libvirt/libvirt.h>

struct lab_inst;

#define LAB_READY_SEED_FAILED (-2)

/* 1 ready, 0 not yet, -1 stopped (panic?), LAB_READY_SEED_FAILED: the
 * seed's user-data failed (its console says why). */
int lab_ready_poll(virConnectPtr c, const char *domain);
/* Where a booted guest's time went (core/boot_steps.h), or NULL. */
char *lab_ready_boot_steps(virConnectPtr c, const char *domain);
/* Poll DOMAIN until ready: 0, or -1 when it stopped, TIMEOUT_S passed or
 * lab was interrupted. */
int lab_ready_wait(virConnectPtr c, const char *domain, int timeout_s);
/* A restored guest answers its agent, and its clock (which stands where
 * it was saved) is set from the host's. 0, or -1 with a message. */
int lab_ready_settle(virConnectPtr c, const char *guest, const char *domain);
/* The last console lines of GUEST (fetched from the store), for an error
 * that says why it never got ready. */
void lab_ready_show_tail(struct lab_inst *in, const char *guest);

#endif
