/* bisect.c - `lab bisect --good A --bad B TEST`: B is a kernel of the
 * user's whose base is A; step i is A with the first i patches of B's
 * series (B@i, built incrementally in the one tree). Or A and B are
 * commits of one tree of the user's (user_tree.h): step i is the i-th
 * first-parent commit after A (B@COMMIT). The bad end runs TEST
 * three times: its failure rate sets the tries per step (core/regress.h),
 * the good end must pass them all. Then a binary search: a step fails on
 * its first failing try, passes when every try passed, and is skipped
 * (like `git bisect skip`) when it does not build, boot, or give a pass or
 * fail. The log reads like `git bisect log`. */
#include "jobs/bisect.h"
#include "build/kernel.h"
#include "build/user_kernel.h"
#include "build/user_tree.h"
#include "core/regress.h"
#include "core/results.h"
#include "guests/restart.h"
#include "jobs/session.h"
#include "jobs/test_guests.h"
#include "util/util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#define PROBE_TRIES 3
#define READY_TIMEOUT_S 900

struct step {
	enum lab_step state;
	struct lab_outcomes o;
	double build_s, up_s, test_s;
	char *why;      /* skipped: why; else the last verdict's reason */
	char *kernel;
};

struct bisect {
	const struct lab_bisect_opts *o;
	struct lab_user_kernel *bad;
	char **commits; /* a tree's bisection: the commits after good, else NULL */
	char *good_commit;
	const char *unit; /* "patch" or "commit" */
	char **guests;
	int n;          /* patches in the series, or commits */
	struct step *steps;
	GString *log;
	int tries;
	double p;
	int first;      /* the first bad step, once found */
};

/* GOOD is "BAD@0": the base by the series' own name (a series on
 * linux-source-6.1 has no other). */
static bool is_start(const char *bad, const char *good)
{
	char *zero = g_strdup_printf("%s@0", bad);
	bool yes = !strcmp(zero, good);

	g_free(zero);
	return yes;
}

/* The commits after GOOD up to BAD, both kernels of one tree; NULL and
 * *why when they are not. */
static char **tree_steps(const struct lab_user_kernel *bad, const char *good, char **why)
{
	struct lab_user_kernel *g = lab_user_kernel_load(good);
	char **steps = NULL;

	if (!g || !g->tree || g_strcmp0(g->tree_id, bad->tree_id))
		*why = g_strdup_printf("--good %s is not a commit of %s's tree %s (%s@~N, "
				       "%s@COMMIT name its older commits)", good, bad->def,
				       bad->tree, bad->def, bad->def);
	else if (!(steps = lab_user_tree_steps(bad->tree_id, g->commit, bad->commit, why))) {
		char *w = g_strdup_printf("--good %s, --bad %s: %s", good, bad->name, *why);

		g_free(*why);
		*why = w;
	}
	lab_user_kernel_free(g);
	return steps;
}

bool lab_bisectable(const char *good, const char *bad, char **why)
{
	struct lab_user_kernel *k = lab_user_kernel_load(bad);
	char *w = NULL, **steps = NULL;

	if (!k || k->prefix >= 0)
		w = g_strdup_printf("--bad %s is not a kernel of yours (`lab build NAME --series "
				    "PATH --base %s` or `lab build NAME --tree DIR` defines one; "
				    "`lab kernels` lists them)", bad, good);
	else if (!lab_kernel_known(good))
		w = g_strdup_printf("--good %s is no kernel lab knows", good);
	else if (k->tree)
		steps = tree_steps(k, good, &w);
	else if (g_strcmp0(k->base, good) != 0 && !is_start(bad, good))
		w = g_strdup_printf("%s is built on %s, not on --good %s: the bisection walks "
				    "%s's own series from its base (%s@0 names the base too)", bad,
				    k->base ? k->base : "linux-source-6.1", good, bad, bad);
	g_strfreev(steps);
	lab_user_kernel_free(k);
	if (why)
		*why = w;
	else
		g_free(w);
	return !w;
}

int lab_bisect_check(const struct lab_bisect_opts *o)
{
	char *err = NULL, *names[] = { (char *)o->test, NULL }, **g;
	int rc = 2;

	if (!lab_bisectable(o->good, o->bad, &err))
		lab_err("bisect: %s", err);
	else if (!(g = lab_test_guests(o->topology, names, &err)))
		lab_err("bisect: %s", err);
	else {
		g_strfreev(g);
		rc = 0;
	}
	g_free(err);
	return rc;
}

static char *step_kernel(const struct bisect *b, int i)
{
	if (i == 0)
		return g_strdup(b->o->good);
	if (i == b->n)
		return g_strdup(b->o->bad);
	if (b->commits)
		return g_strdup_printf("%s@%.12s", b->bad->def, b->commits[i - 1]);
	return g_strdup_printf("%s@%d", b->o->bad, i);
}

