/* virt.h - the libvirt connection and the commands that look at guests
 * that are up: status, console, exec. */
#ifndef LAB_VIRT_H
#define LAB_VIRT_H

#include <stdbool.h>
#include <libvirt/libvirt.h>
#include <glib.h>

/* libvirt connection with an actionable message when libvirtd is down. */
virConnectPtr lab_virt_connect(void);
/* A connection to URI with keepalive and quiet errors; NULL (no message:
 * see lab_virt_error) when it cannot be opened. */
virConnectPtr lab_virt_open(const char *uri);
/* Where lab_virt_connect goes: URI set here (lab up --host), else
 * $LAB_LIBVIRT_URI, else the URI the instance that is up was created on,
 * else qemu:///system. */
void lab_virt_set_uri(const char *uri);
const char *lab_virt_uri(void);
/* "kvm" when hardware KVM (kvm_intel/kvm_amd) is loaded, else "qemu". */
const char *lab_virt_domain_type(const char *accel);
/* Domain of a guest of the instance that is up, or NULL (message printed). */
virDomainPtr lab_virt_guest(virConnectPtr conn, const char *guest);
/* Directory of the running instance's state ($LAB_HOME/instances/NAME). */
char *lab_instance_dir(void);

/* libvirtd went away or stopped answering (keepalive) on this connection. */
bool lab_virt_lost(virConnectPtr c);
/* libvirt's last error message, for messages that name their cause. Valid
 * until the thread's next libvirt call: copy it before making one. */
const char *lab_virt_error(void);
/* Host NAME's libvirt can be reached now: after a failure there, was it
 * the host (it dropped out) or the work (a guest that never got ready)? */
bool lab_host_answers(const char *hosts_file, const char *name);

int cmd_status(int argc, char **argv);
int cmd_console(int argc, char **argv);
int cmd_exec(int argc, char **argv);

#endif
