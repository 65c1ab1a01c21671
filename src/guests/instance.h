/* instance.h - one instance of the lab: $LAB_HOME/instances/NAME with its
 * lock, its state.ini (the only reader and writer of that file) and the
 * teardown of what it created. Ownership is by tag (owner.h). */
#ifndef LAB_INSTANCE_H
#define LAB_INSTANCE_H

#include <stdbool.h>
#include <libvirt/libvirt.h>
#include <glib.h>

struct lab_inst {
	char *dir;
	char *state_path;
	GKeyFile *state;
	int lock_fd;
	virConnectPtr conn;
	struct lab_place *place; /* on another host's store, or NULL: local */
};

/* Open (create: make the directory) and lock the instance; the state is
 * loaded when there is one. -1 with a message when another lab command
 * holds the lock. */
int lab_inst_open(struct lab_inst *in, bool create);
void lab_inst_close(struct lab_inst *in);
int lab_inst_save(struct lab_inst *in);
bool lab_inst_is_up(const struct lab_inst *in);
/* "<instance>-<name>": libvirt names of the instance's objects. */
char *lab_inst_name(const char *name);
char *lab_inst_file(const struct lab_inst *in, const char *name);

/* Destroy one domain of ours (tag checked); 0 when it is gone or was not
 * ours to touch, -1 when it is still there. */
int lab_inst_destroy_domain(virConnectPtr c, const char *name);
/* Destroy everything the state names and everything else with our tag;
 * the state and disks go only once every destroy was confirmed. */
int lab_inst_teardown(struct lab_inst *in);
/* Destroy whatever carries our tag (after a crash of lab). */
int lab_inst_sweep(virConnectPtr c);

/* The instance as it stands, for a command that holds its lock already or
 * only reads (status, exec, restarts inside `lab run`): no lock taken.
 * -1 when it is not up (quiet: the caller says so). */
int lab_inst_open_unlocked(struct lab_inst *in);
/* The running instance's state, read only; NULL (message printed) when it
 * is not up. */
GKeyFile *lab_inst_state_read(void);
/* Some instance under $LAB_HOME names TEXT in its state (a saved state,
 * kernel, image or tests disk it uses: never prune those). */
bool lab_inst_any_uses(const char *text);

/* Guests of the state: "guest NAME" groups, in file order (NULL-terminated,
 * names without the prefix; g_strfreev). */
char **lab_inst_guests(GKeyFile *state);

int lab_down(bool quiet);
int cmd_down(int argc, char **argv);

#endif
