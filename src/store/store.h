/* store.h - a host's lab store: one libvirt directory storage pool on that
 * host holding every file its guests use - kernels, the base image, seeds
 * and the tests disk under content names, each instance's overlays and
 * console logs under its own names, saved ready states (store/saved.h) -
 * filled and read through the storage API, so a host needs nothing of lab.
 * This machine is a host like any other (`local`, its store under
 * $LAB_HOME/store): there is one path for every host.
 *
 * A store is a directory lab made: it holds the marker volume lab-store.ok,
 * and a directory that is not empty without it is never taken over. */
#ifndef LAB_STORE_H
#define LAB_STORE_H

#include <stdbool.h>
#include <libvirt/libvirt.h>
#include <glib.h>

/* The volume that says a store's directory is lab's. */
#define LAB_STORE_MARKER "lab-store.ok"

struct lab_store {
	virStoragePoolPtr pool;
	char *dir;  /* the store's directory on its host */
	char *host; /* its name in hosts.ini */
	bool here;  /* on this machine: files arrive as hard links, not copies */
};

/* The pool of the store in DIR: "lab-store-" + a hash of DIR, so stores in
 * different directories of one host never share (or take over) a pool. */
char *lab_store_pool_name(const char *dir);

/* The pool of the store in DIR on C's host, or NULL when there is none. */
virStoragePoolPtr lab_store_lookup_pool(virConnectPtr c, const char *dir);
/* The directory a pool points at (to free), or NULL. */
char *lab_store_pool_path(virStoragePoolPtr p);

/* Open the store in DIR on the host of C (URI names the host: "here" when
 * it has no host part), creating it when there is none. NULL with a
 * message (a pool of that name elsewhere, a foreign directory). */
struct lab_store *lab_store_open(virConnectPtr c, const char *host,
				 const char *uri, const char *dir);
void lab_store_close(struct lab_store *st);
/* The path on the host of volume NAME. */
char *lab_store_path(const struct lab_store *st, const char *name);

/* Let the pool see volumes libvirtd wrote itself (logs, saved states,
 * dumps); waits out this process's own streams. 0 on success. */
int lab_store_refresh(struct lab_store *st);
/* The store holds volume NAME (as the pool last saw it). */
bool lab_store_has(struct lab_store *st, const char *name);
/* Delete volume NAME if it is there. */
void lab_store_drop(struct lab_store *st, const char *name);
/* An empty volume NAME, replaced (its mtime says when). 0 on success. */
int lab_store_touch(struct lab_store *st, const char *name);
/* An empty volume NAME made only when there is none: the host decides
 * which of two labs gets it. 0 when this one did. */
int lab_store_claim(struct lab_store *st, const char *name);
/* NAME.ok: NAME (or the set NAME stands for) is complete. */
int lab_store_mark(struct lab_store *st, const char *name);

struct lab_store_stats {
	unsigned uploaded, present;
	unsigned long long bytes; /* moved */
	double seconds;           /* spent moving */
};

/* Content name of a cached file: KIND-KEY-BASENAME from its cache path. */
char *lab_store_name(const char *kind, const char *path);
/* Path on the host of cached file LOCAL under its content name, put there
 * when the store lacks a complete copy (NAME.ok is written after the last
 * byte). NULL with a message. */
char *lab_store_shared(struct lab_store *st, const char *kind,
		       const char *local, struct lab_store_stats *s);
/* Put LOCAL as volume NAME, replacing what was there. 0 on success. */
int lab_store_put(struct lab_store *st, const char *local, const char *name);
/* A qcow2 volume NAME over BACKING (a path on the host, as large as it),
 * or blank of SIZE_MIB when BACKING is NULL; replaces NAME. */
int lab_store_qcow2(struct lab_store *st, const char *name,
		    const char *backing, int size_mib);
/* Copy volume NAME to LOCAL (atomically); 0 also when it is not there
 * yet (LOCAL is then empty). */
int lab_store_fetch(struct lab_store *st, const char *name, const char *local);
/* Bring LOCAL up to date with volume NAME, a log that grows: only the new
 * bytes move; the whole log again when it is shorter than LOCAL (a new
 * boot). 0 also when it is not there yet. */
int lab_store_follow(struct lab_store *st, const char *name, const char *local);
/* Bytes [FROM, FROM+LEN) of volume NAME (to g_free; *GOT says how many
 * came), NULL with a message. */
guchar *lab_store_read(struct lab_store *st, const char *name,
		       unsigned long long from, gsize len, gsize *got);
/* Write LEN bytes of DATA over volume NAME at offset 0; the rest of it
 * stays. 0 on success. */
int lab_store_overwrite(struct lab_store *st, const char *name,
			const guchar *data, gsize len);
/* Volume TO, a copy of volume FROM made by the host itself (nothing
 * crosses the connection); replaces TO. 0 on success. */
int lab_store_clone(struct lab_store *st, const char *from, const char *to);
/* Move volume NAME (a dump libvirtd wrote) to LOCAL: fetched, then
 * deleted in the store. */
int lab_store_take(struct lab_store *st, const char *name, const char *local);

struct lab_store_vol {
	char *name;
	unsigned long long bytes; /* allocated */
	gint64 mtime;             /* seconds since the epoch, 0 unknown */
};
/* The volumes whose names start with PREFIX ("" for all), by name. */
GPtrArray *lab_store_list(struct lab_store *st, const char *prefix);

#endif
