/* user_kernel.h - kernels the user names: a series of their own (a quilt
 * series file, or a directory of `git format-patch` files) on Debian's
 * linux-source-6.1 or on another named kernel, with an optional config
 * fragment merged over the lab's. `lab build NAME --series PATH` defines
 * one: the patches and the fragment are copied under
 * $LAB_HOME/named-kernels/NAME (the user's files may change later; the
 * name keeps what was built). NAME@N is NAME's base with the first N
 * patches of its series (a step of `lab bisect`). `lab build NAME --tree
 * DIR [--rev REV]` defines a kernel from a tree of the user's instead
 * (user_tree.h): NAME@REV is then that tree at another commit (a commit
 * id or prefix, or NAME@~N: N first-parent commits before NAME's). */
#ifndef LAB_USER_KERNEL_H
#define LAB_USER_KERNEL_H

#include <stdbool.h>
#include <glib.h>

#define LAB_USER_KERNEL_NAME_MAX 32

struct lab_user_kernel {
	char *name;     /* as asked: NAME or NAME@N */
	char *def;      /* NAME */
	char *base;     /* a kernel name; NULL: linux-source-6.1 as Debian ships it */
	char **patches; /* the copies, in push order: all, or the first N */
	guint total;    /* patches in NAME's series */
	int prefix;     /* N of NAME@N, or -1 */
	char *config;   /* the fragment's copy, or NULL */
	char *source;   /* the series the user gave */
	char *defined;  /* when (UTC, ISO 8601) */
	char *tree;     /* a tree kernel: the user's tree (real path), else NULL */
	char *tree_id;  /* its copy (user_tree.h) */
	char *commit;   /* the commit built: the definition's, or REV's of NAME@REV */
};

/* What `lab build NAME --series ...` was given. */
struct lab_user_kernel_src {
	const char *name;
	const char *series; /* a quilt series file or a directory of patches */
	const char *base;   /* NULL: linux-source-6.1 */
	const char *config; /* NULL: the lab's fragment alone */
	const char *tree;   /* instead of a series: a tree of the user's, */
	const char *rev;     /* its commit (NULL: HEAD), */
	const char *tree_id; /* imported (user_tree.h) as this copy */
	const char *commit;  /* at this commit */
};

/* NAME may name a kernel of the user's: 0, or -1 and *why (a built-in
 * name, bad characters, too long). */
int lab_user_kernel_name_check(const char *name, char **why);
/* A built-in kernel's name or form (baseline, patched, debian, all,
 * isolate-*). */
bool lab_kernel_name_reserved(const char *name);
/* NAME or NAME@N (N within its series; NAME@REV, a commit the copy of a
 * tree kernel's tree has) is defined. */
bool lab_user_kernel_exists(const char *name);
/* The definition of NAME or NAME@N; NULL when there is none (quiet) or it
 * is damaged (a message). */
struct lab_user_kernel *lab_user_kernel_load(const char *name);
void lab_user_kernel_free(struct lab_user_kernel *k);
/* The patches of a series the user gives, in order: a quilt series file,
 * or a directory (its `series` file when it has one, else its *.patch
 * files in name order, a cover letter left out). Each must be a readable
 * unified diff. NULL and *err (naming the file and line) when not. */
char **lab_user_series_read(const char *path, char **err);
/* Check SRC (the base is checked by the caller, who knows every kernel)
 * and write the definition, replacing an older one of that name. 0, 2
 * bad input (nothing written), 1 could not write. */
int lab_user_kernel_define(const struct lab_user_kernel_src *src);
/* The names defined, sorted. */
char **lab_user_kernel_names(void);

#endif
