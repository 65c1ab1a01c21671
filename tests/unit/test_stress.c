/* test_stress.c - lab stress's arithmetic and state: Wilson intervals
 * (table), stable crash titles (table), stress.json round trip (what
 * --resume and --status read), the timeline's bound, and a summary that
 * names quarantined tests and how to open a dump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "jobs/stress.h"
#include "core/stress_report.h"
#include "util/util.h"

static void test_wilson(void **st)
{
	/* k, n, lo, hi (to 3 decimals; from the Wilson formula, z = 1.96) */
	static const struct { long k, n; double lo, hi; } rows[] = {
		{ 0, 0, 0.0, 1.0 },
		{ 0, 10, 0.0, 0.278 },
		{ 1, 10, 0.018, 0.404 },
		{ 5, 10, 0.237, 0.763 },
		{ 10, 10, 0.722, 1.0 },
		{ 1, 669, 0.0003, 0.0084 },
		{ 50, 100, 0.404, 0.596 },
	};
	size_t i;

	(void)st;
	for (i = 0; i < G_N_ELEMENTS(rows); i++) {
		double lo, hi;

		lab_wilson(rows[i].k, rows[i].n, &lo, &hi);
		if (fabs(lo - rows[i].lo) > 0.001 || fabs(hi - rows[i].hi) > 0.001)
			fail_msg("k=%ld n=%ld: [%.4f, %.4f], want [%.4f, %.4f]", rows[i].k,
				 rows[i].n, lo, hi, rows[i].lo, rows[i].hi);
	}
}

static void test_titles(void **st)
{
	static const char *const rows[][2] = {
		{ "sysfs: cannot create duplicate filename '/devices/virtual/bdi/0:25'",
		  "sysfs: cannot create duplicate filename '/devices/virtual/bdi/N:N'" },
		{ "BUG: unable to handle page fault in dvb_dmxdev_start_feed",
		  "BUG: unable to handle page fault in dvb_dmxdev_start_feed" },
		{ "WARNING: CPU: 0 PID: 448 at kernel/futex/pi.c:297 futex_lock_pi_atomic+0x102/0x325",
		  "WARNING: CPU: N PID: N at kernel/futex/pi.c:N futex_lock_pi_atomicN" },
		{ "Kernel panic - not syncing: sysrq triggered crash",
		  "Kernel panic - not syncing: sysrq triggered crash" },
	};
	size_t i;

	(void)st;
	for (i = 0; i < G_N_ELEMENTS(rows); i++) {
		char *t = lab_stress_title(rows[i][0]);

		assert_string_equal(t, rows[i][1]);
		g_free(t);
	}
}

/* Which parts of a counts line are rates (table): KEY_per_s and KEY_iops
 * with a finite non-negative number, nothing else. */
static void test_rates(void **st)
{
	static const struct { const char *counts; guint n; const char *key; double v; } rows[] = {
		{ "namespaces=64 netns_per_s=12.5 flows_per_s=300", 2, "netns_per_s", 12.5 },
		{ "side=client sessions_per_s=3.0; side=server sessions_per_s=2.9", 2, "sessions_per_s", 3.0 },
		{ "vers=4.2 write_iops=410 seconds=15", 1, "write_iops", 410 },
		{ "flows_per_s=nan x_per_s=-1 y_per_s= z_per_s=1e999 per_s=3", 0, NULL, 0 },
		{ "Caps_per_s=1 a-b_per_s=2 x_per_s=5x", 0, NULL, 0 },
		{ "a_very_long_key_name_that_goes_on_and_on_per_s=1", 0, NULL, 0 },
		{ "", 0, NULL, 0 },
		{ NULL, 0, NULL, 0 },
	};

	(void)st;
	for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
		GArray *r = lab_stress_rates_new();
		guint n = lab_stress_rates_add(r, 1000, rows[i].counts);

		if (n != rows[i].n || r->len != n)
			fail_msg("'%s': %u rates, want %u", rows[i].counts, n, rows[i].n);
		if (n && (strcmp(g_array_index(r, struct lab_stress_rate, 0).key, rows[i].key) ||
			  g_array_index(r, struct lab_stress_rate, 0).v != rows[i].v))
			fail_msg("'%s': first rate %s", rows[i].counts,
				 g_array_index(r, struct lab_stress_rate, 0).key);
		g_array_free(r, TRUE);
	}
	/* bounded like the timeline */
	GArray *many = lab_stress_rates_new();

	for (int i = 0; i < 10000; i++)
		lab_stress_rates_add(many, 1000 + i, "flows_per_s=1");
	assert_true(many->len <= LAB_RATES_MAX);
	g_array_free(many, TRUE);
}

