/* kernel.h - the lab's kernels: their cache keys, build and cache. */
#ifndef LAB_KERNEL_H
#define LAB_KERNEL_H

#include <stdbool.h>

#include "build/series.h" /* the kernels' names, LAB_REVIEW_DEFAULT */
#include "build/user_kernel.h"

#include <glib.h>

/* The patch files of kernel NAME, in push order: a built-in's series
 * (series.h), or a user kernel's base's and then its own (user_kernel.h).
 * NULL with a message. */
char **lab_kernel_patches(const char *review, const char *name);
/* The user's config fragments of NAME's chain, the base's first (empty
 * for the built-in kernels). */
char **lab_kernel_fragments(const char *name);
/* NAME is a built-in kernel's or a defined user kernel's (NAME@N too). */
bool lab_kernel_known(const char *name);
/* Cache key of a kernel from (tree version, config fragments, patches). */
char *lab_kernel_key(const char *review, const char *name);
/* Directory of a built kernel ($LAB_HOME/kernels/KEY), or NULL with a
 * message naming the `lab build` command when it is not built yet. */
char *lab_kernel_dir(const char *review, const char *name);
/* Build (or find in cache) the named kernel; 0 when it is there. */
int lab_kernel_build(const char *review, const char *name);

/* `lab build`: VARIANT (a kernel name, or "all": baseline then patched).
 * 0 built or cached, 1 failed. */
int lab_kernel_build_named(const char *review, const char *variant);

/* `lab build NAME --series ...`: the name, the base and the series
 * checked, the series applied on its base in the tree (a patch that does
 * not apply is named with its file and hunk, and the tree goes back),
 * then the definition written. Nothing is built. 0, 2 bad input, 1 failed. */
int lab_kernel_define(const char *review, const struct lab_user_kernel_src *src);

/* A kernel as `lab kernels` shows it. */
struct lab_kernel_info {
	char *base;      /* "linux-source-6.1" or a kernel's name */
	guint patches;   /* all the kernel carries */
	guint own;       /* its own series' (a user kernel), else = patches */
	char *key;
	char *dir;       /* $LAB_HOME/kernels/KEY */
	gint64 built;    /* when (0: not built) */
	goffset bytes;
};
int lab_kernel_describe(const char *review, const char *name, struct lab_kernel_info *ki);
void lab_kernel_info_clear(struct lab_kernel_info *ki);

#endif
