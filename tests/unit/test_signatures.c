/* test_signatures.c - the seeds' signatures of tests/suite.ini against
 * every report of the console fixtures: a seed's signature matches its own
 * bug's report and no other seed's (the signature x foreign-report table).
 *
 * Every report the scanner finds in tests/unit/consoles/ must have a row
 * below, so a new fixture is classified before it counts. "owner" is the
 * seed whose bug made the report (captured from lab's own baseline guests,
 * or written in 6.1's format for the scanner's tests); NULL is a report of
 * no seed's bug (another bug, or a fix at work). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/console.h"
#include "core/suite.h"
#include "core/verdict.h"
#include "util/util.h"

static const struct row {
	const char *file;
	long line;
	const char *owner; /* seed, or NULL: no seed's bug */
	bool own;          /* the owner's signature must match it */
} rows[] = {
	/* captured: baseline guests running the review's tests */
	{ "t001-t003-baseline-captured.log", 372, "001", true },  /* Busy inodes: tmpfs */
	{ "t001-t003-baseline-captured.log", 373, "001", false }, /* its WARNING */
	{ "t001-t003-baseline-captured.log", 408, "003", true },
	{ "t001-t003-baseline-captured.log", 437, "003", true },
	{ "t001-t003-baseline-captured.log", 466, "003", true },
	{ "t001-t003-baseline-captured.log", 495, "003", true },
	{ "t001-t003-baseline-captured.log", 524, "003", true },
	{ "t001-t003-baseline-captured.log", 553, "003", true },
	{ "t001-t006-baseline-captured.log", 389, "001", true },
	{ "t001-t006-baseline-captured.log", 390, "001", false },
	{ "t001-t006-baseline-captured.log", 426, "006", true },
	{ "t002-t006-baseline-captured.log", 376, "002", true },
	{ "t004-baseline-captured.log", 373, "004", true },
	{ "t008-baseline-orc-captured.log", 5, "008", true },
	{ "t010-baseline-captured.log", 373, "010", true },
	{ "t010-baseline-captured.log", 408, "010", true },
	/* the fix of 006 at work on patched: its own WARNING, no bug's */
	{ "t006-patched-captured.log", 401, NULL, false },
	/* written for the scanner's tests, in 6.1's format */
	{ "list-corruption-dvb.log", 12, "010", true },
	{ "oops-panic-no-end.log", 11, "008", true },
	{ "reboot-midway.log", 40, "009", true },
	{ "warning-futex-pi-x5.log", 5, "003", true },
	{ "warning-futex-pi-x5.log", 45, "003", true },
	{ "warning-futex-pi-x5.log", 82, "003", true },
	{ "warning-futex-pi-x5.log", 118, "003", true },
	{ "warning-futex-pi-x5.log", 153, "003", true },
	{ "ext4-bug-assertion.log", 99, "008", true }, /* a request freed under COMMIT */
	/* other bugs in the seeds' subsystems: no seed may claim them */
	{ "reboot-midway.log", 5, NULL, false },    /* sysrq crash */
	{ "reboot-midway.log", 84, NULL, false },   /* Busy inodes of an NFS sb */
	{ "crlf-stalls.log", 5, NULL, false },      /* hung umount */
	{ "crlf-stalls.log", 42, NULL, false },     /* tty soft lockup */
	{ "crlf-stalls.log", 72, NULL, false },     /* hda RCU stall */
	{ "ext4-bug-assertion.log", 8, NULL, false },   /* ext4_put_super BUG */
	{ "ext4-bug-assertion.log", 59, NULL, false },
	{ "ext4-bug-assertion.log", 140, NULL, false }, /* snd-pcm-oss divide error */
	{ "kasan-ubsan-misc.log", 7, NULL, false },
	{ "kasan-ubsan-misc.log", 42, NULL, false },
	{ "kasan-ubsan-misc.log", 86, NULL, false },    /* KASAN in dvb_dmxdev_release */
	{ "kasan-ubsan-misc.log", 152, NULL, false },
	{ "kasan-ubsan-misc.log", 172, NULL, false },
	{ "lockdep-circular.log", 6, NULL, false },     /* a dvb lockdep cycle */
};

