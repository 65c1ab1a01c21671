/* series.h - a review's patch series and the kernels made of them. */
#ifndef LAB_SERIES_H
#define LAB_SERIES_H

#include <stdbool.h>

#include "core/report.h" /* LAB_REVIEW_DEFAULT */

/* A kernel is named by the series it carries:
 *   baseline      support/ + bugs/
 *   patched       support/ + bugs/ + fixes/
 *   isolate-NNN   support/ + bugs/NNN only: one seed's bug alone, to prove
 *                 a baseline failure comes from that bug (lab review --isolate)
 *   debian        Debian's own kernel, kept from the image
 * true when NAME is one of them (an isolated seed must have its bug). */
bool lab_kernel_name_valid(const char *name);

/* Patches of a quilt series file, in order, as paths; NULL on error. */
char **lab_series_read(const char *series_path);
/* patches/REVIEW/NAME/series (NAME: support, bugs, fixes); OPTIONAL: an
 * empty list when it is not there. */
char **lab_review_series(const char *review, const char *name, bool optional);
/* The patch files making up kernel NAME, in push order: support/ (test
 * knobs both kernels share), bugs/ (all, or one seed's), and for patched
 * fixes/. NULL with a message. */
char **lab_variant_patches(const char *review, const char *name);
/* A patch by its last two path parts: "bugs/001-x.patch". */
char *lab_patch_label(const char *path);

#endif
