/* results.c - verdict rules and the machine-readable outputs of a run:
 * results.json (json-c), junit.xml, and KTAP lines for the terminal. */
#include "results.h"
#include "util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

static const char *const verdict_names[] = {
	[LAB_PASS] = "pass",
	[LAB_FAIL] = "fail",
	[LAB_INCONCLUSIVE] = "inconclusive",
	[LAB_SKIP] = "skip",
	[LAB_ERROR] = "error",
};

const char *lab_verdict_name(enum lab_verdict v)
{
	return verdict_names[v];
}

int lab_verdict_parse(const char *s, enum lab_verdict *v)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(verdict_names); i++) {
		if (s && strcmp(s, verdict_names[i]) == 0) {
			*v = (enum lab_verdict)i;
			return 0;
		}
	}
	return -1;
}

struct lab_result *lab_result_new(const char *name, const char *test)
{
	struct lab_result *r = g_new0(struct lab_result, 1);

	r->name = g_strdup(name);
	r->test = g_strdup(test);
	r->exit_code = -1;
	r->window_hits = -1;
	r->reports = g_ptr_array_new_with_free_func(g_free);
	return r;
}

void lab_result_free(struct lab_result *r)
{
	if (!r)
		return;
	g_free(r->name);
	g_free(r->test);
	g_free(r->seed);
	g_free(r->guest);
	g_free(r->kernel);
	g_free(r->reason);
	g_free(r->dir);
	g_ptr_array_free(r->reports, TRUE);
	g_free(r);
}

/* Taint bits (Documentation/admin-guide/tainted-kernels.rst) that mean the
 * kernel itself complained: W(9) warning, D(7) oops, L(14) soft lockup,
 * B(5) bad page, M(4) machine check, S(2) SMP unsafe is not one of them. */
#define TAINT_COMPLAINT ((1L << 4) | (1L << 5) | (1L << 7) | (1L << 9) | (1L << 14))

long lab_taint_bad_bits(long before, long after)
{
	if (before < 0 || after < 0)
		return 0;
	return (after & ~before) & TAINT_COMPLAINT;
}

enum lab_verdict lab_verdict_decide(int exit_code, bool crashed,
				    guint n_reports, long taint_new_bits,
				    char **reason)
{
	if (crashed) {
		*reason = g_strdup("the guest crashed or hung during the test");
		return LAB_FAIL;
	}
	if (n_reports > 0) {
		*reason = g_strdup_printf("the kernel complained on the console (%u report%s)",
					  n_reports, n_reports == 1 ? "" : "s");
		return LAB_FAIL;
	}
	if (taint_new_bits) {
		*reason = g_strdup_printf("new taint bits 0x%lx during the test",
					  taint_new_bits);
		return LAB_FAIL;
	}
	switch (exit_code) {
	case 0:
		*reason = g_strdup("program passed, console clean, no new taint");
		return LAB_PASS;
	case 1:
		*reason = g_strdup("the program observed the bug");
		return LAB_FAIL;
	case 2:
		*reason = g_strdup("inconclusive: the window was never hit");
		return LAB_INCONCLUSIVE;
	case 4:
		*reason = g_strdup("skipped by the test");
		return LAB_SKIP;
	default:
		*reason = g_strdup_printf("setup error (exit %d)", exit_code);
		return LAB_ERROR;
	}
}

static json_object *result_json(const struct lab_result *r)
{
	json_object *o = json_object_new_object();
	json_object *reps = json_object_new_array();
	guint i;

#define S(k, v) json_object_object_add(o, k, (v) ? json_object_new_string(v) : NULL)
	S("name", r->name);
	S("test", r->test);
	S("seed", r->seed);
	S("guest", r->guest);
	S("kernel", r->kernel);
	S("verdict", lab_verdict_name(r->verdict));
	S("reason", r->reason);
	S("dir", r->dir);
#undef S
	json_object_object_add(o, "exit_code", json_object_new_int(r->exit_code));
	json_object_object_add(o, "seconds", json_object_new_double(r->seconds));
	json_object_object_add(o, "taint_before", json_object_new_int64(r->taint_before));
	json_object_object_add(o, "taint_after", json_object_new_int64(r->taint_after));
	json_object_object_add(o, "window_hits", json_object_new_int64(r->window_hits));
	for (i = 0; i < r->reports->len; i++) {
		char **f = g_strsplit(g_ptr_array_index(r->reports, i), "|", 3);
		json_object *rep = json_object_new_object();

		json_object_object_add(rep, "type", json_object_new_string(f[0] ? f[0] : ""));
		json_object_object_add(rep, "title", json_object_new_string(f[0] && f[1] ? f[1] : ""));
		json_object_object_add(rep, "first_line",
			json_object_new_string(f[0] && f[1] && f[2] ? f[2] : ""));
		json_object_array_add(reps, rep);
		g_strfreev(f);
	}
	json_object_object_add(o, "reports", reps);
	return o;
}

