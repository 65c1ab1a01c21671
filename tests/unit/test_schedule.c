/* test_schedule.c - tests of different guests run side by side, tests that
 * share a guest (its own or a peer like the NFS server) run in plan order;
 * a simulated run of the default topology's plan shows both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/schedule.h"

#define SRV (1u << 0)
#define CLI (1u << 1)
#define CT  (1u << 2)
#define TTY (1u << 3)

static void test_ready(void **state)
{
	/* t000 (client+server), t005 (tty), t001 (server), t009 (client+server) */
	const uint64_t uses[] = { CLI | SRV, TTY, SRV, CLI | SRV };
	enum lab_sched_state st[] = { LAB_SCHED_PENDING, LAB_SCHED_PENDING,
				      LAB_SCHED_PENDING, LAB_SCHED_PENDING };

	(void)state;
	assert_true(lab_sched_ready(0, uses, st));
	assert_true(lab_sched_ready(1, uses, st));  /* tty: unrelated */
	assert_false(lab_sched_ready(2, uses, st)); /* server busy with t000 */
	st[0] = LAB_SCHED_RUNNING;
	assert_false(lab_sched_ready(2, uses, st));
	st[0] = LAB_SCHED_DONE;
	assert_true(lab_sched_ready(2, uses, st));
	assert_false(lab_sched_ready(3, uses, st)); /* t001 on the server first */
	st[2] = LAB_SCHED_DONE;
	assert_true(lab_sched_ready(3, uses, st));
	assert_false(lab_sched_ready(0, uses, st)); /* done is never ready */
	assert_true(lab_sched_last_use(3, 4, uses, 0));
	assert_false(lab_sched_last_use(0, 4, uses, 0));
	assert_true(lab_sched_last_use(1, 4, uses, 3));
}

/* Run a plan with every test taking one tick; return the ticks and check
 * no two tests that share a guest ever ran in the same tick. */
static int simulate(guint n, const uint64_t *uses, int *tick_of)
{
	enum lab_sched_state st[32];
	int tick = 0;
	guint i, done = 0;

	for (i = 0; i < n; i++)
		st[i] = LAB_SCHED_PENDING;
	while (done < n) {
		uint64_t busy = 0;
		int next;

		while ((next = lab_sched_next(n, uses, st)) >= 0) {
			assert_int_equal(busy & uses[next], 0);
			busy |= uses[next];
			st[next] = LAB_SCHED_RUNNING;
			tick_of[next] = tick;
		}
		for (i = 0; i < n; i++)
			if (st[i] == LAB_SCHED_RUNNING) {
				st[i] = LAB_SCHED_DONE;
				done++;
			}
		tick++;
	}
	return tick;
}

static void test_default_plan(void **state)
{
	/* the review suite's order on the default topology */
	const uint64_t uses[] = {
		CLI | SRV, CLI | SRV, CLI | SRV, CLI | SRV, /* t000 x4 */
		TTY,                                        /* t005 */
		CT,                                         /* t011 */
		SRV,                                        /* t001 */
		CT,                                         /* t003 */
		TTY,                                        /* t004 */
		CLI | SRV, CLI | SRV, CLI | SRV, CLI | SRV, /* t009 x4 */
		CLI | SRV, CLI | SRV, CLI | SRV, CLI | SRV, /* t008 x4 */
		SRV,                                        /* t006 */
		SRV,                                        /* t002 */
		TTY,                                        /* t010 */
	};
	int tick_of[G_N_ELEMENTS(uses)], ticks;

	(void)state;
	ticks = simulate(G_N_ELEMENTS(uses), uses, tick_of);
	/* 20 tests, but the server's chain of 15 sets the pace */
	assert_int_equal(ticks, 15);
	assert_int_equal(tick_of[4], 0);  /* t005 with the first t000 */
	assert_int_equal(tick_of[5], 0);  /* t011 too */
	assert_true(tick_of[6] > tick_of[3]); /* t001 after every t000 */
	assert_true(tick_of[9] > tick_of[6]); /* t009 after t001 */
	assert_true(tick_of[17] > tick_of[16]); /* t006 after the last t008 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ready),
		cmocka_unit_test(test_default_plan),
	};

	return cmocka_run_group_tests_name("schedule", tests, NULL, NULL);
}
