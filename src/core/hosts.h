/* hosts.h - hosts.ini: the libvirt hosts an instance may run on. */
#ifndef LAB_HOSTS_H
#define LAB_HOSTS_H

#include <glib.h>
#include <stdbool.h>

struct lab_host {
	char *name;
	char *uri;    /* libvirt URI: qemu:///system, qemu+ssh://user@h/system */
	char *store;  /* directory of the lab's storage pool on that host */
	int guests;   /* capacity: guests at once */
	int memory_mib; /* capacity: guest memory at once, MiB */
	bool allow_programs; /* its URI may run a program (command=, ext) */
};

struct lab_hosts {
	char *path;
	GPtrArray *hosts; /* struct lab_host * */
};

/* The store of a host whose [host] names none; the built-in host `local`
 * (this machine) keeps its store under $LAB_HOME/store. */
#define LAB_STORE_DEFAULT "/var/lib/lab-store"

/* Parse and check FILE; NULL with *err = "FILE:LINE: [host NAME] KEY: why"
 * on the first error. Every key is known, none repeats, every value is
 * checked; nothing is connected to. */
struct lab_hosts *lab_hosts_parse(const char *path, const char *text,
				  char **err);
/* --hosts FILE, else $LAB_HOME/hosts.ini (a missing default file is
 * empty); a host "local" (lab_local_uri(), store $LAB_HOME/store) is
 * added when the file names none. NULL after printing the error. */
struct lab_hosts *lab_hosts_open(const char *path);
struct lab_host *lab_hosts_find(struct lab_hosts *h, const char *name);
/* NULL when URI may be handed to libvirt as root, else why not: only
 * QEMU hosts over ssh, libssh, libssh2, tls, tcp or unix, and no
 * command=, netcat= or socket= unless ALLOW_PROGRAMS. */
const char *lab_uri_unsafe(const char *uri, bool allow_programs);
/* NULL when hosts.ini at PATH may be read: owned by the user running lab
 * and not writable by group or others (it is read as code). */
const char *lab_hosts_file_unsafe(const char *path);
/* This machine's libvirt: $LAB_LIBVIRT_URI, else qemu:///system. */
const char *lab_local_uri(void);
/* NULL when DIR may be a store's directory, else why not (one spelling
 * of an absolute path: the pool is named by it). */
const char *lab_store_dir_invalid(const char *dir);
void lab_hosts_free(struct lab_hosts *h);
/* Every one of NAMES is a host of the file (--hosts of CMD), checked
 * before anything is created; -1 with a message per unknown name. */
int lab_hosts_check_names(const char *hosts_file, char **names, const char *cmd);


#endif