static void test_round_trip(void **st)
{
	struct lab_stress *s = lab_stress_new(), *back;
	struct lab_stress_test *t;
	struct lab_stress_crash *c;
	char *dir = g_dir_make_tmp("lab-stress-XXXXXX", NULL);
	char *p = g_build_filename(dir, "stress.json", NULL), *json, *err = NULL, *text;
	int i;

	(void)st;
	s->id = g_strdup("20261204-083000");
	s->dir = g_strdup(dir);
	s->topology = g_strdup("smoke");
	s->kernel = g_strdup("patched");
	s->kernel_dir = g_strdup("/k");
	s->seed = 42;
	s->names = g_strsplit("smoke", ";", -1);
	s->env = g_strsplit("LAB_NETNS=512;LAB_ROUNDS=2", ";", -1);
	s->iteration = 3;
	s->tests_run = 6;
	s->elapsed_s = 61.5;
	t = lab_stress_test_get(s, "t010-dvb-demux-feeds");
	t->runs = 3;
	t->fail = 1;
	t->pass = 2;
	t->quarantined = true;
	for (i = 0; i < 5000; i++)
		lab_stress_point_add(t, 1000 + i, i % 7 ? 'p' : 'f');
	assert_true(t->timeline->len <= 4000);
	assert_int_equal(lab_stress_rates_add(t->rates, 1100, "flows=512 flows_per_s=40.5; write_iops=310"), 2);
	c = lab_stress_crash_get(s, "Kernel panic - not syncing: sysrq triggered crash");
	c->count = 1;
	g_ptr_array_add(c->tests, g_strdup("t010-dvb-demux-feeds"));
	g_ptr_array_add(c->dumps, g_strdup("dumps/smoke-t010.kdump"));
	assert_ptr_equal(lab_stress_crash_get(s, c->title), c); /* dedup by title */
	json = lab_stress_to_json(s);
	assert_int_equal(lab_write_file(p, json, -1), 0);
	back = lab_stress_from_json(p, &err);
	assert_non_null(back);
	assert_int_equal(back->seed, 42);
	assert_int_equal(back->iteration, 3);
	assert_string_equal(back->names[0], "smoke");
	assert_string_equal(back->env[1], "LAB_ROUNDS=2");
	t = lab_stress_test_get(back, "t010-dvb-demux-feeds");
	assert_int_equal(t->fail, 1);
	assert_true(t->quarantined);
	assert_true(t->timeline->len > 0);
	assert_int_equal(t->rates->len, 2);
	assert_string_equal(g_array_index(t->rates, struct lab_stress_rate, 1).key, "write_iops");
	assert_true(g_array_index(t->rates, struct lab_stress_rate, 0).v == 40.5);
	assert_int_equal(back->crashes->len, 1);
	text = lab_stress_text(back);
	assert_non_null(strstr(text, "QUARANTINED"));
	assert_non_null(strstr(text, "test settings: LAB_NETNS=512 LAB_ROUNDS=2"));
	/* the printed command opens a SLOB kernel's dump */
	assert_non_null(strstr(text, "crash --no_kmem_cache /k/vmlinux"));
	assert_non_null(strstr(text, "0.33 ["));
	g_free(text);
	text = lab_stress_html(back);
	assert_non_null(strstr(text, "<svg"));
	assert_null(strstr(text, "http://www.w3.org/1999/xhtml\"")); /* self-contained */
	g_free(text);
	/* a wrong file is an error, never a crash */
	assert_int_equal(lab_write_file(p, "[1,2]", -1), 0);
	assert_null(lab_stress_from_json(p, &err));
	assert_non_null(err);
	g_free(err);
	lab_stress_free(s);
	lab_stress_free(back);
	g_free(json);
	lab_rm_rf(dir);
	g_free(dir);
	g_free(p);
}

/* Each failed part's own words, however the test's verdict was decided:
 * nested workloads' lines (prefixed) and parts that errored do not count. */
static void test_part_fails(void **st)
{
	static const struct {
		const char *out;
		const char *want[3];
	} cases[] = {
		{ NULL, { NULL } },
		{ "# result: fail: the test's own\n", { NULL } },
		{ "# result: pass: x\n# ---- part tty: t017-soak-tty on tty, exit 1 ----\n"
		  "# storm: # result: fail: nested\n# result: fail: storm: lockdep reported\n"
		  "# ---- part conntrack: t017-soak-conntrack on conntrack, exit 1 ----\n"
		  "# round 0: checked\n# result: fail: conntrack lookups crossed namespaces: 5 flows\n",
		  { "storm: lockdep reported", "conntrack lookups crossed namespaces: 5 flows", NULL } },
		{ "# ---- part tty: p on tty, exit 3 ----\n# result: error: no time\n"
		  "# ---- part conntrack: q on conntrack, exit 1 ----\n# result: fail: last part",
		  { "last part", NULL } },
		{ "# ---- part tty: p on tty, exit 1 ----\n# no result line\n"
		  "# ---- part conntrack: q on conntrack, exit -1: did not start ----\n"
		  "# result: fail: not this one\n", { NULL } },
		{ "# ---- part tty: p on tty, exit 1 ----", { NULL } },
	};
	size_t i, j;

	(void)st;
	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		char **got = lab_stress_part_fails(cases[i].out);

		for (j = 0; cases[i].want[j] || got[j]; j++)
			if (!cases[i].want[j] || !got[j] || strcmp(cases[i].want[j], got[j]))
				fail_msg("case %zu, %zu: want '%s', got '%s'", i, j,
					 cases[i].want[j] ? cases[i].want[j] : "(end)",
					 got[j] ? got[j] : "(end)");
		g_strfreev(got);
	}
}

