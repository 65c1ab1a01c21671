/* kernel.h - the lab's kernels: their cache keys, build and cache. */
#ifndef LAB_KERNEL_H
#define LAB_KERNEL_H

#include <stdbool.h>

#include "build/series.h" /* the kernels' names, LAB_REVIEW_DEFAULT */

/* Cache key of a variant from (tree version, series, config fragment). */
char *lab_kernel_key(const char *review, const char *name);
/* Directory of a built kernel ($LAB_HOME/kernels/KEY), or NULL with a
 * message naming the `lab build` command when it is not built yet. */
char *lab_kernel_dir(const char *review, const char *name);
/* Build (or find in cache) the named kernel; 0 when it is there. */
int lab_kernel_build(const char *review, const char *name);

/* `lab build`: VARIANT (a kernel name, or "all": baseline then patched).
 * 0 built or cached, 1 failed. */
int lab_kernel_build_named(const char *review, const char *variant);

#endif
