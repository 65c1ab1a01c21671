/* conn.h - the libvirt connection: keepalive, the close callback that says
 * libvirtd went away, errors that name their cause, and the accelerator. */
#ifndef LAB_CONN_H
#define LAB_CONN_H

#include <stdbool.h>
#include <libvirt/libvirt.h>

/* Seconds a libvirtd has to answer a new connection (LAB_CONNECT_TIMEOUT
 * overrides). */
#define LAB_CONNECT_TIMEOUT_S 30
/* Seconds of silence before lab pings libvirtd: 3x libvirtd's default
 * keepalive_interval, so libvirtd's ping always comes first (conn.c). */
#define LAB_KEEPALIVE_S 15
/* A connection to URI with keepalive and quiet errors; NULL (no message:
 * see lab_virt_error) when it cannot be opened, when libvirtd does not
 * answer in time, or on Ctrl-C while waiting. */
virConnectPtr lab_virt_open(const char *uri);
/* "kvm" when hardware KVM (kvm_intel/kvm_amd) is loaded, else "qemu". */
const char *lab_virt_domain_type(const char *accel);
/* Domain of a guest of this instance, or NULL (message printed). */
virDomainPtr lab_virt_guest(virConnectPtr conn, const char *guest);
/* libvirtd went away or stopped answering (keepalive) on this connection. */
bool lab_virt_lost(virConnectPtr c);
/* libvirt's last error message, for messages that name their cause. Valid
 * until the thread's next libvirt call: copy it before making one. */
const char *lab_virt_error(void);
/* Host NAME of hosts.ini (HOSTS_FILE, NULL: the default) answers now:
 * after a failure there, was it the host (it dropped out) or the work (a
 * guest that never got ready)? */
bool lab_host_answers(const char *hosts_file, const char *name);

#endif
