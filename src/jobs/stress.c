/* stress.c - `lab stress`: loop tests on an instance, in a shuffled order
 * per iteration (seeded: --seed replays it), until a duration, a loop
 * count, the first failure or N clean iterations in a row. Every outcome is
 * counted per test; every failure is filed under a stable title with its
 * first console excerpts; a guest that died is dumped (crash(8) opens it)
 * before the runner restores it; a test that keeps killing its guest is
 * quarantined; stress.json is rewritten after every iteration, so Ctrl-C or
 * a killed lab loses at most the iteration in progress (--resume ID goes
 * on). Disk use is bounded: clean iterations' runs are removed, failing
 * ones capped, dumps capped in count and size. */
#include "jobs/stress.h"
#include "core/stress_report.h"
#include "core/hosts.h"
#include "guests/instance.h"
#include "build/kernel.h"
#include "core/owner.h"
#include "core/results.h"
#include "core/suite.h"
#include "jobs/session.h"
#include "util/util.h"
#include "virt/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#define KEEP_FAILING_RUNS 20
#define DUMPS_MAX 5
#define DUMPS_MB_MAX 4096


char *lab_stress_dir(const char *id)
{
	char *rel = g_build_filename("stress", id, NULL);
	char *d = lab_path(rel);

	g_free(rel);
	return d;
}

static int save_state(struct lab_stress *s)
{
	char *p = g_build_filename(s->dir, "stress.json", NULL);
	char *json;
	int rc;

	s->updated = (gint64)time(NULL);
	json = lab_stress_to_json(s);
	rc = lab_write_file(p, json, -1);
	if (rc != 0)
		lab_err("cannot write %s", p);
	g_free(json);
	g_free(p);
	return rc;
}

/* One loop per stress directory: two `--resume ID` at once would count
 * twice. The lock's fd (closed when the loop ends), or -1 with a message. */
static int lock_dir(const struct lab_stress *s)
{
	char *p = g_build_filename(s->dir, "lock", NULL);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
		lab_err("stress %s is running in another lab (%s): one loop per run",
			s->id, p);
		close(fd);
		fd = -1;
	}
	g_free(p);
	return fd;
}

/* ---- one iteration's results into the state ---- */

static char verdict_char(enum lab_verdict v)
{
	static const char c[] = { [LAB_PASS] = 'p', [LAB_FAIL] = 'f',
				  [LAB_INCONCLUSIVE] = 'i', [LAB_SKIP] = 's',
				  [LAB_ERROR] = 'e', [LAB_TIMEOUT] = 't' };

	return c[v];
}

/* Which failures are crashes worth a title: a fail, a timeout, or an
 * error with a dead guest (not a setup error). */
static bool is_crash(const struct lab_result *r)
{
	return r->verdict == LAB_FAIL || r->verdict == LAB_TIMEOUT ||
	       (r->verdict == LAB_ERROR && r->dump);
}

static char *crash_title(const struct lab_result *r)
{
	const char *t = r->reports->len
		? ((struct lab_rreport *)g_ptr_array_index(r->reports, 0))->title
		: r->verdict == LAB_TIMEOUT ? "timeout" : r->reason;

	return lab_stress_title(t);
}

static void keep_excerpt(struct lab_stress *s, struct lab_stress_crash *c,
			 const struct lab_run *run, const struct lab_result *r)
{
	char *from = g_build_filename(run->dir, r->dir, "console-reports.txt", NULL);
	char *rel, *to, *data = NULL;
	gsize len = 0;

	if (c->excerpts->len >= LAB_STRESS_EXCERPTS ||
	    !g_file_get_contents(from, &data, &len, NULL)) {
		g_free(from);
		return;
	}
	rel = g_strdup_printf("crashes/%u/excerpt-%u.txt", s->crashes->len, c->excerpts->len + 1);
	to = g_build_filename(s->dir, rel, NULL);
	for (guint i = 0; i < s->crashes->len; i++)
		if (g_ptr_array_index(s->crashes, i) == c) {
			g_free(rel);
			rel = g_strdup_printf("crashes/%u/excerpt-%u.txt", i + 1, c->excerpts->len + 1);
			g_free(to);
			to = g_build_filename(s->dir, rel, NULL);
		}
	{
		char *d = g_path_get_dirname(to);

		lab_mkdir_p(d);
		g_free(d);
	}
	if (lab_write_file(to, data, (gssize)len) == 0)
		g_ptr_array_add(c->excerpts, g_strdup(rel));
	g_free(to);
	g_free(data);
	g_free(from);
}