/* stress.json is read back by --status and --resume: a crafted one is
 * refused with its reason, never crashes the printing or the loop. */
static void test_crafted_states(void **st)
{
	static const char good[] =
		"{\"id\":\"20261204-083000\",\"topology\":\"smoke\",\"kernel\":\"patched\","
		"\"names\":[\"smoke\"],\"quarantine_after\":3,\"started\":1700000000,"
		"\"tests\":[{\"name\":\"t010\",\"runs\":2,\"pass\":1,\"fail\":1,"
		"\"first_fail\":1700000100}],\"crashes\":[{\"title\":\"x\",\"count\":1,"
		"\"excerpts\":[\"crashes/1/excerpt-1.txt\"]}]}";
	static const struct {
		const char *from, *to, *why;
	} bad[] = {
		{ "\"first_fail\":1700000100", "\"first_fail\":9000000000000000000", "times are out of range" },
		{ "\"topology\":\"smoke\",", "", "no topology" },
		{ "\"fail\":1,", "\"fail\":5,", "do not add up" },
		{ "\"pass\":1,", "\"pass\":-1,", "do not add up" },
		{ "crashes/1/excerpt-1.txt", "../../../etc/shadow", "leaves the stress directory" },
		{ "crashes/1/excerpt-1.txt", "/etc/shadow", "leaves the stress directory" },
		{ "\"id\":\"20261204-083000\"", "\"id\":\"../x\"", "no id" },
		{ "\"names\":[\"smoke\"]", "\"names\":[]", "no tests" },
		{ "\"quarantine_after\":3", "\"quarantine_after\":0", "out of range" },
		{ "\"started\":1700000000", "\"started\":-5", "out of range" },
		{ "\"id\":\"20261204-083000\"", "\"id\":\"20261204-083000/../x\"", "no id" },
		{ "\"names\":[\"smoke\"]", "\"names\":[\"smoke\"],\"env\":[\"LAB_X=$(reboot)\"]",
		  "a test setting (env)" },
		{ "\"names\":[\"smoke\"]", "\"names\":[\"smoke\"],\"env\":[\"LAB_TEST=x\"]",
		  "a test setting (env)" },
	};
	/* what lab itself writes: one host's part of a spread run, a
	 * topology given as a path */
	static const struct {
		const char *from, *to;
	} fine[] = {
		{ "\"id\":\"20261204-083000\"", "\"id\":\"20261204-083000/lo\"" },
		{ "\"topology\":\"smoke\"", "\"topology\":\"/home/qa/Topo/two_nfs.ini\"" },
	};
	char *err = NULL, *text;
	struct lab_stress *s;
	size_t i;

	(void)st;
	s = lab_stress_from_text(good, strlen(good), "s.json", &err);
	assert_non_null(s);
	text = lab_stress_text(s);
	g_free(text);
	lab_stress_free(s);
	for (i = 0; i < G_N_ELEMENTS(bad); i++) {
		gchar **parts = g_strsplit(good, bad[i].from, 2);
		char *j = g_strjoinv(bad[i].to, parts);

		assert_non_null(parts[1]);
		s = lab_stress_from_text(j, strlen(j), "s.json", &err);
		if (s || !err || !strstr(err, bad[i].why))
			fail_msg("case %zu: want '%s', got %s", i, bad[i].why, err ? err : "a state");
		g_clear_pointer(&err, g_free);
		g_strfreev(parts);
		g_free(j);
	}
	for (i = 0; i < G_N_ELEMENTS(fine); i++) {
		gchar **parts = g_strsplit(good, fine[i].from, 2);
		char *j = g_strjoinv(fine[i].to, parts);

		s = lab_stress_from_text(j, strlen(j), "s.json", &err);
		if (!s)
			fail_msg("fine case %zu refused: %s", i, err);
		lab_stress_free(s);
		g_strfreev(parts);
		g_free(j);
	}
	/* fail > runs in a state built in memory: the interval stays a number */
	{
		double lo, hi;

		lab_wilson(5, 2, &lo, &hi);
		assert_true(lo == 0 && hi == 1);
	}
}