/* The patch (or commit) step I adds (1-based), as the user named it. */
static char *patch_name(const struct bisect *b, int i)
{
	if (b->commits) /* step 0: the good end's own commit */
		return lab_user_tree_title(b->bad->tree_id, i > 0 ? b->commits[i - 1] :
					   b->good_commit);
	if (i <= 0)
		return g_strdup("(none)");
	return g_path_get_basename(b->bad->patches[i - 1]);
}

/* TEST's verdicts in a run (all its instances): into O; the reason of the
 * one that decides into *why. */
static void count_run(const char *run_dir, const char *test, struct lab_outcomes *o,
		      char **why)
{
	struct lab_run *r = run_dir ? lab_results_load_dir(run_dir) : NULL;
	const struct lab_result *pick = NULL; /* the first fail, else the last */
	int fail = 0, pass = 0, other = 0;

	for (guint i = 0; r && i < r->results->len; i++) {
		const struct lab_result *x = g_ptr_array_index(r->results, i);

		if (strcmp(x->test ? x->test : "", test) && strcmp(x->name, test))
			continue;
		if (!pick || pick->verdict != LAB_FAIL)
			pick = x;
		fail += x->verdict == LAB_FAIL;
		pass += x->verdict == LAB_PASS;
		other += x->verdict != LAB_FAIL && x->verdict != LAB_PASS;
	}
	if (pick) {
		g_free(*why);
		*why = g_strdup_printf("%s: %s", lab_verdict_name(pick->verdict),
				       pick->reason ? pick->reason : "");
	}
	if (fail)
		o->fail++;
	else if (pass && !other)
		o->pass++;
	else
		o->other++;
	lab_run_free(r);
}

/* The guests back to their ready state after a try that did not pass (a
 * spent kernel must not decide the next try); their consoles so far kept
 * in RUN_DIR. */
static int fresh_guests(struct bisect *b, struct lab_session *s, const char *run_dir)
{
	for (char **g = b->guests; *g; g++) {
		char *name = g_strdup_printf("console-%s-before-restart.log", *g);
		char *keep = g_build_filename(run_dir ? run_dir : lab_home(), name, NULL);
		int rc = lab_guest_restart(&s->in, *g, keep, READY_TIMEOUT_S);

		g_free(name);
		g_free(keep);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* Run TEST TRIES times on step I's kernel (stopping at a fail when
 * STOP_AT_FAIL), on fresh guests. */
static void run_step(struct bisect *b, int i, int tries, bool stop_at_fail)
{
	struct step *st = &b->steps[i];
	struct lab_up_opts up = { .topology = b->o->topology, .kernel = st->kernel,
				  .accel = "auto", .tests_iso = b->o->iso,
				  .timeout_s = READY_TIMEOUT_S, .only = b->guests };
	char *names[] = { (char *)b->o->test, NULL };
	struct lab_run_opts ro = { .names = names };
	struct lab_session s;
	double t0 = lab_now();
	bool lost;

	lab_info("=== bisect step %d of %d: kernel %s, %d tr%s ===", i, b->n, st->kernel, tries,
		 tries == 1 ? "y" : "ies");
	if (lab_kernel_build(LAB_REVIEW_DEFAULT, st->kernel) != 0) {
		st->state = LAB_STEP_SKIP;
		st->why = g_strdup("the kernel does not build");
		return;
	}
	st->build_s = lab_now() - t0;
	t0 = lab_now();
	if (lab_session_up(&s, &up, false, &lost) != 0) {
		lab_inst_close(&s.in);
		st->state = LAB_STEP_SKIP;
		st->why = g_strdup("the guests do not come up on it (does it boot? see lab up's "
				   "messages above)");
		return;
	}
	st->up_s = lab_now() - t0;
	t0 = lab_now();
	for (int t = 0; t < tries && !lab_interrupted; t++) {
		char *run_dir = NULL;
		int passed = st->o.pass;

		lab_session_run(&s, &ro, &run_dir);
		count_run(run_dir, b->o->test, &st->o, &st->why);
		if ((st->o.fail && stop_at_fail) || t + 1 == tries ||
		    (st->o.pass == passed && fresh_guests(b, &s, run_dir) != 0)) {
			g_free(run_dir);
			break;
		}
		g_free(run_dir);
	}
	st->test_s = lab_now() - t0;
	lab_session_end(&s, false);
	st->state = st->o.fail ? LAB_STEP_BAD : st->o.pass == tries ? LAB_STEP_GOOD :
		LAB_STEP_SKIP;
	if (st->state == LAB_STEP_SKIP && !lab_interrupted) {
		char *w = g_strdup_printf("no pass or fail in %d tries (last: %s)", tries,
					  st->why ? st->why : "no result");

		g_free(st->why);
		st->why = w;
	}
}

static void log_step(struct bisect *b, int i)
{
	const struct step *st = &b->steps[i];
	const char *word = st->state == LAB_STEP_GOOD ? "good" : st->state == LAB_STEP_BAD ?
		"bad" : "skip";
	char *p = patch_name(b, i);
	int runs = st->o.pass + st->o.fail + st->o.other;

	g_string_append_printf(b->log, "git bisect %s %s # %s; ", word, st->kernel, p);
	if (st->state == LAB_STEP_SKIP && !runs)
		g_string_append_printf(b->log, "%s", st->why);
	else
		g_string_append_printf(b->log, "%d of %d tries failed, %d passed; build %.0f s, "
				       "up %.0f s, test %.0f s", st->o.fail, runs, st->o.pass,
				       st->build_s, st->up_s, st->test_s);
	if (st->state == LAB_STEP_BAD && st->why)
		g_string_append_printf(b->log, "; %.140s", st->why);
	g_string_append_c(b->log, '\n');
	lab_info("step %d (%s): %s", i, st->kernel, word);
	g_free(p);
}

static json_object *steps_json(const struct bisect *b)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i <= b->n; i++) {
		const struct step *st = &b->steps[i];
		json_object *j;
		char *p;

		if (st->state == LAB_STEP_UNTESTED)
			continue;
		j = json_object_new_object();
		p = patch_name(b, i);
		json_object_object_add(j, "step", json_object_new_int(i));
		json_object_object_add(j, "kernel", json_object_new_string(st->kernel));
		json_object_object_add(j, "patch", json_object_new_string(p));
		json_object_object_add(j, "state", json_object_new_string(
			st->state == LAB_STEP_GOOD ? "good" : st->state == LAB_STEP_BAD ? "bad" :
			"skip"));
		json_object_object_add(j, "pass", json_object_new_int(st->o.pass));
		json_object_object_add(j, "fail", json_object_new_int(st->o.fail));
		json_object_object_add(j, "other", json_object_new_int(st->o.other));
		json_object_object_add(j, "build_s", json_object_new_double(st->build_s));
		json_object_object_add(j, "up_s", json_object_new_double(st->up_s));
		json_object_object_add(j, "test_s", json_object_new_double(st->test_s));
		if (st->why)
			json_object_object_add(j, "why", json_object_new_string(st->why));
		json_object_array_add(a, j);
		g_free(p);
	}
	return a;
}

