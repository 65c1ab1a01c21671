/* Work spread over hosts (src/spread.c): every job runs in a child with
 * its own LAB_INSTANCE; a job whose host dropped out runs again on a host
 * whose job finished, under that job's instance; a job that failed for
 * another reason is not run again. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "jobs/spread.h"

/* In the child: host "down" drops out, host "broken" fails otherwise,
 * any other host answers "INSTANCE@HOST". */
static char *job(void *arg, const char *host, bool *host_lost)
{
	if (host && !strcmp(host, "down")) {
		*host_lost = true;
		return NULL;
	}
	if (host && !strcmp(host, "broken"))
		return NULL;
	/* lab itself crashing: once ("crash-once", a marker says it did), or
	 * every time ("crash") */
	if (host && (!strcmp(host, "crash") ||
		     (!strcmp(host, "crash-once") && !g_file_test(arg, G_FILE_TEST_EXISTS)))) {
		g_file_set_contents(arg, "", 0, NULL);
		signal(SIGSEGV, SIG_DFL); /* not cmocka's handler */
		raise(SIGSEGV);
	}
	return g_strdup_printf("%s@%s", getenv("LAB_INSTANCE"), host ? host : "local");
}

struct row {
	const char *hosts[3];
	int rc;
	const char *results[3]; /* NULL: none */
};

static const struct row rows[] = {
	{ { "a", "b", NULL }, 0, { "i0@a", "i1@b", NULL } },
	/* "down" drops out: its job goes to a, under a's instance */
	{ { "a", "down", NULL }, 0, { "i0@a", "i0@a", NULL } },
	{ { "down", "b", "c" }, 0, { "i1@b", "i1@b", "i2@c" } },
	/* nowhere to go: every host dropped out */
	{ { "down", "down", NULL }, 1, { NULL, NULL, NULL } },
	/* a failure that is not the host's stays a failure */
	{ { "a", "broken", NULL }, 1, { "i0@a", NULL, NULL } },
	/* lab crashed in a job: its instance is taken down, the job runs once
	 * more on the same host */
	{ { "a", "crash-once", NULL }, 0, { "i0@a", "i1@crash-once", NULL } },
	/* and only once */
	{ { "crash", "b", NULL }, 1, { NULL, "i1@b", NULL } },
};

static void test_spread_table(void **st)
{
	const char *inst[3] = { "i0", "i1", "i2" };
	char *dir = g_dir_make_tmp("lab-spread-XXXXXX", NULL);
	char *marker = g_build_filename(dir, "crashed", NULL);
	guint r, i;

	(void)st;
	for (r = 0; r < G_N_ELEMENTS(rows); r++) {
		struct lab_spread_job jobs[3];
		guint n = rows[r].hosts[2] ? 3 : 2;

		memset(jobs, 0, sizeof(jobs));
		for (i = 0; i < n; i++) {
			jobs[i].label = inst[i];
			jobs[i].instance = inst[i];
			jobs[i].host = rows[r].hosts[i];
			jobs[i].fn = job;
			jobs[i].arg = marker;
			jobs[i].down = "/bin/true"; /* `lab down` of the instance */
		}
		assert_int_equal(lab_spread_run(jobs, n), rows[r].rc);
		for (i = 0; i < n; i++) {
			if (rows[r].results[i])
				assert_string_equal(jobs[i].result, rows[r].results[i]);
			else
				assert_null(jobs[i].result);
		}
		lab_spread_clear(jobs, n);
	}
	unlink(marker);
	rmdir(dir);
	g_free(marker);
	g_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spread_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
