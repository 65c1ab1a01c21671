/* saved.h - the saved ready state: a topology's guests saved through
 * libvirt (virDomainSaveFlags) at the moment all of them were first ready,
 * with their disks frozen, so `lab up` and a guest's restart restore memory
 * and disks that belong together in seconds instead of booting for minutes.
 *
 * It lives in a host's store (store.h), every file a volume. For the state
 * with key KEY (K: its first 16 hex digits), per guest G:
 *   saved-K-G.state        QEMU's migration stream with libvirt's header
 *   saved-K-G-root.qcow2   the frozen root overlay (never written again:
 *   saved-K-G-diskN.qcow2  every restore puts the instance's own qcow2
 *                          on top), and the frozen scratch disks
 * and the manifest saved-K.ok, written last (a state without it is not
 * there), and saved-K.used, touched by every `lab up` that restores it
 * (least recently used goes first when the cap is reached).
 *
 * One saved state serves every instance of a topology on a host: its key
 * leaves out what differs between instances (lab_saved_key_xml), and a
 * restore gives the domain the instance's name (lab_saved_restore).
 *
 * A guest that is to be saved boots on the -root/-disk volumes themselves,
 * recorded as its instance's own until the manifest is there, so a save
 * that never finished is removed by `lab down`; saved-K-claim, made first
 * and only when not there, lets one instance at a time boot to save K. */
#ifndef LAB_SAVED_H
#define LAB_SAVED_H

#include <stdbool.h>
#include <libvirt/libvirt.h>
#include <glib.h>

struct lab_store;
struct lab_domain_spec;

/* Bump when the saved layout or what a ready guest is changes. */
#define LAB_SAVED_FORMAT "lab-saved-4"
/* Default cap of a store's saved states in MiB; LAB_SAVED_MAX_MB
 * overrides, 0 turns saving off. */
#define LAB_SAVED_MAX_MB_DEFAULT 8192

/* What shaped one guest's ready state. The domain XML is
 * lab_saved_key_xml's: the kernel path (which holds the kernel's key),
 * memory, vCPUs, command line, MAC, devices, the seed's path. */
struct lab_saved_input {
	const char *guest;
	const char *domain_xml;
	const char *user_data;
	const char *meta_data;
};

/* Hex key over the format, the hypervisor's versions, the base image
 * path (which holds the image key), the networks and every guest's input.
 * Pure: the unit tests pin what changes it and what does not. */
char *lab_saved_key(const char *versions, const char *image,
		    const char *networks, const struct lab_saved_input *guests,
		    guint n);
/* The domain XML a key hashes: S as every instance of the topology would
 * have it, the domain named GUEST, on network NETWORK (the topology's
 * names), its own volumes (root, scratch disks, console, tests disk) named
 * by their role, no owner tag. What stays is what a restore must match or
 * what the guest saw: memory, vCPUs, kernel, command line, MAC, seed. */
char *lab_saved_key_xml(const struct lab_domain_spec *s, const char *guest,
			const char *network);
/* "libvirt 9000000 qemu 7002000 type qemu": part of the key, so a state
 * saved by another libvirt or QEMU is never restored. */
char *lab_saved_versions(virConnectPtr c, const char *domain_type);
/* The cap in MiB (LAB_SAVED_MAX_MB or the default); 0: saving off. */
long lab_saved_cap_mib(void);

/* Name of a volume of state KEY: "saved-K-GUEST" SUFFIX; GUEST NULL:
 * "saved-K" SUFFIX. */
char *lab_saved_name(const char *key, const char *guest, const char *suffix);

/* One guest of a save or restore. */
struct lab_saved_guest {
	const char *guest;   /* topology name */
	const char *domain;  /* libvirt name */
	const char *xml;     /* domain XML with the owner tag */
	const char *root;    /* its own root qcow2 (volume name) */
	char *const *disks;  /* its own scratch disks (names), NULL-terminated */
	const char *copy;    /* its own volume for a renamed copy of the state
			      * file while it restores (another instance's
			      * domain saved it) */
	double boot_s;       /* seconds to ready on the fresh boot */
};

/* What a store says of a volume of a saved state. */
struct lab_saved_facts {
	gint64 size;      /* bytes, -1 when missing */
	char mtime[40];   /* as the volume's XML gives it, to the nanosecond */
	char header[65];  /* a state file's libvirt header, hashed (SHA-256) */
};
/* Fills F for volume NAME; false when there is none. */
typedef bool (*lab_saved_facts_fn)(void *arg, const char *name,
				   struct lab_saved_facts *f);
/* NULL when MANIFEST (the text of saved-K.ok) describes a complete state
 * for GUESTS whose state files are as large as it says, unwritten since
 * the save (mtime) and hold the domains saved (header), and whose disks
 * are there; else why not. Pure. */
char *lab_saved_check_manifest(const char *manifest, const char *key,
			       char **guests, lab_saved_facts_fn facts, void *arg);
/* NULL when the store holds a complete state KEY for GUESTS, else why
 * not; *absent when there is simply none. */
char *lab_saved_check(struct lab_store *st, const char *key, char **guests,
		      bool *absent);
/* Delete every volume of state KEY, the manifest first. */
void lab_saved_discard(struct lab_store *st, const char *key, const char *why);
/* Pause every guest (one consistent point: all ready, nothing mounted),
 * save each, write the manifest. The guests' disks must be the state's
 * own volumes. On success the domains are stopped; on failure they run on
 * as before and no manifest exists; -1 with the reason printed. */
int lab_saved_save(struct lab_store *st, virConnectPtr c, const char *key,
		   const char *topology, struct lab_saved_guest *gs, guint n);
/* Restore one guest: its own qcow2 over the frozen volumes, then
 * virDomainRestoreFlags with its XML. libvirt restores a state file only
 * as the domain saved in it (name, UUID, MACs): the instance that saved it
 * restores from it under the saved UUID; any other from a copy whose head
 * names its own domain under a new UUID (save_image.h), deleted once QEMU
 * has read it. Console, disks, network and owner tag are this run's. The
 * guest runs when 0 is returned; the caller sets its clock and pings it. */
int lab_saved_restore(struct lab_store *st, virConnectPtr c, const char *key,
		      const struct lab_saved_guest *g);
/* KEY was restored now (the cap evicts the least recently used). */
void lab_saved_touch(struct lab_store *st, const char *key);

/* One saved state of a store, for the cap and `lab cache`. */
struct lab_saved_entry {
	char *key;          /* K */
	unsigned long long bytes;
	gint64 used;        /* last restore (or save), seconds since the epoch */
	bool complete;      /* its manifest is there */
	bool in_use;        /* an instance runs on it */
};
/* Whether an instance names TEXT in its state (guests/instance.h). */
typedef bool (*lab_in_use_fn)(const char *text);
/* The text an instance's state holds while it runs on state KEY. */
char *lab_saved_use_text(const char *key);
/* The saved states of a store; in_use from IN_USE. */
GPtrArray *lab_saved_list(struct lab_store *st, lab_in_use_fn in_use);
/* Which of ENTRIES to evict so the rest fit CAP_MIB: least recently used
 * first, never KEEP, one in use or one not complete. Pure: indexes into
 * ENTRIES, in eviction order. */
GArray *lab_saved_over_cap(GPtrArray *entries, long cap_mib, const char *keep);
/* Evict what lab_saved_over_cap names. */
void lab_saved_enforce_cap(struct lab_store *st, const char *keep,
			   lab_in_use_fn in_use);

#endif
