/* test_regress.c - a candidate review's classes, a bisection's tries and
 * its next step (around skipped steps), as tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/regress.h"

static void test_classes(void **state)
{
	static const struct {
		struct lab_outcomes a, b;
		const char *want;
	} rows[] = {
		{ { 4, 0, 0 }, { 0, 4, 0 }, "regressed" },
		{ { 0, 4, 0 }, { 4, 0, 0 }, "fixed" },
		{ { 1, 0, 0 }, { 1, 0, 0 }, "unchanged" },
		{ { 0, 1, 0 }, { 0, 1, 0 }, "unchanged" },
		/* a race biting the candidate once in four: not a regression */
		{ { 4, 0, 0 }, { 3, 1, 0 }, "flaky" },
		{ { 3, 1, 0 }, { 0, 4, 0 }, "flaky" },
		/* fails some, errors once: still never passed -> regressed */
		{ { 4, 0, 0 }, { 0, 3, 1 }, "regressed" },
		{ { 4, 0, 0 }, { 0, 0, 4 }, "changed" },
		{ { 0, 0, 2 }, { 0, 0, 2 }, "unchanged" },
		{ { 2, 0, 2 }, { 2, 0, 2 }, "flaky" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *got = lab_regress_class(&rows[i].a, &rows[i].b);

		if (strcmp(got, rows[i].want))
			fail_msg("row %zu: %s, want %s", i, got, rows[i].want);
	}
}

static void test_tries(void **state)
{
	static const struct {
		int fails, tries, want;
	} rows[] = {
		{ 0, 3, 0 },  /* never failed: nothing to bisect */
		{ 3, 3, 3 },  /* p = 3/4: 1/64 after 3 */
		{ 2, 3, 5 },  /* p = 1/2: 1/32 after 5 */
		{ 1, 3, 10 }, /* p = 1/4: capped at 10 (5.6 % left) */
		{ 1, 1, 5 },  /* p = 1/2 */
	};
	double p;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int got = lab_bisect_tries(rows[i].fails, rows[i].tries, &p);

		if (got != rows[i].want)
			fail_msg("row %zu: %d tries, want %d", i, got, rows[i].want);
		if (got && got < 10)
			assert_true(lab_bisect_miss(p, got) <= 0.05);
	}
}

#define U LAB_STEP_UNTESTED
#define G LAB_STEP_GOOD
#define B LAB_STEP_BAD
#define S LAB_STEP_SKIP

static void test_next(void **state)
{
	static const struct {
		int n;
		enum lab_step s[17];
		int next, lo, hi;
	} rows[] = {
		{ 3, { G, U, U, B }, 1, 0, 3 },
		{ 3, { G, G, U, B }, 2, 1, 3 },
		{ 3, { G, G, B, B }, -1, 1, 2 },  /* the first bad is patch 2 */
		{ 16, { G, U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, B }, 8, 0, 16 },
		/* a step that did not build: the nearest other one */
		{ 4, { G, U, S, U, B }, 1, 0, 4 },
		{ 4, { G, G, S, U, B }, 3, 1, 4 },
		/* every step between skipped: a range */
		{ 4, { G, G, S, S, B }, -1, 1, 4 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int lo, hi, got = lab_bisect_next(rows[i].s, rows[i].n, &lo, &hi);

		if (got != rows[i].next || lo != rows[i].lo || hi != rows[i].hi)
			fail_msg("row %zu: next %d lo %d hi %d, want %d %d %d", i, got, lo, hi,
				 rows[i].next, rows[i].lo, rows[i].hi);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_tries),
		cmocka_unit_test(test_next),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