static void write_out(struct bisect *b, const char *verdict, int first_bad, double secs)
{
	char *dir = lab_path("bisect"), *id = NULL, *out, *p;
	json_object *j = json_object_new_object();

	lab_mkdir_p(dir);
	out = lab_unique_dir(dir, NULL, &id);
	if (!out)
		goto done;
	p = g_build_filename(out, "bisect.log", NULL);
	lab_write_file(p, b->log->str, b->log->len);
	g_free(p);
	json_object_object_add(j, "good", json_object_new_string(b->o->good));
	json_object_object_add(j, "bad", json_object_new_string(b->o->bad));
	json_object_object_add(j, "test", json_object_new_string(b->o->test));
	json_object_object_add(j, "topology", json_object_new_string(b->o->topology));
	json_object_object_add(j, b->commits ? "commits" : "patches", json_object_new_int(b->n));
	json_object_object_add(j, "tries_per_step", json_object_new_int(b->tries));
	json_object_object_add(j, "bad_fail_rate", json_object_new_double(b->p));
	json_object_object_add(j, "result", json_object_new_string(verdict));
	if (first_bad > 0) {
		char *n = patch_name(b, first_bad);

		json_object_object_add(j, "first_bad_step", json_object_new_int(first_bad));
		json_object_object_add(j, "first_bad_patch", json_object_new_string(n));
		g_free(n);
	}
	json_object_object_add(j, "seconds", json_object_new_double(secs));
	json_object_object_add(j, "steps", steps_json(b));
	p = g_build_filename(out, "bisect.json", NULL);
	lab_write_file(p, json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY), -1);
	g_free(p);
	printf("bisect: %s (and bisect.json)\n", out);
done:
	json_object_put(j);
	g_free(out);
	g_free(id);
	g_free(dir);
}

/* The ends: the bad kernel fails (its rate sets the tries), the good one
 * passes them. 0, or 1 with the log saying why not. */
