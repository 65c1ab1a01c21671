/* results.h - one run's results: verdicts, results.json, junit.xml, KTAP. */
#ifndef LAB_RESULTS_H
#define LAB_RESULTS_H

#include <stdbool.h>
#include <glib.h>

enum lab_verdict {
	LAB_PASS,
	LAB_FAIL,         /* program saw the bug, or the kernel complained */
	LAB_INCONCLUSIVE, /* race window never hit, lockdep already off */
	LAB_SKIP,         /* missing device/config/role: says why */
	LAB_ERROR,        /* setup broke: the test says nothing */
	LAB_TIMEOUT,      /* the runner's bound ran out and it killed the test */
};
#define LAB_VERDICTS (LAB_TIMEOUT + 1)

/* Whose bug a failure shows (verdict.h decides). */
enum lab_evidence {
	LAB_EV_NONE,      /* not a failure */
	LAB_EV_SIGNATURE, /* the seed's own bug: its signature matched */
	LAB_EV_OTHER,     /* failed for another reason (named in the reason) */
};

/* A kernel report pinned to a test (console.h's, as results keep it). */
struct lab_rreport {
	char *type;       /* "oops", "warning", "lockdep", ... */
	char *title;
	char *first_line;
	char *function;   /* guilty function or NULL */
	bool signature;   /* matches the seed's signature */
};

struct lab_result {
	char *name;     /* instance name, e.g. "t009-nfs-umount-race:v4.1" */
	char *test;     /* suite-map name */
	char *seed;
	char *guest;
	char *kernel;
	enum lab_verdict verdict;
	enum lab_evidence evidence;
	char *reason;   /* one line: why this verdict */
	int exit_code;  /* the program's, -1 if it did not finish */
	double seconds;
	gint64 ended;   /* when its verdict was made, seconds since the epoch
			 * (0: not known) */
	long taint_before, taint_after;
	long window_hits; /* -1 when the test does not report it */
	GPtrArray *reports; /* struct lab_rreport *: reports pinned to it, not
			     * counting the fix's own expected report */
	char *knob;     /* "PATH=VALUE (on|absent)" when a race knob was set */
	char *dump;     /* memory dump of the guest that died in it, or NULL */
	char *counts;   /* the program's "# counts: k=v ..." line, or NULL */
	char *dir;      /* per-test output directory, relative to the run */
};

struct lab_run {
	char *id;
	char *dir;
	char *topology;
	char *kernel;   /* "baseline", "patched" or "mixed" */
	char *kernel_key;     /* the kernel cache key the guests booted */
	char *kernel_release; /* `uname -r` in a guest */
	double started;
	GPtrArray *results; /* struct lab_result * */
};

const char *lab_verdict_name(enum lab_verdict v);
int lab_verdict_parse(const char *s, enum lab_verdict *v);
struct lab_result *lab_result_new(const char *name, const char *test);
void lab_result_free(struct lab_result *r);

const char *lab_evidence_name(enum lab_evidence e);
int lab_evidence_parse(const char *s, enum lab_evidence *e);
struct lab_rreport *lab_rreport_new(const char *type, const char *title,
				    const char *first_line, const char *function,
				    bool signature);
void lab_rreport_free(struct lab_rreport *r);

/* Taint bits that mean the kernel complained (W, D, L, ...). */
long lab_taint_bad_bits(long before, long after);

char *lab_results_json(const struct lab_run *run);
/* A JSON string of valid UTF-8 (a console may print anything); NULL
 * gives JSON null. */
struct json_object *lab_json_str(const char *v);
/* Text fit for XML 1.0: valid UTF-8, no forbidden control characters. */
char *lab_xml_text(const char *s);
char *lab_results_junit(const struct lab_run *run);
char *lab_result_ktap_line(const struct lab_result *r, int n);
/* Write results.json and junit.xml atomically into run->dir. */
int lab_results_write(const struct lab_run *run);
/* Load a results.json (for report/compare): strict JSON in UTF-8, every
 * member of its type and range. NULL with *err "FILE[:LINE]: what: why". */
struct lab_run *lab_results_parse(const char *path, char **err);
/* The same, printing the error. */
struct lab_run *lab_results_load(const char *path);
/* The same from a run directory (or a path to its results.json). */
struct lab_run *lab_results_load_dir(const char *run);
void lab_run_free(struct lab_run *run);

#endif