static goffset dumps_bytes(struct lab_stress *s, guint *count)
{
	goffset total = 0;
	guint i, j;

	*count = 0;
	for (i = 0; i < s->crashes->len; i++) {
		struct lab_stress_crash *c = g_ptr_array_index(s->crashes, i);

		for (j = 0; j < c->dumps->len; j++) {
			char *p = g_build_filename(s->dir, g_ptr_array_index(c->dumps, j), NULL);

			total += lab_du(p);
			(*count)++;
			g_free(p);
		}
	}
	return total;
}

/* A dump is kept when its title has none yet and the caps allow it. */
static void keep_dump(struct lab_stress *s, struct lab_stress_crash *c,
		      const struct lab_result *r)
{
	guint n;
	goffset bytes = dumps_bytes(s, &n);
	char *rel;

	if (!r->dump)
		return;
	if (c->dumps->len || n >= DUMPS_MAX ||
	    bytes + lab_du(r->dump) > (goffset)DUMPS_MB_MAX << 20) {
		unlink(r->dump);
		return;
	}
	rel = g_strdup_printf("dumps/%s", strrchr(r->dump, '/') + 1);
	g_ptr_array_add(c->dumps, rel);
	lab_info("# dump kept for \"%s\": open it with: " LAB_CRASH_CMD " %s/vmlinux %s/%s",
		 c->title, s->kernel_dir ? s->kernel_dir : "KERNEL_DIR", s->dir, rel);
}

/* One failure of R filed under TITLE: counts, times, excerpt, and the
 * dump of a guest that died with the first TITLE (PRIMARY) only. */
static void file_crash(struct lab_stress *s, const struct lab_run *run,
		       const struct lab_result *r, const char *title, gint64 now,
		       bool primary)
{
	struct lab_stress_crash *c = lab_stress_crash_get(s, title);

	if (!c->first)
		c->first = now;
	c->last = now;
	c->count++;
	if (!g_ptr_array_find_with_equal_func(c->tests, r->name, g_str_equal, NULL))
		g_ptr_array_add(c->tests, g_strdup(r->name));
	keep_excerpt(s, c, run, r);
	if (primary)
		keep_dump(s, c, r);
}

char **lab_stress_part_fails(const char *out)
{
	GPtrArray *a = g_ptr_array_new();
	const char *p = out ? strstr(out, "# ---- part ") : NULL;

	while (p) {
		const char *eol = strchr(p, '\n'), *next, *l, *words = NULL;

		if (!eol)
			break;
		next = strstr(eol, "\n# ---- part ");
		if (g_strstr_len(p, eol - p, ", exit 1 ----"))
			for (l = eol + 1; *l && (!next || l <= next); l = strchr(l, '\n') + 1) {
				if (g_str_has_prefix(l, "# result: fail: "))
					words = l + strlen("# result: fail: ");
				if (!strchr(l, '\n'))
					break;
			}
		if (words)
			g_ptr_array_add(a, g_strndup(words, strcspn(words, "\n")));
		p = next ? next + 1 : NULL;
	}
	g_ptr_array_add(a, NULL);
	return (char **)g_ptr_array_free(a, FALSE);
}

/* The titles of R's failed parts (stable titles), from its output. */
static char **part_titles(const struct lab_run *run, const struct lab_result *r)
{
	char *p = g_build_filename(run->dir, r->dir, "output.txt", NULL), *out = NULL;
	char **words;

	if (!r->dir || !g_file_get_contents(p, &out, NULL, NULL))
		out = NULL;
	words = lab_stress_part_fails(out);
	for (char **w = words; *w; w++) {
		char *t = lab_stress_title(*w);

		g_free(*w);
		*w = t;
	}
	g_free(out);
	g_free(p);
	return words;
}

