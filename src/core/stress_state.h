/* stress_state.h - a stress run's state (pure): per test counts and
 * timelines, crash titles, stress.json both ways, the merge of parts, and
 * its reports (stress_report.c). The loop itself is jobs/stress.c. */
#ifndef LAB_STRESS_STATE_H
#define LAB_STRESS_STATE_H

/* How to open a kept dump. The lab kernels use SLOB, which crash(8) cannot
 * walk: without --no_kmem_cache it stops at start-up ("invalid structure
 * member offset: kmem_cache_s_num"); bt, log and ps do not need the slab. */
#define LAB_CRASH_CMD "crash --no_kmem_cache"

#include <stdbool.h>
#include <glib.h>

#include "core/stress_rates.h"

/* Console excerpts kept per crash title. */
#define LAB_STRESS_EXCERPTS 5

/* One outcome on the timeline. */
struct lab_stress_point {
	gint64 t;      /* seconds since the epoch */
	char verdict;  /* p f i e t s: pass fail inconclusive error timeout skip */
};

struct lab_stress_test {
	char *name;
	long runs, pass, fail, inconclusive, error, timeout, skip;
	long window_hits;
	double total_s, max_s;
	gint64 first_fail, last_fail;
	int crash_streak;  /* consecutive iterations in which it killed its guest */
	bool quarantined;
	GArray *timeline;  /* struct lab_stress_point, capped */
	GArray *rates;     /* struct lab_stress_rate: its counts' rates, capped */
};

struct lab_stress_crash {
	char *title;       /* normalized: numbers and addresses become N */
	long count;
	gint64 first, last;
	GPtrArray *tests;  /* char *: test instances it was seen in */
	GPtrArray *excerpts; /* char *: paths (relative to the stress dir), first 5 */
	GPtrArray *dumps;  /* char *: memory dumps kept, relative */
};

struct lab_stress {
	char *id, *dir;
	char *topology, *kernel, *kernel_dir;
	guint64 seed;
	char **names;          /* what was asked for: tests and suites */
	char **env;            /* --env NAME=VALUE for the tests (NULL: none) */
	int iteration;         /* iterations finished */
	double elapsed_s;      /* over all sessions (resumes) */
	double overhead_s;     /* orchestrator time outside the tests */
	long tests_run;
	long duration_s;       /* 0: no time limit */
	long loops;            /* 0: no count limit */
	bool until_fail;
	int steady;            /* 0: off; else stop after N clean iterations */
	int clean_streak;
	int quarantine_after;  /* K consecutive guest deaths */
	GPtrArray *tests;      /* struct lab_stress_test *, first-seen order */
	GPtrArray *crashes;    /* struct lab_stress_crash *, first-seen order */
	char *stop_reason;
	gint64 started, updated;
};

/* A Wilson score interval for k failures in n runs (95 %). */
void lab_wilson(long k, long n, double *lo, double *hi);
/* A crash title that stays the same across runs: hex addresses, numbers
 * and offsets become N. */
char *lab_stress_title(const char *title);

/* One outcome on a test's timeline (capped: older points thinned). */
void lab_stress_point_add(struct lab_stress_test *t, gint64 when, char v);

struct lab_stress *lab_stress_new(void);
void lab_stress_free(struct lab_stress *s);
struct lab_stress_test *lab_stress_test_get(struct lab_stress *s, const char *name);
struct lab_stress_crash *lab_stress_crash_get(struct lab_stress *s, const char *title);
char *lab_stress_to_json(const struct lab_stress *s);
/* stress.json read back strictly: NULL with *err when it is not a state
 * lab could have written (fields missing, counts that do not add up, times
 * out of range, paths that leave the stress directory). */
struct lab_stress *lab_stress_from_json(const char *path, char **err);
/* The same from its text (PATH names it in the message). */
struct lab_stress *lab_stress_from_text(const char *text, gsize len,
					const char *path, char **err);
/* A control character is in V (a title must not write to a terminal). */
bool lab_stress_has_control(const char *v);
/* Add a part's counts into INTO (a stress spread over hosts): per test and
 * per title; its excerpt and dump paths (relative to its own directory)
 * get PREFIX, its directory relative to INTO's. Elapsed is the longest. */
void lab_stress_merge(struct lab_stress *into, const struct lab_stress *from,
		      const char *prefix);

#endif
