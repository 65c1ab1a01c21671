/* plan.h - a topology's guests before anything exists: for each, its
 * libvirt names, its files in the host's store (the shared ones put there
 * now: kernel, seed), its domain XML, and the saved ready state's key over
 * all of them. */
#ifndef LAB_PLAN_H
#define LAB_PLAN_H

#include <stdbool.h>
#include <glib.h>

struct lab_guest;
struct lab_inst;
struct lab_topology;

struct lab_plan {
	const struct lab_guest *g;
	char *domain;       /* libvirt name */
	char *kernel_dir;   /* the kernel's cache directory (vmlinux for crash) */
	char *kernel;       /* in the store: bzImage, or Debian's vmlinuz */
	char *initrd;       /* in the store: Debian's initrd, or NULL */
	char *cmdline;
	char *network;      /* libvirt name */
	char *mac;
	char *user_data;
	char *meta_data;
	char *seed;         /* in the store: the NoCloud seed, named by content */
	char *root;         /* the instance's own root qcow2 (volume name) */
	char **disks;       /* its own scratch disks (volume names) */
	char *console_vol;  /* its serial log (volume name) */
	char *console;      /* the local copy of it */
	char *copy;         /* its own volume for a renamed copy of a saved
			     * state file while it restores (saved.h) */
	char *xml;          /* the key's domain XML (lab_saved_key_xml) */
	double started;     /* lab_now() when a boot started it, or 0 */
	double ready_s;     /* seconds it took to get ready */
	bool restored;
};

/* Everything of a bring-up that comes before the first domain. */
struct lab_up_plan {
	struct lab_plan *ps;
	guint n;
	const char *type;   /* libvirt domain type */
	char *image;        /* the base image in the store */
	char *tests;        /* the instance's tests disk in the store */
	char *key;          /* the saved ready state's */
};

/* Put the shared files into the instance's store (image, tests disk,
 * kernels, seeds) and plan every guest of T; the key over them all. 0 or
 * -1 with a message. */
int lab_plan_up(struct lab_inst *in, const struct lab_topology *t,
		const char *type, const char *image, const char *tests_iso,
		struct lab_up_plan *u);
void lab_plan_clear(struct lab_up_plan *u);
/* P's domain XML (OWNER: the tag, or NULL) with ROOT and DISKS (volume
 * names) as its disks: its own, or the saved state's while it boots to be
 * saved. */
char *lab_plan_xml(struct lab_inst *in, const struct lab_up_plan *u,
		   const struct lab_plan *p, const char *owner,
		   const char *root, char *const *disks);

/* The name of GUEST's own volume for a renamed copy of a state file. */
char *lab_plan_copy_vol(const char *guest);

#endif
