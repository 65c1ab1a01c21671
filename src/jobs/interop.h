/* interop.h - `lab interop`: the NFS interop matrix (servers x versions x
 * groups) and its report. */
#ifndef LAB_INTEROP_H
#define LAB_INTEROP_H

/* Matrix files of a run of t100 into DIR (matrix.txt/json/html, run/). */
int lab_interop_write(const char *dir, const char *run_dir);
int cmd_interop(int argc, char **argv);

#endif
