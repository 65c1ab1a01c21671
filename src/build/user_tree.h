/* user_tree.h - kernel trees of the user's (`lab build NAME --tree DIR`).
 * The lab never writes into DIR: a git tree's commit (HEAD, or --rev) is
 * fetched into the lab's own copy of it, $LAB_HOME/trees/ID (ID: a hash
 * of DIR's real path; the first clone hardlinks DIR's objects); a
 * directory that is not a git tree is recorded there as a commit of its
 * own (a snapshot of every file). The copy's work tree is checked out at
 * the commit a kernel asks for, so a second commit builds incrementally,
 * out of tree (tree.h), with the ccache every tree shares. */
#ifndef LAB_USER_TREE_H
#define LAB_USER_TREE_H

#include "build/tree.h"

/* NULL when DIR is a kernel tree (a top-level Makefile with VERSION and
 * PATCHLEVEL, Kconfig, arch/x86/Kconfig, scripts/kconfig/merge_config.sh),
 * else why it is not. */
char *lab_user_tree_not_kernel(const char *dir);
/* DIR's commit REV (NULL: HEAD), or a snapshot of DIR when it is not a
 * git tree, into the lab's copy: *id names the copy, *commit the commit.
 * 0, 2 bad input (said, file and reason), 1 failed. */
int lab_user_tree_import(const char *dir, const char *rev, char **id, char **commit);
/* REV (a commit id or its prefix, a tag, a branch the copy has) in copy
 * ID: the full commit id, or NULL (quiet). */
char *lab_user_tree_resolve(const char *id, const char *rev);
/* COMMIT's content (its git tree object id): what a kernel key hashes,
 * so one content has one key however it was named. NULL when unknown. */
char *lab_user_tree_content(const char *id, const char *commit);
/* The first-parent commits after GOOD up to and including BAD, oldest
 * first (a merge is one step); NULL and *why when GOOD is not an
 * ancestor of BAD or they are the same. */
char **lab_user_tree_steps(const char *id, const char *good, const char *bad, char **why);
/* "1a2b3c4d5e6f subject" of COMMIT, for logs. */
char *lab_user_tree_title(const char *id, const char *commit);
/* Copy ID opened as a build tree and checked out at COMMIT (patches a
 * series pushed on another commit popped first). */
int lab_user_tree_open(struct lab_tree *t, const char *id, const char *commit,
		       const char *what);
/* $LAB_HOME/trees/ID */
char *lab_user_tree_root(const char *id);
/* The user's tree copy ID was made from (NULL when unknown). */
char *lab_user_tree_origin(const char *id);
/* A `lab build` holds copy ID now (`lab cache prune` leaves it). */
bool lab_user_tree_busy(const char *id);

#endif
