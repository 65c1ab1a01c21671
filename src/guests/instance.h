/* instance.h - one instance of the lab: $LAB_HOME/instances/NAME with its
 * lock and its state.ini (this file is its only reader and writer), the
 * connection to the host it runs on and that host's store, the volumes it
 * owns there, and the teardown of what it created. Ownership is by tag
 * (core/owner.h) for domains and networks, by record for volumes. */
#ifndef LAB_INSTANCE_H
#define LAB_INSTANCE_H

#include <stdbool.h>
#include <libvirt/libvirt.h>
#include <glib.h>

struct lab_store;
struct lab_host;

struct lab_inst {
	char *dir;
	char *state_path;
	GKeyFile *state;
	int lock_fd;
	virConnectPtr conn;       /* to its host (lab_inst_attach) */
	struct lab_store *store;  /* its host's store (lab_inst_attach) */
	GMutex mu;                /* state updates from threads (restarts) */
};

/* $LAB_HOME/instances/$LAB_INSTANCE */
char *lab_inst_dir(void);
/* Open and lock the instance (create: make its directory); the state is
 * loaded when there is one. -1 with a message when another lab command
 * holds the lock. */
int lab_inst_open(struct lab_inst *in, bool create);
/* The instance as it stands, for a command that only reads (status,
 * exec, console) or whose caller holds the lock: no lock taken. -1 (no
 * message) when it is not up. */
int lab_inst_open_unlocked(struct lab_inst *in);
/* Connect to the host the state names (an instance that is not up: the
 * local host) and open its store when the state names one - only when
 * hosts.ini (the file the state names, else the default) has that host
 * with that URI and store. 0, or -1 with a message. */
int lab_inst_attach(struct lab_inst *in);
/* Record HOST (of HOSTS_FILE, NULL: the default) as the instance's host,
 * before anything is put there; connect to it and open its store. 0, or
 * -1 with a message. */
int lab_inst_place(struct lab_inst *in, const struct lab_host *host,
		   const char *hosts_file);
void lab_inst_close(struct lab_inst *in);
int lab_inst_save(struct lab_inst *in);
bool lab_inst_is_up(const struct lab_inst *in);
/* "<instance>-<name>": libvirt names of the instance's objects. */
char *lab_inst_name(const char *name);
char *lab_inst_file(const struct lab_inst *in, const char *name);
/* Guests of the state: "guest NAME" groups, in file order (NULL-terminated,
 * names without the prefix; g_strfreev). */
char **lab_inst_guests(GKeyFile *state);
/* A key of a guest's group ("guest NAME"), or NULL. */
char *lab_inst_guest_get(struct lab_inst *in, const char *guest, const char *key);

/* The name of an own volume: "INSTANCE.MACHINE." + the text of FMT (the
 * machine id keeps two machines that share a host apart; '.' is in no
 * instance name, so no instance's prefix is another's). */
char *lab_inst_vol(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* The path of the instance's own volume NAME in its store; the name is
 * recorded in the state before anything is created, so `lab down` finds
 * it whatever happens next. NULL with a message. */
char *lab_inst_own(struct lab_inst *in, const char *name);
/* NAME is no longer the instance's own (it became shared: a saved
 * state's disk): `lab down` leaves it. */
int lab_inst_disown(struct lab_inst *in, const char *name);

/* Some instance under $LAB_HOME names TEXT in its state (a saved state, a
 * store, a volume it uses: never prune or remove those). */
bool lab_inst_any_uses(const char *text);

/* Destroy one domain of ours (tag checked); 0 when it is gone or was not
 * ours to touch, -1 when it is still there. */
int lab_inst_destroy_domain(virConnectPtr c, const char *name);
/* Destroy whatever carries our tag (after a crash of lab). */
int lab_inst_sweep(virConnectPtr c);
/* Destroy everything the state names and everything else with our tag,
 * keep the consoles, delete the instance's own volumes; the state goes
 * only once every destroy was confirmed. */
int lab_inst_teardown(struct lab_inst *in);

/* `lab down`: quiet for callers that bring instances up and down. */
int lab_down(bool quiet);

#endif
