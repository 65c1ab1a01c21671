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
#include "core/hosts.h"
#include "guests/instance.h"
#include "build/kernel.h"
#include "core/owner.h"
#include "core/results.h"
#include "jobs/run.h"
#include "core/suite.h"
#include "guests/up.h"
#include "util/util.h"
#include "virt/virt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KEEP_FAILING_RUNS 20
#define DUMPS_MAX 5
#define DUMPS_MB_MAX 4096


static char *stress_dir(const char *id)
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
	g_free(json);
	g_free(p);
	return rc;
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

static void add_result(struct lab_stress *s, const struct lab_run *run,
		       const struct lab_result *r, gint64 now, bool *failed)
{
	struct lab_stress_test *t = lab_stress_test_get(s, r->name);

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
	t->crash_streak = r->dump ? t->crash_streak + 1 : 0;
	if (t->crash_streak >= s->quarantine_after && !t->quarantined) {
		t->quarantined = true;
		lab_info("# %s killed its guest %d times in a row: quarantined", t->name,
			 t->crash_streak);
	}
	if (is_crash(r)) {
		char *title = crash_title(r);
		struct lab_stress_crash *c = lab_stress_crash_get(s, title);

		*failed = true;
		if (!t->first_fail)
			t->first_fail = now;
		t->last_fail = now;
		if (!c->first)
			c->first = now;
		c->last = now;
		c->count++;
		if (!g_ptr_array_find_with_equal_func(c->tests, r->name, g_str_equal, NULL))
			g_ptr_array_add(c->tests, g_strdup(r->name));
		keep_excerpt(s, c, run, r);
		keep_dump(s, c, r);
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
static int iterate(struct lab_stress *s, const struct lab_stress_opts *so)
{
	char **order = iteration_order(s);
	char *runs = g_build_filename(s->dir, "runs", NULL);
	char *dumps = g_build_filename(s->dir, "dumps", NULL);
	struct lab_run_opts o = { .names = order, .keep_order = true, .quiet = true,
				  .runs_root = runs, .dump_dir = dumps,
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
	rc = lab_run_with(&o, &run_dir);
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

static int loop(struct lab_stress *s, const struct lab_stress_opts *so)
{
	double session = lab_now();
	int rc = 0;

	lab_info("stress %s: seed %" G_GUINT64_FORMAT " (--seed to replay), state %s/stress.json",
		 s->id, s->seed, s->dir);
	while (!rc) {
		if (s->loops && s->iteration >= s->loops) {
			s->stop_reason = g_strdup_printf("%ld loops done", s->loops);
			break;
		}
		if (time_up(s, session)) {
			s->stop_reason = g_strdup("duration reached");
			break;
		}
		rc = iterate(s, so);
		s->elapsed_s += lab_now() - session;
		session = lab_now();
		save_state(s);
		status_line(s, session);
	}
	if (isatty(STDOUT_FILENO))
		printf("\n");
	if (rc == 130)
		s->stop_reason = g_strdup("interrupted (lab stress --resume continues)");
	save_state(s);
	return rc == 130 || rc == 3 ? rc : 0;
}

/* ---- bring-up, resume, status ---- */

static bool instance_up(void)
{
	struct lab_inst in;
	bool up = lab_inst_open_unlocked(&in) == 0;

	lab_inst_close(&in);
	return up;
}

static char *kernel_dir_of_instance(void)
{
	struct lab_inst in;
	char *out = NULL;

	if (lab_inst_open_unlocked(&in) == 0) {
		char **g = lab_inst_guests(in.state);
		char *grp = g && g[0] ? g_strdup_printf("guest %s", g[0]) : NULL;

		out = grp ? g_key_file_get_string(in.state, grp, "kernel-dir", NULL) : NULL;
		g_free(grp);
		g_strfreev(g);
	}
	lab_inst_close(&in);
	return out;
}

/* The kernel of the instance that is up, by its name in the state. */
static void name_kernel(struct lab_stress *s)
{
	struct lab_inst in;

	if (lab_inst_open_unlocked(&in) == 0) {
		char **g = lab_inst_guests(in.state);
		char *grp = g && g[0] ? g_strdup_printf("guest %s", g[0]) : NULL;
		char *k = grp ? g_key_file_get_string(in.state, grp, "kernel", NULL) : NULL;

		if (k) {
			g_free(s->kernel);
			s->kernel = k;
		}
		g_free(grp);
		g_strfreev(g);
	}
	lab_inst_close(&in);
}

static int bring_up(const struct lab_stress_opts *so, bool *we_did)
{
	struct lab_up_opts up = { .topology = so->topology, .kernel = so->kernel,
				  .accel = "auto", .timeout_s = 900, .host = so->host,
				  .hosts_file = so->hosts_file };

	*we_did = false;
	if (instance_up())
		return 0;
	*we_did = true;
	return lab_up(&up);
}

int lab_stress_here(struct lab_stress *s, const struct lab_stress_opts *so,
		    bool *host_lost)
{
	bool we_did = false;
	int rc = bring_up(so, &we_did);

	*host_lost = rc == 1 && so->host && !lab_host_answers(so->hosts_file, so->host);
	if (rc != 0)
		return -1;
	g_free(s->kernel_dir);
	s->kernel_dir = kernel_dir_of_instance();
	if (!we_did) /* the instance that was up says which kernel it runs */
		name_kernel(s);
	rc = loop(s, so);
	*host_lost = rc == 3;
	lab_stress_write_reports(s);
	if (we_did && !so->keep)
		lab_down(true);
	return rc;
}

static int show_status(const char *id)
{
	char *dir = stress_dir(id), *p = g_build_filename(dir, "stress.json", NULL);
	char *err = NULL, *text;
	struct lab_stress *s = lab_stress_from_json(p, &err);

	if (!s) {
		lab_err("%s", err);
		g_free(err);
		g_free(dir);
		g_free(p);
		return 1;
	}
	text = lab_stress_text(s);
	fputs(text, stdout);
	g_free(text);
	lab_stress_free(s);
	g_free(dir);
	g_free(p);
	return 0;
}

static struct lab_stress *resume(const char *id)
{
	char *dir = stress_dir(id), *p = g_build_filename(dir, "stress.json", NULL);
	char *err = NULL;
	struct lab_stress *s = lab_stress_from_json(p, &err);

	if (!s) {
		lab_err("cannot resume: %s", err);
		g_free(err);
	} else {
		s->dir = g_strdup(dir);
		g_clear_pointer(&s->stop_reason, g_free);
		lab_info("resuming stress %s at iteration %d (%ld tests so far)", id,
			 s->iteration, s->tests_run);
	}
	g_free(dir);
	g_free(p);
	return s;
}

/* ---- the command ---- */

static const char stress_usage[] =
	"usage: lab stress [-t TOPOLOGY] [--kernel baseline|patched]\n"
	"                  [--duration 8h|30m|SECONDS] [--loops N] [--until-fail | --steady N]\n"
	"                  [--seed S] [--quarantine K] [--keep] [TEST|SUITE...]\n"
	"       lab stress --resume ID [--loops N] [--duration D] | --status ID\n"
	"  Loop the tests (default: the topology's suite, else review) in a shuffled\n"
	"  order per iteration until the duration, the loop count, the first\n"
	"  failure (--until-fail) or N clean iterations in a row (--steady N).\n"
	"  Failures are filed by title with console excerpts; a guest that died is\n"
	"  dumped (crash(8)) and restored; a test that kills its guest K times in a\n"
	"  row (default 3) is quarantined. State: $LAB_HOME/stress/ID/stress.json,\n"
	"  reports report.txt/json/html there. --inject-crash N (for CI) panics\n"
	"  the first guest during iteration N.\n"
	"  --hosts A,B,...  [--hosts-file FILE]: a part of the loop on every host\n"
	"  at once (hosts.ini names; `local` is this machine through its store),\n"
	"  --loops split between them, --duration on each; counts and titles\n"
	"  merged. A host that drops out is reported and its part goes on on a\n"
	"  host that finished. --host A: the whole loop on A.\n";

static int parse_duration(const char *v, long *out)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (end == v || n <= 0)
		return -1;
	if (!strcmp(end, "h"))
		n *= 3600;
	else if (!strcmp(end, "m"))
		n *= 60;
	else if (*end && strcmp(end, "s"))
		return -1;
	*out = n;
	return 0;
}

static int parse(int argc, char **argv, struct lab_stress *s, struct lab_stress_opts *so)
{
	GPtrArray *names = g_ptr_array_new();
	int i, n;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;

		if ((!strcmp(a, "-t") || !strcmp(a, "--topology")) && has)
			so->topology = argv[++i];
		else if (!strcmp(a, "--kernel") && has && lab_kernel_name_valid(argv[i + 1]))
			so->kernel = argv[++i];
		else if (!strcmp(a, "--duration") && has && parse_duration(argv[i + 1], &s->duration_s) == 0)
			i++;
		else if (!strcmp(a, "--loops") && has && lab_parse_count(argv[i + 1], 1, 1000000, &n) == 0)
			s->loops = n, i++;
		else if (!strcmp(a, "--steady") && has && lab_parse_count(argv[i + 1], 1, 100000, &n) == 0)
			s->steady = n, i++;
		else if (!strcmp(a, "--quarantine") && has && lab_parse_count(argv[i + 1], 1, 1000, &n) == 0)
			s->quarantine_after = n, i++;
		else if (!strcmp(a, "--inject-crash") && has && lab_parse_count(argv[i + 1], 1, 1000000, &n) == 0)
			so->inject_crash = n, i++;
		else if (!strcmp(a, "--seed") && has && lab_parse_count(argv[i + 1], 0, G_MAXINT32, &n) == 0)
			s->seed = (guint64)n, i++;
		else if ((!strcmp(a, "--hosts") || !strcmp(a, "--host")) && has) {
			g_strfreev(so->hosts);
			so->hosts = g_strsplit(argv[++i], ",", -1);
		} else if (!strcmp(a, "--hosts-file") && has)
			so->hosts_file = argv[++i];
		else if (!strcmp(a, "--until-fail"))
			s->until_fail = true;
		else if (!strcmp(a, "--keep"))
			so->keep = true;
		else if (!strcmp(a, "--resume") && has)
			so->resume = argv[++i];
		else if (!strcmp(a, "--status") && has)
			so->status = argv[++i];
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(stress_usage, stdout);
			g_ptr_array_free(names, TRUE);
			return 0;
		} else if (a[0] != '-') {
			g_ptr_array_add(names, g_strdup(a));
		} else {
			lab_err("stress: bad argument '%s'%s\n%s", a,
				has ? " (or its value)" : "", stress_usage);
			g_ptr_array_free(names, TRUE);
			return 2;
		}
	}
	if (s->until_fail && s->steady) {
		lab_err("stress: --until-fail and --steady exclude each other");
		g_ptr_array_free(names, TRUE);
		return 2;
	}
	if (so->status && (names->len || s->loops || s->duration_s)) {
		lab_err("stress: --status takes nothing else");
		g_ptr_array_free(names, TRUE);
		return 2;
	}
	if ((so->resume || so->status) && so->hosts) {
		lab_err("stress: a run spread with --hosts is not resumed (each host's part is kept under ID/hosts/)");
		g_ptr_array_free(names, TRUE);
		return 2;
	}
	if ((so->resume || so->status) && names->len) {
		lab_err("stress: --resume and --status take no tests");
		g_ptr_array_free(names, TRUE);
		return 2;
	}
	g_ptr_array_add(names, NULL);
	s->names = (char **)g_ptr_array_free(names, FALSE);
	return -1;
}

static bool id_ok(const char *id)
{
	return id && *id && strspn(id, "0123456789-") == strlen(id);
}

int cmd_stress(int argc, char **argv)
{
	struct lab_stress_opts so = { .topology = "default" };
	struct lab_stress *s = lab_stress_new();
	bool lost = false;
	int rc = parse(argc, argv, s, &so);

	if (rc >= 0)
		goto out;
	if ((so.resume && !id_ok(so.resume)) || (so.status && !id_ok(so.status))) {
		lab_err("stress: an ID is the stress run's date, e.g. 20261204-083000");
		rc = 2;
		goto out;
	}
	if (so.status) {
		rc = show_status(so.status);
		goto out;
	}
	if (lab_stress_check_hosts(&so) != 0) {
		rc = 2;
		goto out;
	}
	if (so.resume) {
		long loops = s->loops, duration = s->duration_s;

		lab_stress_free(s);
		if (!(s = resume(so.resume))) {
			rc = 1;
			goto out;
		}
		/* a resumed run may be given more loops or time */
		if (loops)
			s->loops = loops;
		if (duration)
			s->duration_s = duration;
		so.topology = s->topology;
		so.kernel = s->kernel;
	} else {
		if (!s->names[0]) {
			g_free(s->names);
			s->names = g_new0(char *, 2);
			s->names[0] = g_strdup(strcmp(so.topology, "default") ? so.topology : "review");
		}
		if (!s->seed)
			s->seed = (guint64)time(NULL) % 100000;
		{
			char *root = lab_path("stress");

			/* unique even when another instance starts this second */
			s->dir = lab_unique_dir(root, NULL, &s->id);
			g_free(root);
		}
		if (!s->dir) {
			rc = 1;
			goto out;
		}
		s->topology = g_strdup(so.topology);
		s->kernel = g_strdup(so.kernel ? so.kernel : "patched");
		so.kernel = s->kernel;
		s->started = (gint64)time(NULL);
	}
	if (so.hosts)
		rc = lab_stress_spread(s, &so);
	else
		rc = lab_stress_here(s, &so, &lost);
	if (rc < 0) {
		rc = 1;
		goto out;
	}
	fputs("\n", stdout);
	{
		char *text = lab_stress_text(s);

		fputs(text, stdout);
		g_free(text);
	}
	printf("stress %s: %s (report: %s/report.html; disk used: %.0f MiB)\n", s->id,
	       s->stop_reason ? s->stop_reason : "stopped", s->dir,
	       (double)lab_du(s->dir) / (1 << 20));
out:
	g_strfreev(so.hosts);
	lab_stress_free(s);
	return rc;
}