char *lab_results_json(const struct lab_run *run)
{
	json_object *o = json_object_new_object();
	json_object *arr = json_object_new_array();
	char *s;
	guint i;

	json_object_object_add(o, "run", json_object_new_string(run->id));
	json_object_object_add(o, "topology", json_object_new_string(run->topology));
	json_object_object_add(o, "kernel", json_object_new_string(run->kernel));
	for (i = 0; i < run->results->len; i++)
		json_object_array_add(arr, result_json(g_ptr_array_index(run->results, i)));
	json_object_object_add(o, "tests", arr);
	s = g_strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

char *lab_results_junit(const struct lab_run *run)
{
	GString *x = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	int fails = 0, errors = 0, skipped = 0;
	guint i;
	char *head;

	for (i = 0; i < run->results->len; i++) {
		struct lab_result *r = g_ptr_array_index(run->results, i);

		fails += r->verdict == LAB_FAIL;
		errors += r->verdict == LAB_ERROR;
		skipped += r->verdict == LAB_SKIP || r->verdict == LAB_INCONCLUSIVE;
	}
	head = g_markup_printf_escaped(
		"<testsuite name=\"lab.%s\" tests=\"%u\" failures=\"%d\" errors=\"%d\" skipped=\"%d\">\n",
		run->kernel, run->results->len, fails, errors, skipped);
	g_string_append(x, head);
	g_free(head);
	for (i = 0; i < run->results->len; i++) {
		struct lab_result *r = g_ptr_array_index(run->results, i);
		const char *tag = r->verdict == LAB_FAIL ? "failure" :
				  r->verdict == LAB_ERROR ? "error" :
				  r->verdict == LAB_PASS ? NULL : "skipped";
		char *tc = g_markup_printf_escaped(
			"  <testcase classname=\"lab.%s.%s\" name=\"%s\" time=\"%.1f\">\n",
			run->kernel, r->guest ? r->guest : "-", r->name, r->seconds);

		g_string_append(x, tc);
		g_free(tc);
		if (tag) {
			/* JUnit has no "inconclusive": it is a skip whose
			 * message says so, never a pass. */
			char *el = g_markup_printf_escaped("    <%s message=\"%s: %s\">%s</%s>\n",
				tag, lab_verdict_name(r->verdict), r->reason ? r->reason : "",
				r->reports->len ? (char *)g_ptr_array_index(r->reports, 0) : "",
				tag);

			g_string_append(x, el);
			g_free(el);
		}
		g_string_append(x, "  </testcase>\n");
	}
	g_string_append(x, "</testsuite>\n");
	return g_string_free(x, FALSE);
}

char *lab_result_ktap_line(const struct lab_result *r, int n)
{
	const char *first = r->reports->len ? g_ptr_array_index(r->reports, 0) : NULL;
	char *title = NULL, *line;

	if (first) {
		char **f = g_strsplit(first, "|", 3);

		title = g_strdup(f[0] && f[1] ? f[1] : first);
		g_strfreev(f);
	}
	switch (r->verdict) {
	case LAB_PASS:
		line = g_strdup_printf("ok %d %s", n, r->name);
		break;
	case LAB_SKIP:
		line = g_strdup_printf("ok %d %s # SKIP %s", n, r->name, r->reason);
		break;
	case LAB_INCONCLUSIVE:
		line = g_strdup_printf("ok %d %s # SKIP inconclusive: %s", n, r->name,
				       r->reason);
		break;
	default:
		line = g_strdup_printf("not ok %d %s # %s%s%s", n, r->name,
				       r->verdict == LAB_ERROR ? "ERROR " : "",
				       r->reason, title ? " :: " : "");
		if (title) {
			char *l2 = g_strconcat(line, title, NULL);

			g_free(line);
			line = l2;
		}
	}
	g_free(title);
	return line;
}

int lab_results_write(const struct lab_run *run)
{
	char *json = lab_results_json(run);
	char *junit = lab_results_junit(run);
	char *jp = g_build_filename(run->dir, "results.json", NULL);
	char *xp = g_build_filename(run->dir, "junit.xml", NULL);
	int rc = lab_write_file(jp, json, -1) | lab_write_file(xp, junit, -1);

	g_free(json);
	g_free(junit);
	g_free(jp);
	g_free(xp);
	return rc;
}

static char *jstr(json_object *o, const char *k)
{
	json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || json_object_is_type(v, json_type_null))
		return NULL;
	return g_strdup(json_object_get_string(v));
}