static int ends(struct bisect *b)
{
	struct step *bad = &b->steps[b->n], *good = &b->steps[0];
	int k;

	run_step(b, b->n, PROBE_TRIES, false);
	log_step(b, b->n);
	k = lab_bisect_tries(bad->o.fail, bad->o.pass + bad->o.fail + bad->o.other, &b->p);
	if (!bad->o.fail) {
		g_string_append_printf(b->log, "# %s does not fail %s in %d tries: nothing to "
				       "bisect\n", b->o->bad, b->o->test, PROBE_TRIES);
		return 1;
	}
	b->tries = b->o->tries ? b->o->tries : k;
	g_string_append_printf(b->log, "# %d tr%s a step: %s failed %d of %d; a bug failing "
			       "a try with p = %.2f passes %d tries with probability %.3f%s\n",
			       b->tries, b->tries == 1 ? "y" : "ies", b->o->bad, bad->o.fail,
			       PROBE_TRIES, b->p, b->tries, lab_bisect_miss(b->p, b->tries),
			       b->o->tries ? " (--tries)" : "");
	run_step(b, 0, b->tries, true);
	log_step(b, 0);
	if (good->state != LAB_STEP_GOOD) {
		g_string_append_printf(b->log, "# %s does not pass %s (%s): nothing to bisect\n",
				       b->o->good, b->o->test, good->why ? good->why : "?");
		return 1;
	}
	return 0;
}

static int search(struct bisect *b)
{
	enum lab_step *state = g_malloc0_n((gsize)b->n + 1, sizeof(*state));
	int lo, hi, i, rc = 1;
	char *p;

	for (;;) {
		for (i = 0; i <= b->n; i++)
			state[i] = b->steps[i].state;
		i = lab_bisect_next(state, b->n, &lo, &hi);
		if (i < 0 || lab_interrupted)
			break;
		run_step(b, i, b->tries, true);
		log_step(b, i);
	}
	if (lab_interrupted) {
		rc = 130;
	} else if (hi == lo + 1) {
		p = patch_name(b, hi);
		g_string_append_printf(b->log, "# first bad %s: %d of %d, %s (kernel %s)\n",
				       b->unit, hi, b->n, p, b->steps[hi].kernel);
		g_free(p);
		b->first = hi;
		rc = 0;
	} else {
		g_string_append_printf(b->log, "# the first bad %s is one of %d..%d: the "
				       "steps between were skipped\n", b->unit, lo + 1, hi);
	}
	g_free(state);
	return rc;
}

int lab_bisect(const struct lab_bisect_opts *o)
{
	struct bisect b = { .o = o };
	char *err = NULL, *names[] = { (char *)o->test, NULL };
	double t0 = lab_now();
	int rc, first = -1;

	b.bad = lab_user_kernel_load(o->bad);
	b.guests = lab_test_guests(o->topology, names, &err);
	if (!b.bad || !b.guests) {
		lab_err("bisect: %s", err ? err : o->bad);
		g_free(err);
		lab_user_kernel_free(b.bad);
		return 2;
	}
	b.unit = "patch";
	b.n = (int)b.bad->total;
	if (b.bad->tree) {
		b.unit = "commit";
		b.commits = tree_steps(b.bad, o->good, &err);
		if (b.commits) {
			struct lab_user_kernel *g = lab_user_kernel_load(o->good);

			b.good_commit = g_strdup(g->commit);
			lab_user_kernel_free(g);
		}
		if (!b.commits) {
			lab_err("bisect: %s", err);
			g_free(err);
			g_strfreev(b.guests);
			lab_user_kernel_free(b.bad);
			return 2;
		}
		b.n = (int)g_strv_length(b.commits);
	}
	b.steps = g_new0(struct step, b.n + 1);
	for (int i = 0; i <= b.n; i++)
		b.steps[i].kernel = step_kernel(&b, i);
	b.log = g_string_new(NULL);
	g_string_append_printf(b.log, "# lab bisect: good %s, bad %s (%d %s%s on it), test "
			       "%s, topology %s\ngit bisect start\n", o->good, o->bad, b.n,
			       b.commits ? "first-parent commit" : "patch", b.n == 1 ? "" : "s",
			       o->test, o->topology);
	rc = ends(&b);
	if (rc == 0)
		rc = search(&b);
	first = rc == 0 ? b.first : -1;
	g_string_append_printf(b.log, "# %.0f s in all\n", lab_now() - t0);
	fputs(b.log->str, stdout);
	write_out(&b, rc == 0 ? "found" : rc == 130 ? "interrupted" : "not found", first,
		  lab_now() - t0);
	for (int i = 0; i <= b.n; i++) {
		g_free(b.steps[i].why);
		g_free(b.steps[i].kernel);
	}
	g_free(b.steps);
	g_string_free(b.log, TRUE);
	g_strfreev(b.guests);
	g_strfreev(b.commits);
	g_free(b.good_commit);
	lab_user_kernel_free(b.bad);
	return rc;
}
