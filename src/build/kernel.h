/* kernel.h - the two kernels: series handling, config, build, cache. */
#ifndef LAB_KERNEL_H
#define LAB_KERNEL_H

#include <stdbool.h>

#define LAB_REVIEW_DEFAULT "2.6.32.9"
#define LAB_KERNEL_TARBALL "/usr/src/linux-source-6.1.tar.xz"

/* A kernel is named by the series it carries:
 *   baseline      support/ + bugs/
 *   patched       support/ + bugs/ + fixes/
 *   isolate-NNN   support/ + bugs/NNN only: one seed's bug alone, to prove
 *                 a baseline failure comes from that bug (lab review --isolate)
 * true when NAME is one of them (the seed is checked against bugs/). */
bool lab_kernel_name_valid(const char *name);

/* Patches of a quilt series file, in order, as paths; NULL on error. */
char **lab_series_read(const char *series_path);

/* Cache key of a variant from (tree version, series, config fragment). */
char *lab_kernel_key(const char *review, const char *name);
/* Directory of a built kernel ($LAB_HOME/kernels/KEY), or NULL with a
 * message naming the `lab build` command when it is not built yet. */
char *lab_kernel_dir(const char *review, const char *name);
/* Build (or find in cache) the named kernel; 0 when it is there. */
int lab_kernel_build(const char *review, const char *name);

/* The lab's test modules (tests/kmod: fault injection, observers) built
 * against the lab's kernel tree, cached by content; the directory holding
 * the .ko files, or NULL with a message. */
char *lab_kmod_dir(void);

int cmd_build(int argc, char **argv);
int cmd_check_series(int argc, char **argv);

#endif