static long jint(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) ? (long)json_object_get_int64(v) : -1;
}

static struct lab_result *result_from_json(json_object *o)
{
	char *name = jstr(o, "name"), *test = jstr(o, "test"), *verdict;
	struct lab_result *r = lab_result_new(name, test);
	json_object *reps, *v;
	size_t i;

	g_free(name);
	g_free(test);
	r->seed = jstr(o, "seed");
	r->guest = jstr(o, "guest");
	r->kernel = jstr(o, "kernel");
	r->reason = jstr(o, "reason");
	r->dir = jstr(o, "dir");
	verdict = jstr(o, "verdict");
	if (lab_verdict_parse(verdict, &r->verdict) != 0)
		r->verdict = LAB_ERROR;
	g_free(verdict);
	r->exit_code = (int)jint(o, "exit_code");
	r->taint_before = jint(o, "taint_before");
	r->taint_after = jint(o, "taint_after");
	r->window_hits = jint(o, "window_hits");
	if (json_object_object_get_ex(o, "seconds", &v))
		r->seconds = json_object_get_double(v);
	if (json_object_object_get_ex(o, "reports", &reps)) {
		for (i = 0; i < json_object_array_length(reps); i++) {
			json_object *rep = json_object_array_get_idx(reps, i);
			char *t = jstr(rep, "type"), *ti = jstr(rep, "title"),
			     *fl = jstr(rep, "first_line");

			g_ptr_array_add(r->reports, g_strdup_printf("%s|%s|%s",
				t ? t : "", ti ? ti : "", fl ? fl : ""));
			g_free(t);
			g_free(ti);
			g_free(fl);
		}
	}
	return r;
}

struct lab_run *lab_results_load(const char *path)
{
	json_object *o = json_object_from_file(path), *tests;
	struct lab_run *run;
	size_t i;

	if (!o) {
		lab_err("cannot read %s: %s", path, json_util_get_last_err());
		return NULL;
	}
	run = g_new0(struct lab_run, 1);
	run->dir = g_path_get_dirname(path);
	run->id = jstr(o, "run");
	run->topology = jstr(o, "topology");
	run->kernel = jstr(o, "kernel");
	run->results = g_ptr_array_new_with_free_func((GDestroyNotify)lab_result_free);
	if (json_object_object_get_ex(o, "tests", &tests))
		for (i = 0; i < json_object_array_length(tests); i++)
			g_ptr_array_add(run->results,
				result_from_json(json_object_array_get_idx(tests, i)));
	json_object_put(o);
	return run;
}

struct lab_run *lab_results_load_dir(const char *run)
{
	char *p = g_str_has_suffix(run, ".json") ? g_strdup(run)
		: g_build_filename(run, "results.json", NULL);
	struct lab_run *r = lab_results_load(p);

	g_free(p);
	return r;
}

void lab_run_free(struct lab_run *run)
{
	if (!run)
		return;
	g_free(run->id);
	g_free(run->dir);
	g_free(run->topology);
	g_free(run->kernel);
	g_ptr_array_free(run->results, TRUE);
	g_free(run);
}