static void add_result(struct lab_stress *s, const struct lab_run *run,
		       const struct lab_result *r, gint64 iteration_start, bool *failed)
{
	struct lab_stress_test *t = lab_stress_test_get(s, r->name);
	/* the test's own time, not its iteration's */
	gint64 now = r->ended ? r->ended : iteration_start;

	t->runs++;
	t->total_s += r->seconds;
	if (r->seconds > t->max_s)
		t->max_s = r->seconds;
	if (r->window_hits > 0)
		t->window_hits += r->window_hits;
	switch (r->verdict) {
	case LAB_PASS: t->pass++; break;
	case LAB_FAIL: t->fail++; break;
	case LAB_INCONCLUSIVE: t->inconclusive++; break;
	case LAB_SKIP: t->skip++; break;
	case LAB_ERROR: t->error++; break;
	case LAB_TIMEOUT: t->timeout++; break;
	}
	lab_stress_point_add(t, now, verdict_char(r->verdict));
	if (r->counts)
		lab_stress_rates_add(t->rates, now, r->counts);
	t->crash_streak = r->dump ? t->crash_streak + 1 : 0;
	if (t->crash_streak >= s->quarantine_after && !t->quarantined) {
		t->quarantined = true;
		lab_info("# %s killed its guest %d times in a row: quarantined", t->name,
			 t->crash_streak);
	}
	if (is_crash(r)) {
		char *title = crash_title(r), **more = part_titles(run, r);

		*failed = true;
		if (!t->first_fail)
			t->first_fail = now;
		t->last_fail = now;
		file_crash(s, run, r, title, now, true);
		for (char **m = more; *m; m++)
			if (strcmp(*m, title))
				file_crash(s, run, r, *m, now, false);
		g_strfreev(more);
		g_free(title);
	} else if (r->dump) {
		unlink(r->dump);
	}
}

/* ---- the loop ---- */

static void shuffle(char **v, guint n, guint64 seed, int iteration)
{
	GRand *rng = g_rand_new_with_seed((guint32)(seed * 7919u + (guint64)iteration));
	guint i;

	for (i = n; i > 1; i--) {
		guint j = (guint)g_rand_int_range(rng, 0, (gint32)i);
		char *x = v[i - 1];

		v[i - 1] = v[j];
		v[j] = x;
	}
	g_rand_free(rng);
}

/* Test names for this iteration: the suite expanded, quarantined ones
 * left out, in the iteration's shuffled order. */
static char **iteration_order(struct lab_stress *s)
{
	char *path = lab_src_path("tests/suite.ini"), *err = NULL;
	struct lab_suite *suite = lab_suite_load(path, &err);
	GPtrArray *tests = suite ? lab_suite_expand(suite, s->names, &err) : NULL;
	GPtrArray *out = g_ptr_array_new();
	guint i;

	for (i = 0; tests && i < tests->len; i++) {
		const struct lab_test *t = g_ptr_array_index(tests, i);
		bool quarantined = false;
		guint j;

		for (j = 0; j < s->tests->len; j++) {
			struct lab_stress_test *st = g_ptr_array_index(s->tests, j);

			quarantined |= st->quarantined && g_str_has_prefix(st->name, t->name) &&
				       (st->name[strlen(t->name)] == '\0' || st->name[strlen(t->name)] == ':');
		}
		if (!quarantined)
			g_ptr_array_add(out, g_strdup(t->name));
	}
	if (err)
		lab_err("%s", err);
	shuffle((char **)out->pdata, out->len, s->seed, s->iteration);
	g_ptr_array_add(out, NULL);
	if (tests)
		g_ptr_array_free(tests, TRUE);
	lab_suite_free(suite);
	g_free(path);
	g_free(err);
	return (char **)g_ptr_array_free(out, FALSE);
}

