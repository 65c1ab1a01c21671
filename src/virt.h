/* virt.h - guests on libvirt: up, down, status, console, exec. */
#ifndef LAB_VIRT_H
#define LAB_VIRT_H

#include <stdbool.h>
#include <libvirt/libvirt.h>
#include <glib.h>

struct lab_up_opts {
	const char *topology;  /* name or path */
	const char *kernel;    /* NULL: as the topology says */
	const char *accel;     /* "auto", "tcg", "kvm" */
	const char *tests_iso; /* optional read-only tests disk */
	int timeout_s;         /* per guest readiness */
	bool keep;             /* leave guests up on failure */
};

/* libvirt connection with an actionable message when libvirtd is down. */
virConnectPtr lab_virt_connect(void);
/* "kvm" when hardware KVM (kvm_intel/kvm_amd) is loaded, else "qemu". */
const char *lab_virt_domain_type(const char *accel);
/* Domain of a guest of the instance that is up, or NULL (message printed). */
virDomainPtr lab_virt_guest(virConnectPtr conn, const char *guest);
/* Directory of the running instance's state ($LAB_HOME/instances/NAME). */
char *lab_instance_dir(void);

int lab_up(const struct lab_up_opts *o);
/* The running instance's state.ini (guests, roles, consoles), or NULL with
 * a message saying `lab up`. */
GKeyFile *lab_virt_state(void);
/* Restart a guest on a fresh overlay after a crash or a spent kernel; its
 * old console log is saved as save_console. 0 when ready again. */
int lab_virt_restart(const char *guest, const char *save_console,
		     int timeout_s);
int lab_down(bool quiet);

int cmd_up(int argc, char **argv);
int cmd_down(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_console(int argc, char **argv);
int cmd_exec(int argc, char **argv);

#endif