static const struct row *row_of(const char *file, long line)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(rows); i++)
		if (!strcmp(rows[i].file, file) && rows[i].line == line)
			return &rows[i];
	return NULL;
}

static bool matches(const struct lab_test *t, const struct lab_report *r)
{
	return lab_signature_matches_report(t->signature, r->type, r->title,
					    r->first_line, r->function,
					    r->excerpt);
}

/* One report against every seed's signature: its owner's must match (when
 * the row says so), no other seed's may. Returns the faults found. */
static int check_report(const struct lab_suite *s, const char *file,
			const struct lab_report *r, const struct row *row)
{
	int bad = 0;
	guint i;

	for (i = 0; i < s->tests->len; i++) {
		const struct lab_test *t = s->tests->pdata[i];
		bool mine = row->owner && t->seed && !strcmp(row->owner, t->seed);

		if (!t->signature || !t->seed)
			continue;
		if (!mine && matches(t, r)) {
			print_error("%s:%ld \"%s\" (seed %s) matches %s's signature\n", file,
				    r->line, r->title, row->owner ? row->owner : "none", t->name);
			bad++;
		}
		if (mine && row->own && !matches(t, r)) {
			print_error("%s:%ld \"%s\" is %s's bug, its signature misses it\n",
				    file, r->line, r->title, t->name);
			bad++;
		}
	}
	return bad;
}

static void test_no_signature_matches_a_foreign_report(void **state)
{
	char *path = g_build_filename(lab_srcdir(), "tests/suite.ini", NULL);
	char *dir = g_build_filename(lab_srcdir(), "tests/unit/consoles", NULL);
	char *err = NULL;
	struct lab_suite *s = lab_suite_load(path, &err);
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *f;
	int bad = 0, seen = 0;

	(void)state;
	assert_non_null(s);
	assert_non_null(d);
	while ((f = g_dir_read_name(d))) {
		char *p = g_build_filename(dir, f, NULL);
		GPtrArray *reps = lab_console_scan_file(p, NULL);
		guint i;

		for (i = 0; reps && i < reps->len; i++) {
			const struct lab_report *r = reps->pdata[i];
			const struct row *row = row_of(f, r->line);

			if (!row) {
				print_error("%s:%ld \"%s\": no row in rows[]\n", f, r->line, r->title);
				bad++;
				continue;
			}
			seen++;
			bad += check_report(s, f, r, row);
		}
		if (reps)
			g_ptr_array_free(reps, TRUE);
		g_free(p);
	}
	g_dir_close(d);
	lab_suite_free(s);
	g_free(dir);
	g_free(path);
	assert_int_equal(seen, G_N_ELEMENTS(rows)); /* no stale row */
	assert_int_equal(bad, 0);
}

/* Every seed with a console signature has a captured or written report
 * that its signature matches: the table is not vacuous. */
static void test_every_console_signature_has_its_report(void **state)
{
	char *path = g_build_filename(lab_srcdir(), "tests/suite.ini", NULL);
	struct lab_suite *s = lab_suite_load(path, NULL);
	guint i;
	size_t j;

	(void)state;
	assert_non_null(s);
	for (i = 0; i < s->tests->len; i++) {
		const struct lab_test *t = s->tests->pdata[i];
		bool found = false;

		if (!t->signature || !t->seed)
			continue;
		for (j = 0; j < G_N_ELEMENTS(rows); j++)
			found |= rows[j].owner && rows[j].own && !strcmp(rows[j].owner, t->seed);
		if (!found)
			fail_msg("%s: no report of seed %s in rows[]", t->name, t->seed);
	}
	lab_suite_free(s);
	g_free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_signature_matches_a_foreign_report),
		cmocka_unit_test(test_every_console_signature_has_its_report),
	};

	return cmocka_run_group_tests_name("signatures", tests, NULL, NULL);
}