static bool time_up(const struct lab_stress *s, double session_start)
{
	return s->duration_s > 0 &&
	       s->elapsed_s + (lab_now() - session_start) >= (double)s->duration_s;
}

static void status_line(const struct lab_stress *s, double session_start)
{
	double el = s->elapsed_s + (lab_now() - session_start);
	long fails = 0;
	const char *last = s->crashes->len
		? ((struct lab_stress_crash *)g_ptr_array_index(s->crashes, s->crashes->len - 1))->title
		: "none";
	guint i;

	for (i = 0; i < s->crashes->len; i++)
		fails += ((struct lab_stress_crash *)g_ptr_array_index(s->crashes, i))->count;
	if (isatty(STDOUT_FILENO))
		printf("\r\033[K");
	printf("[stress %s] iteration %d, %ld tests, %02ld:%02ld:%02ld elapsed",
	       s->id, s->iteration, s->tests_run, (long)el / 3600, ((long)el / 60) % 60,
	       (long)el % 60);
	if (s->duration_s > 0) {
		long left = s->duration_s - (long)el;

		printf(", ETA %02ld:%02ld", left > 0 ? left / 3600 : 0,
		       left > 0 ? (left / 60) % 60 : 0);
	}
	printf(", %ld failure%s, last: %s%s", fails, fails == 1 ? "" : "s", last,
	       isatty(STDOUT_FILENO) ? "" : "\n");
	fflush(stdout);
}

/* Clean iterations leave nothing; failing ones keep their run (capped). */
static void prune_run(struct lab_stress *s, const char *run_dir, bool failed)
{
	char *root = g_build_filename(s->dir, "runs", NULL);
	GDir *d;
	GPtrArray *names;
	const char *n;

	if (!failed) {
		lab_rm_rf(run_dir);
		g_free(root);
		return;
	}
	d = g_dir_open(root, 0, NULL);
	names = g_ptr_array_new_with_free_func(g_free);
	while (d && (n = g_dir_read_name(d)))
		g_ptr_array_add(names, g_strdup(n));
	if (d)
		g_dir_close(d);
	g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
	while (names->len > KEEP_FAILING_RUNS) {
		char *p = g_build_filename(root, g_ptr_array_index(names, 0), NULL);

		lab_rm_rf(p);
		g_free(p);
		g_ptr_array_remove_index(names, 0);
	}
	g_ptr_array_free(names, TRUE);
	g_free(root);
}

/* One iteration. 0 go on, 1 a reason to stop (set), 3 the host is gone
 * (set), 130 Ctrl-C. */
static int iterate(struct lab_stress *s, const struct lab_stress_opts *so,
		   struct lab_inst *in)
{
	char **order = iteration_order(s);
	char *runs = g_build_filename(s->dir, "runs", NULL);
	char *dumps = g_build_filename(s->dir, "dumps", NULL);
	struct lab_run_opts o = { .names = order, .keep_order = true, .quiet = true,
				  .env = s->env, .runs_root = runs, .dump_dir = dumps,
				  .inject_crash = so->inject_crash == s->iteration + 1 };
	char *run_dir = NULL;
	struct lab_run *run = NULL;
	double t0 = lab_now(), in_tests = 0;
	gint64 now = (gint64)time(NULL);
	bool failed = false;
	int rc = 0;
	guint i;

