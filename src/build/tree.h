/* tree.h - a kernel tree kernels are built in, locked while in use: the
 * one under $LAB_HOME/kernel (linux-source-6.1, every series kernel), or
 * the lab's copy of a tree of the user's (user_tree.h). Both are laid out
 * ROOT/src and ROOT/obj, so ccache serves one tree's objects to the other. */
#ifndef LAB_TREE_H
#define LAB_TREE_H

#include <stdbool.h>
#include <glib.h>

#define LAB_KERNEL_TARBALL "/usr/src/linux-source-6.1.tar.xz"
/* Bump when the build recipe changes: every kernel key changes with it. */
#define LAB_KERNEL_RECIPE "lab-kernel-3"
#define LAB_KERNEL_KEY_LEN 16

struct lab_tree {
	char *root;    /* $LAB_HOME/kernel */
	char *src;     /* root/src */
	char *obj;     /* root/obj */
	char *applied; /* src/.lab-applied: copies of pushed patches */
	char *log;     /* root/build.log */
	char *what;    /* "linux-source-6.1", or the user's tree and commit */
	char *ident;   /* NULL, or what else .config depends on (a commit) */
	GPtrArray *stack; /* labels of applied patches, in order */
	int lock_fd;
};

/* "linux-source-6.1.tar.xz:SIZE:MTIME", or NULL when it is missing. */
char *lab_tarball_identity(void);
/* The tarball is there; else false with a message naming the package. */
bool lab_tarball_present(void);
/* guests/kernel.config: the lab's config fragment. */
char *lab_fragment_path(void);

/* Lock the tree, extract it once, read which patches are applied. */
int lab_tree_open(struct lab_tree *t);
/* T's paths for ROOT (ROOT/src, ROOT/obj, ROOT/build.log; APPLIED where
 * pushed patches are kept), WHAT as messages name it. */
void lab_tree_init(struct lab_tree *t, const char *root, const char *applied,
		   const char *what);
/* Lock T's root (another `lab build` there: -1, said so), empty its log. */
int lab_tree_lock(struct lab_tree *t);
/* The source in place: make obj and applied, read the patch stack. */
int lab_tree_ready(struct lab_tree *t);
void lab_tree_free(struct lab_tree *t);
/* patch(1) FILE in T->src (REVERSE, DRY: --dry-run), never cut short:
 * half a patch is a damaged tree. Its exit status; *OUT its output. */
int lab_tree_patch(struct lab_tree *t, const char *file, bool reverse, bool dry,
		   char **out);
/* Pop and push until exactly WANT (patch paths, in order) is applied. */
int lab_tree_goto(struct lab_tree *t, char **want);
/* tinyconfig + the fragment + EXTRA (NULL or the user's fragments, merged
 * last: merge_config.sh), every option verified; skipped when the
 * fragments are unchanged since the last time. */
int lab_tree_configure(struct lab_tree *t, char **extra);
/* `make TARGET` in the tree with ccache, under a time bound. */
int lab_tree_run_make(struct lab_tree *t, const char *target, int timeout);
/* The same with a progress line, and the errors shown when it fails. */
int lab_tree_make(struct lab_tree *t, const char *what, const char *target);

#endif
