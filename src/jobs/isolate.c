/* isolate.c - single-bug isolation: for a seed, build the kernel that
 * carries only that seed's bug (pristine + support/ + bugs/NNN, an
 * incremental build), bring up only the guests its tests need (restored
 * when a saved state matches), run only its tests, and say whether the
 * same signature shows. A baseline failure that also shows on the
 * isolated kernel comes from that one bug, not from the nine others the
 * baseline carries. `lab isolate SEED`, and `lab review --isolate` for
 * every verified row. */
#include "jobs/isolate.h"
#include "build/kernel.h"
#include "core/results.h"
#include "core/suite.h"
#include "build/tests_disk.h"
#include "core/topology.h"
#include "jobs/session.h"
#include "jobs/test_guests.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define READY_TIMEOUT_S 900

/* The seed's tests from review.ini, or NULL with a message. */
static char **seed_tests(const char *review, const char *seed)
{
	char *rel = g_strdup_printf("patches/%s/review.ini", review);
	char *ini = lab_src_path(rel), *grp = g_strdup_printf("seed %s", seed);
	GKeyFile *kf = g_key_file_new();
	char **tests = NULL;

	if (!g_key_file_load_from_file(kf, ini, G_KEY_FILE_NONE, NULL))
		lab_err("cannot read %s", ini);
	else if (!(tests = g_key_file_get_string_list(kf, grp, "tests", NULL, NULL)) ||
		 !tests[0])
		lab_err("%s: seed %s has no tests= to isolate", ini, seed);
	g_key_file_free(kf);
	g_free(rel);
	g_free(ini);
	g_free(grp);
	return tests;
}

char *lab_isolate_seed(const char *review, const char *topology,
		       const char *seed, const char *tests_iso)
{
	char *kernel = g_strdup_printf("isolate-%s", seed), *err = NULL;
	char **tests = seed_tests(review, seed), **guests = NULL;
	struct lab_up_opts up = { .topology = topology, .kernel = kernel,
				  .accel = "auto", .tests_iso = tests_iso,
				  .timeout_s = READY_TIMEOUT_S };
	struct lab_run_opts ro = { .names = tests };
	char *run_dir = NULL;
	bool lost;

	if (!tests)
		goto out;
	if (!(guests = lab_test_guests(topology, tests, &err))) {
		lab_err("isolate %s: %s", seed, err);
		goto out;
	}
	{
		char *list = g_strjoinv(",", guests);

		lab_info("=== seed %s alone: kernel %s on %s ===", seed, kernel, list);
		g_free(list);
	}
	if (lab_kernel_build(review, kernel) != 0)
		goto out;
	up.only = guests;
	lab_session_once(&up, &ro, false, &run_dir, &lost);
out:
	g_strfreev(tests);
	g_strfreev(guests);
	g_free(kernel);
	g_free(err);
	return run_dir;
}

/* yes: some instance failed with the seed's signature. */
const char *lab_isolated_answer(const char *run_dir)
{
	struct lab_run *r = run_dir ? lab_results_load_dir(run_dir) : NULL;
	const char *answer = "not run";
	guint i;

	for (i = 0; r && i < r->results->len; i++) {
		const struct lab_result *x = g_ptr_array_index(r->results, i);

		if (x->verdict == LAB_FAIL && x->evidence == LAB_EV_SIGNATURE)
			answer = "yes";
		else if (strcmp(answer, "yes") != 0)
			answer = "no";
	}
	lab_run_free(r);
	return answer;
}