	lab_mkdir_p(runs);
	if (!order[0]) {
		s->stop_reason = g_strdup("every test is quarantined");
		rc = 1;
		goto out;
	}
	if (o.inject_crash)
		lab_info("# iteration %d: injecting a crash (sysrq-c) into the first test",
			 s->iteration + 1);
	rc = lab_run_with(in, &o, &run_dir);
	if (rc == 130 || lab_interrupted) {
		rc = 130;
		goto out;
	}
	if (rc == 3) { /* the unfinished iteration is not counted */
		s->stop_reason = g_strdup("the guests' host stopped answering");
		goto out;
	}
	rc = 0;
	if (!run_dir || !(run = lab_results_load_dir(run_dir))) {
		s->stop_reason = g_strdup("the runner failed (see above)");
		rc = 1;
		goto out;
	}
	for (i = 0; i < run->results->len; i++) {
		const struct lab_result *r = g_ptr_array_index(run->results, i);

		add_result(s, run, r, now, &failed);
		in_tests += r->seconds;
	}
	s->iteration++;
	s->tests_run += run->results->len;
	s->overhead_s += lab_now() - t0 - in_tests;
	s->clean_streak = failed ? 0 : s->clean_streak + 1;
	prune_run(s, run_dir, failed);
	if (failed && s->until_fail) {
		s->stop_reason = g_strdup("first failure (--until-fail)");
		rc = 1;
	} else if (s->steady && s->clean_streak >= s->steady) {
		s->stop_reason = g_strdup_printf("steady state: %d clean iterations in a row",
						 s->clean_streak);
		rc = 1;
	}
out:
	lab_run_free(run);
	g_strfreev(order);
	g_free(runs);
	g_free(dumps);
	g_free(run_dir);
	return rc;
}

static int loop(struct lab_stress *s, const struct lab_stress_opts *so,
		struct lab_inst *in)
{
	double session = lab_now();
	int rc = 0, unsaved = 0;

	lab_info("stress %s: seed %" G_GUINT64_FORMAT " (--seed to replay), state %s/stress.json",
		 s->id, s->seed, s->dir);
	/* --status answers from the start, not after the first iteration */
	if (save_state(s) != 0)
		rc = unsaved = 1;
	while (!rc) {
		if (s->loops && s->iteration >= s->loops) {
			s->stop_reason = g_strdup_printf("%ld loops done", s->loops);
			break;
		}
		if (time_up(s, session)) {
			s->stop_reason = g_strdup("duration reached");
			break;
		}
		rc = iterate(s, so, in);
		s->elapsed_s += lab_now() - session;
		session = lab_now();
		if (save_state(s) != 0 && !rc) {
			/* a loop whose counts are not kept is no overnight run */
			s->stop_reason = g_strdup("stress.json could not be written (disk full?)");
			rc = unsaved = 1;
		}
		status_line(s, session);
	}
	if (isatty(STDOUT_FILENO))
		printf("\n");
	if (rc == 130)
		s->stop_reason = g_strdup("interrupted (lab stress --resume continues)");
	save_state(s);
	return rc == 130 || rc == 3 ? rc : unsaved;
}

/* ---- bring-up, resume, status ---- */

/* A key of the instance's first guest: its kernel, kernel-dir. */
static char *first_guest(struct lab_inst *in, const char *key)
{
	char **g = lab_inst_guests(in->state);
	char *v = g[0] ? lab_inst_guest_get(in, g[0], key) : NULL;

	g_strfreev(g);
	return v;
}

int lab_stress_here(struct lab_stress *s, const struct lab_stress_opts *so,
		    bool *host_lost)
{
	struct lab_up_opts up = { .topology = so->topology, .kernel = so->kernel,
				  .accel = "auto", .timeout_s = 900, .host = so->host,
				  .hosts_file = so->hosts_file };
	struct lab_session se;
	int lock = lock_dir(s), rc;
	char *k;

	*host_lost = false;
	if (lock < 0)
		return -1;
	rc = lab_session_up(&se, &up, true, host_lost);
	if (rc != 0) {
		lab_inst_close(&se.in);
		close(lock);
		return -1;
	}
	g_free(s->kernel_dir);
	s->kernel_dir = first_guest(&se.in, "kernel-dir");
	/* an instance that was up says which kernel it runs */
	if (!se.brought_up && (k = first_guest(&se.in, "kernel"))) {
		g_free(s->kernel);
		s->kernel = k;
	}
	rc = loop(s, so, &se.in);
	*host_lost = rc == 3;
	lab_stress_write_reports(s);
	lab_session_end(&se, so->keep);
	close(lock);
	return rc;
}
