/* fuzz_results.c - any bytes as a results.json: lab_results_load refuses
 * them or gives a run that renders (JSON, JUnit, KTAP, the review's rows and
 * HTML) without a crash, leak or undefined behaviour. */
#include <string.h>

#include "core/report.h"
#include "core/results.h"
#include "util/util.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* the review's seeds: rows are rendered from patches/ */
	setenv("LAB_SRC", LAB_FUZZ_SRC, 0);
	return 0;
}

static void render(struct lab_run *run)
{
	char *ini = lab_src_path("patches/2.6.32.9/review.ini");
	char *err = NULL, *s;
	GPtrArray *rows = lab_report_rows(ini, run, run, NULL, &err);
	guint i;

	g_free(lab_results_json(run));
	g_free(lab_results_junit(run));
	for (i = 0; i < run->results->len; i++)
		g_free(lab_result_ktap_line(g_ptr_array_index(run->results, i), i + 1));
	if (rows) {
		s = lab_report_html(rows, NULL, run, run);
		if (strstr(s, "<script"))
			abort(); /* a results file must not script the report */
		g_free(s);
		g_ptr_array_free(rows, TRUE);
	}
	g_free(err);
	g_free(ini);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lab_run *run = lab_results_load(fuzz_file(data, size));

	if (run)
		render(run);
	lab_run_free(run);
	return 0;
}
