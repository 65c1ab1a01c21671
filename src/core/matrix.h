/* matrix.h - the NFS interop matrix of a run of t100: one cell per server x
 * version x group, each with its verdict, counts, time and the checks it
 * skipped (and why), written as matrix.txt, matrix.json and a
 * self-contained matrix.html. */
#ifndef LAB_MATRIX_H
#define LAB_MATRIX_H

#include <glib.h>

/* The NFS versions a matrix has columns for, in order. */
extern const char *const lab_matrix_versions[];

/* The matrix of the run in RUN_DIR into DIR (matrix.txt/json/html and
 * run/, a link to the run); the text also on stdout. SOFTWARE (may be
 * NULL): server name -> what it runs ("kernel 6.1.192, knfsd"), for the
 * header. 0, or -1 (message printed). */
int lab_matrix_write(const char *dir, const char *run_dir, GHashTable *software);

#endif
