/* util.h - small services every lab command uses: messages, paths,
 * running programs with a timeout, hashing, atomic files, phase timing. */
#ifndef LAB_UTIL_H
#define LAB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <glib.h>

/* Set by the SIGINT/SIGTERM handler; long loops check it and unwind. */
extern volatile sig_atomic_t lab_interrupted;
void lab_install_signal_handlers(void);

void lab_err(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* Every message of this process starts with "[PREFIX] " (a child of a
 * spread review: whose line is whose); NULL: none. */
void lab_log_prefix(const char *prefix);
void lab_info(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

/* $LAB_HOME, or /var/lib/lab for root, or ~/.cache/lab. Never inside the
 * repository; QEMU (user libvirt-qemu) must be able to read kernels there. */
const char *lab_home(void);
/* Directory holding lab's own files (patches/, guests/, topologies/, tests/):
 * $LAB_SRC, else the directory of the running binary. */
const char *lab_srcdir(void);
char *lab_path(const char *rel); /* g_build_filename(lab_home(), rel) */
char *lab_src_path(const char *rel);

int lab_mkdir_p(const char *path);
/* Make ROOT/STAMP[-SUFFIX] for a new run, review, stress or interop
 * result, STAMP the local time to the second; when that exists (another
 * instance began in the same second) -2, -3, ... is added. Created with
 * mkdir(2), so two lab processes never share one. The path, and *id its
 * last component, or NULL with a message. */
char *lab_unique_dir(const char *root, const char *suffix, char **id);
int lab_rm_rf(const char *path);
/* Bytes a file or tree takes on disk (allocated blocks: sparse files
 * count what they use). */
goffset lab_du(const char *path);
bool lab_exists(const char *path);

/* Write a file atomically (temp file + rename): readers never see half. */
int lab_write_file(const char *path, const char *data, gssize len);

/* Run argv. stdout+stderr go to log_path (appended) when given, else are
 * inherited. timeout_s <= 0 means no limit. Returns the exit status, 124 on
 * timeout, 130 when interrupted, -1 when it could not start. */
int lab_run(char *const argv[], const char *cwd, const char *log_path,
            int timeout_s);
/* Like lab_run, but captures stdout into *out (stderr to log or inherited). */
int lab_run_capture(char *const argv[], const char *cwd, char **out,
                    int timeout_s);

/* The same, with flags: LAB_RUN_UNINTERRUPTIBLE lets the child finish
 * after Ctrl-C (patch(1) on the kernel tree: half a patch is a damaged
 * tree); its time bound still holds. */
#define LAB_RUN_UNINTERRUPTIBLE 1u
int lab_run_capture_flags(char *const argv[], const char *cwd, char **out,
			  int timeout_s, unsigned flags);

/* A progress callback called about once a second while lab_run waits. */
typedef void (*lab_tick_fn)(void *arg);
void lab_run_set_tick(lab_tick_fn fn, void *arg);

/* A whole decimal number in min..max (no units, no trailing text); 0 and
 * *out set when it is one, else -1. Replaces atoi's silent zero. */
int lab_parse_count(const char *s, long min, long max, int *out);

/* SHA-256 accumulator over files and strings, for cache keys. */
typedef struct lab_hash lab_hash;
lab_hash *lab_hash_new(void);
void lab_hash_str(lab_hash *h, const char *s);
int lab_hash_file(lab_hash *h, const char *path);
/* Every regular file of a directory, names and contents, in name order. */
void lab_hash_dir(lab_hash *h, const char *dir);
char *lab_hash_finish(lab_hash *h, size_t hex_chars); /* frees h */

/* Phase timing: "phase NAME: 12.3 s" lines, collected for a summary. */
double lab_now(void);
void lab_phase_begin(const char *name);
/* Drop the phases so far (a forked child times only its own). */
void lab_phase_forget(void);
void lab_phase_end(void);
void lab_phase_summary(void);
/* The phases so far on one line: "build 0.1 s, up (baseline) 7.2 s". */
char *lab_phase_text(void);

/* strcmp for g_ptr_array_sort of strings. */
gint lab_strcmp_p(gconstpointer a, gconstpointer b);
/* Levenshtein distance: how far a typo is from a known name. */
size_t lab_edit_distance(const char *a, const char *b);

/* Last n lines of a file, for error messages naming the cause. */
char *lab_tail(const char *path, int n);

/* S (NULL: "") as HTML text: made valid UTF-8, markup escaped. To free. */
char *lab_html_esc(const char *s);

#endif