/* Parts of a stress spread over two hosts add up: counts per test, one
 * entry per title with both hosts' tests, paths under each part's
 * directory, the earliest first failure, the longest elapsed time. */
static struct lab_stress *part(const char *test, long fail, gint64 first,
			       const char *dump, double elapsed)
{
	struct lab_stress *s = lab_stress_new();
	struct lab_stress_test *t = lab_stress_test_get(s, "t099-lab-selftest");
	struct lab_stress_crash *c;

	s->iteration = 2;
	s->tests_run = 4;
	s->elapsed_s = elapsed;
	t->runs = 2;
	t->pass = 2;
	lab_stress_point_add(t, first + 5, 'p');
	t = lab_stress_test_get(s, test);
	t->runs = 2;
	t->fail = fail;
	t->pass = 2 - fail;
	t->first_fail = first;
	t->last_fail = first;
	lab_stress_point_add(t, first, 'f');
	c = lab_stress_crash_get(s, "list_add corruption in dvb_dmxdev_add_pid");
	c->count = fail;
	c->first = c->last = first;
	g_ptr_array_add(c->tests, g_strdup(test));
	g_ptr_array_add(c->excerpts, g_strdup("crashes/1/excerpt-1.txt"));
	if (dump)
		g_ptr_array_add(c->dumps, g_strdup(dump));
	return s;
}

static void test_merge(void **st)
{
	struct lab_stress *all = lab_stress_new();
	struct lab_stress *a = part("t010-dvb-demux-feeds", 2, 2000, NULL, 60);
	struct lab_stress *b = part("t010-dvb-demux-feeds", 1, 1000, "dumps/x.kdump", 90);
	struct lab_stress_test *t;
	struct lab_stress_crash *c;

	(void)st;
	lab_stress_merge(all, a, "hosts/local");
	lab_stress_merge(all, b, "hosts/lo");
	assert_int_equal(all->iteration, 4);
	assert_int_equal(all->tests_run, 8);
	assert_true(all->elapsed_s == 90);
	assert_int_equal(all->tests->len, 2);
	t = lab_stress_test_get(all, "t010-dvb-demux-feeds");
	assert_int_equal(t->runs, 4);
	assert_int_equal(t->fail, 3);
	assert_int_equal(t->first_fail, 1000);
	assert_int_equal(t->last_fail, 2000);
	assert_int_equal(t->timeline->len, 2);
	assert_int_equal(g_array_index(t->timeline, struct lab_stress_point, 0).t, 1000);
	assert_int_equal(all->crashes->len, 1);
	c = g_ptr_array_index(all->crashes, 0);
	assert_int_equal(c->count, 3);
	assert_int_equal(c->first, 1000);
	assert_int_equal(c->tests->len, 1);
	assert_int_equal(c->excerpts->len, 2);
	assert_string_equal(g_ptr_array_index(c->excerpts, 0), "hosts/local/crashes/1/excerpt-1.txt");
	assert_string_equal(g_ptr_array_index(c->dumps, 0), "hosts/lo/dumps/x.kdump");
	lab_stress_free(a);
	lab_stress_free(b);
	lab_stress_free(all);
}

/* Two stress runs begun in the same second (two instances) never share a
 * directory: the second gets -2 (seen: both wrote one stress.json). */
static void test_unique_dirs(void **state)
{
	char *root = g_dir_make_tmp("lab-unique-XXXXXX", NULL);
	char *id1 = NULL, *id2 = NULL, *id3 = NULL;
	char *a = lab_unique_dir(root, NULL, &id1);
	char *b = lab_unique_dir(root, NULL, &id2);
	char *c = lab_unique_dir(root, "patched", &id3);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_string_not_equal(a, b);
	assert_true(g_file_test(a, G_FILE_TEST_IS_DIR));
	assert_true(g_file_test(b, G_FILE_TEST_IS_DIR));
	assert_true(g_str_has_suffix(id3, "-patched") || strstr(id3, "-patched-"));
	/* same second (almost always): the second one is the first plus -2 */
	if (strlen(id2) > strlen(id1))
		assert_true(g_str_has_prefix(id2, id1) && g_str_has_suffix(id2, "-2"));
	lab_rm_rf(root);
	g_free(a);
	g_free(b);
	g_free(c);
	g_free(id1);
	g_free(id2);
	g_free(id3);
	g_free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wilson),
		cmocka_unit_test(test_titles),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_part_fails),
		cmocka_unit_test(test_crafted_states),
		cmocka_unit_test(test_unique_dirs),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests_name("stress", tests, NULL, NULL);
}
