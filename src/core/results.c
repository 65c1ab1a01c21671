/* results.c - verdict rules and the machine-readable outputs of a run:
 * results.json (json-c), junit.xml, and KTAP lines for the terminal. */
#include "core/results.h"
#include "util/util.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char *const verdict_names[] = {
	[LAB_PASS] = "pass",
	[LAB_FAIL] = "fail",
	[LAB_INCONCLUSIVE] = "inconclusive",
	[LAB_SKIP] = "skip",
	[LAB_ERROR] = "error",
	[LAB_TIMEOUT] = "timeout",
};

static const char *const evidence_names[] = {
	[LAB_EV_NONE] = "none",
	[LAB_EV_SIGNATURE] = "signature",
	[LAB_EV_OTHER] = "other",
};

const char *lab_evidence_name(enum lab_evidence e)
{
	return evidence_names[e];
}

int lab_evidence_parse(const char *s, enum lab_evidence *e)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(evidence_names); i++) {
		if (s && strcmp(s, evidence_names[i]) == 0) {
			*e = (enum lab_evidence)i;
			return 0;
		}
	}
	return -1;
}

struct lab_rreport *lab_rreport_new(const char *type, const char *title,
				    const char *first_line, const char *function,
				    bool signature)
{
	struct lab_rreport *r = g_new0(struct lab_rreport, 1);

	r->type = g_strdup(type ? type : "");
	r->title = g_strdup(title ? title : "");
	r->first_line = g_strdup(first_line ? first_line : "");
	r->function = g_strdup(function);
	r->signature = signature;
	return r;
}

void lab_rreport_free(struct lab_rreport *r)
{
	if (!r)
		return;
	g_free(r->type);
	g_free(r->title);
	g_free(r->first_line);
	g_free(r->function);
	g_free(r);
}

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
	r->reports = g_ptr_array_new_with_free_func((GDestroyNotify)lab_rreport_free);
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
	g_free(r->knob);
	g_free(r->dump);
	g_free(r->counts);
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

/* JSON strings must be UTF-8: a guest console may print anything. */
json_object *lab_json_str(const char *v)
{
	char *ok;
	json_object *o;

	if (!v)
		return NULL;
	ok = g_utf8_make_valid(v, -1);
	o = json_object_new_string(ok);
	g_free(ok);
	return o;
}

static json_object *report_json(const struct lab_rreport *rep)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "type", lab_json_str(rep->type));
	json_object_object_add(o, "title", lab_json_str(rep->title));
	json_object_object_add(o, "first_line", lab_json_str(rep->first_line));
	json_object_object_add(o, "function", lab_json_str(rep->function));
	json_object_object_add(o, "signature", json_object_new_boolean(rep->signature));
	return o;
}

static json_object *result_json(const struct lab_result *r)
{
	json_object *o = json_object_new_object();
	json_object *reps = json_object_new_array();
	guint i;

	json_object_object_add(o, "name", lab_json_str(r->name));
	json_object_object_add(o, "test", lab_json_str(r->test));
	json_object_object_add(o, "seed", lab_json_str(r->seed));
	json_object_object_add(o, "guest", lab_json_str(r->guest));
	json_object_object_add(o, "kernel", lab_json_str(r->kernel));
	json_object_object_add(o, "verdict", lab_json_str(lab_verdict_name(r->verdict)));
	json_object_object_add(o, "evidence", lab_json_str(lab_evidence_name(r->evidence)));
	json_object_object_add(o, "reason", lab_json_str(r->reason));
	json_object_object_add(o, "knob", lab_json_str(r->knob));
	json_object_object_add(o, "dump", lab_json_str(r->dump));
	json_object_object_add(o, "counts", lab_json_str(r->counts));
	json_object_object_add(o, "dir", lab_json_str(r->dir));
	json_object_object_add(o, "exit_code", json_object_new_int(r->exit_code));
	json_object_object_add(o, "seconds", json_object_new_double(r->seconds));
	if (r->ended)
		json_object_object_add(o, "ended", json_object_new_int64(r->ended));
	json_object_object_add(o, "taint_before", json_object_new_int64(r->taint_before));
	json_object_object_add(o, "taint_after", json_object_new_int64(r->taint_after));
	json_object_object_add(o, "window_hits", json_object_new_int64(r->window_hits));
	for (i = 0; i < r->reports->len; i++)
		json_object_array_add(reps, report_json(g_ptr_array_index(r->reports, i)));
	json_object_object_add(o, "reports", reps);
	return o;
}

char *lab_results_json(const struct lab_run *run)
{
	json_object *o = json_object_new_object();
	json_object *arr = json_object_new_array();
	char *s;
	guint i;

	json_object_object_add(o, "run", lab_json_str(run->id));
	json_object_object_add(o, "topology", lab_json_str(run->topology));
	json_object_object_add(o, "kernel", lab_json_str(run->kernel));
	json_object_object_add(o, "kernel_key", lab_json_str(run->kernel_key));
	json_object_object_add(o, "kernel_release", lab_json_str(run->kernel_release));
	for (i = 0; i < run->results->len; i++)
		json_object_array_add(arr, result_json(g_ptr_array_index(run->results, i)));
	json_object_object_add(o, "tests", arr);
	s = g_strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

/* XML 1.0 forbids most control characters even as references (&#x1b;),
 * and U+FFFE and U+FFFF: they become '?', and the text is made valid UTF-8
 * first. */
char *lab_xml_text(const char *s)
{
	char *u = g_utf8_make_valid(s ? s : "", -1);
	GString *out = g_string_sized_new(strlen(u));
	const char *p;

	for (p = u; *p; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
		    c == 0xfffe || c == 0xffff)
			g_string_append_c(out, '?');
		else
			g_string_append_unichar(out, c);
	}
	g_free(u);
	return g_string_free(out, FALSE);
}

static const char *first_title(const struct lab_result *r)
{
	return r->reports->len
		? ((struct lab_rreport *)g_ptr_array_index(r->reports, 0))->title : NULL;
}

static char *junit_case(const struct lab_run *run, const struct lab_result *r)
{
	const char *tag = r->verdict == LAB_FAIL ? "failure" :
			  r->verdict == LAB_ERROR || r->verdict == LAB_TIMEOUT ? "error" :
			  r->verdict == LAB_PASS ? NULL : "skipped";
	char *kernel = lab_xml_text(run->kernel), *guest = lab_xml_text(r->guest ? r->guest : "-");
	char *name = lab_xml_text(r->name), *reason = lab_xml_text(r->reason);
	char *title = lab_xml_text(first_title(r));
	char *tc = g_markup_printf_escaped(
		"  <testcase classname=\"lab.%s.%s\" name=\"%s\" time=\"%.1f\">\n",
		kernel, guest, name, r->seconds);
	GString *x = g_string_new(tc);

	if (tag) {
		/* JUnit has no "inconclusive": a skip whose message says so,
		 * never a pass; a timeout is an error whose message says so */
		char *el = g_markup_printf_escaped("    <%s message=\"%s: %s\">%s</%s>\n",
			tag, lab_verdict_name(r->verdict), reason, title, tag);

		g_string_append(x, el);
		g_free(el);
	}
	g_string_append(x, "  </testcase>\n");
	g_free(tc);
	g_free(kernel);
	g_free(guest);
	g_free(name);
	g_free(reason);
	g_free(title);
	return g_string_free(x, FALSE);
}

char *lab_results_junit(const struct lab_run *run)
{
	GString *x = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	int fails = 0, errors = 0, skipped = 0;
	char *head, *kernel = lab_xml_text(run->kernel);
	guint i;

	for (i = 0; i < run->results->len; i++) {
		struct lab_result *r = g_ptr_array_index(run->results, i);

		fails += r->verdict == LAB_FAIL;
		errors += r->verdict == LAB_ERROR || r->verdict == LAB_TIMEOUT;
		skipped += r->verdict == LAB_SKIP || r->verdict == LAB_INCONCLUSIVE;
	}
	head = g_markup_printf_escaped(
		"<testsuite name=\"lab.%s\" tests=\"%u\" failures=\"%d\" errors=\"%d\" skipped=\"%d\">\n",
		kernel, run->results->len, fails, errors, skipped);
	g_string_append(x, head);
	g_free(head);
	g_free(kernel);
	for (i = 0; i < run->results->len; i++) {
		char *c = junit_case(run, g_ptr_array_index(run->results, i));

		g_string_append(x, c);
		g_free(c);
	}
	g_string_append(x, "</testsuite>\n");
	return g_string_free(x, FALSE);
}

/* A loaded result may have no reason ("reason": null): say nothing then. */
char *lab_result_ktap_line(const struct lab_result *r, int n)
{
	const char *title = first_title(r);
	const char *reason = r->reason ? r->reason : "";
	bool add_title = title && !strstr(reason, title);

	switch (r->verdict) {
	case LAB_PASS:
		return g_strdup_printf("ok %d %s", n, r->name);
	case LAB_SKIP:
		return g_strdup_printf("ok %d %s # SKIP %s", n, r->name, reason);
	case LAB_INCONCLUSIVE:
		return g_strdup_printf("ok %d %s # SKIP %s%s", n, r->name,
				       g_str_has_prefix(reason, "inconclusive") ? "" : "inconclusive: ",
				       reason);
	case LAB_TIMEOUT:
		return g_strdup_printf("not ok %d %s # TIMEOUT %s", n, r->name, reason);
	default:
		return g_strdup_printf("not ok %d %s # %s%s%s%s", n, r->name,
				       r->verdict == LAB_ERROR ? "ERROR " : "", reason,
				       add_title && *reason ? " :: " : "",
				       add_title ? title : "");
	}
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

/* ---- loading: a malformed file is a message, never a crash ---- */

/* What lab writes is far below these; a file past them is not lab's. */
#define MAX_RESULTS_BYTES (16 << 20)
#define MAX_STRING_BYTES 65536
#define WHOLE_DOUBLE_MAX 9007199254740992.0 /* 2^53 */

struct loader {
	const char *path;
	char *err;
	char at[64]; /* "tests[2]." or "tests[2].reports[0].": where we are */
	size_t test;
};

static void bad(struct loader *l, const char *where, const char *what)
{
	if (!l->err)
		l->err = g_strdup_printf("%s: %s%s: %s", l->path, l->at, where, what);
}

/* A string member (NULL when absent or null); wrong type is an error, and
 * so is text no report may carry: a NUL, invalid UTF-8 (json-c lets an
 * overlong form through), a huge string. */
static char *jstr(struct loader *l, json_object *o, const char *k, bool need)
{
	json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, k, &v) || json_object_is_type(v, json_type_null)) {
		if (need)
			bad(l, k, "missing");
		return NULL;
	}
	if (!json_object_is_type(v, json_type_string)) {
		bad(l, k, "not a string");
		return NULL;
	}
	s = json_object_get_string(v);
	if (strlen(s) != (size_t)json_object_get_string_len(v)) {
		bad(l, k, "holds a NUL character");
		return NULL;
	}
	if (!g_utf8_validate(s, -1, NULL)) {
		bad(l, k, "not valid UTF-8");
		return NULL;
	}
	if (json_object_get_string_len(v) > MAX_STRING_BYTES) {
		bad(l, k, "longer than 65536 bytes");
		return NULL;
	}
	return g_strdup(s);
}

/* A whole number in min..max; def when absent or null. A double must be
 * whole and in range before it is converted: converting NaN, or 2^63 (that
 * (double)LONG_MAX rounds up to), is undefined. Past 2^53 a double is not
 * a count anyway. */
static long jnum(struct loader *l, json_object *o, const char *k, long def,
		 long min, long max)
{
	json_object *v;
	double d;
	long n;

	if (!json_object_object_get_ex(o, k, &v) || json_object_is_type(v, json_type_null))
		return def;
	if (json_object_is_type(v, json_type_int)) {
		n = (long)json_object_get_int64(v);
	} else if (json_object_is_type(v, json_type_double)) {
		d = json_object_get_double(v);
		if (!(d >= (double)min && d <= (double)max && d > -WHOLE_DOUBLE_MAX &&
		      d < WHOLE_DOUBLE_MAX) || d != (double)(long)d) {
			bad(l, k, "not a whole number in range");
			return def;
		}
		n = (long)d;
	} else {
		bad(l, k, "not a number");
		return def;
	}
	if (n < min || n > max) {
		bad(l, k, "out of range");
		return def;
	}
	return n;
}

/* seconds: a finite number, not negative. */
static double jseconds(struct loader *l, json_object *o)
{
	json_object *v;
	double d;

	if (!json_object_object_get_ex(o, "seconds", &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double)) {
		bad(l, "seconds", "not a number");
		return 0;
	}
	d = json_object_get_double(v);
	if (!(d >= 0 && d <= 1e9)) {
		bad(l, "seconds", "out of range");
		return 0;
	}
	return d;
}

static bool jbool(struct loader *l, json_object *o, const char *k)
{
	json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || json_object_is_type(v, json_type_null))
		return false;
	if (!json_object_is_type(v, json_type_boolean)) {
		bad(l, k, "not true or false");
		return false;
	}
	return json_object_get_boolean(v);
}

static void load_reports(struct loader *l, json_object *o, struct lab_result *r)
{
	json_object *reps;
	size_t i;

	if (!json_object_object_get_ex(o, "reports", &reps) ||
	    json_object_is_type(reps, json_type_null))
		return;
	if (!json_object_is_type(reps, json_type_array)) {
		bad(l, "reports", "not an array");
		return;
	}
	for (i = 0; i < json_object_array_length(reps); i++) {
		json_object *rep = json_object_array_get_idx(reps, i);
		char *t, *ti, *fl, *fn;

		if (!json_object_is_type(rep, json_type_object)) {
			bad(l, "reports", "an entry is not an object");
			return;
		}
		g_snprintf(l->at, sizeof(l->at), "tests[%zu].reports[%zu].",
			   l->test, i);
		t = jstr(l, rep, "type", false);
		ti = jstr(l, rep, "title", false);
		fl = jstr(l, rep, "first_line", false);
		fn = jstr(l, rep, "function", false);
		g_ptr_array_add(r->reports, lab_rreport_new(t, ti, fl, fn,
			jbool(l, rep, "signature")));
		g_free(t);
		g_free(ti);
		g_free(fl);
		g_free(fn);
	}
}

static struct lab_result *result_from_json(struct loader *l, json_object *o)
{
	char *name = jstr(l, o, "name", true), *test = jstr(l, o, "test", false);
	char *verdict, *evidence;
	struct lab_result *r;

	r = lab_result_new(name ? name : "?", test ? test : name ? name : "?");
	g_free(name);
	g_free(test);
	r->seed = jstr(l, o, "seed", false);
	r->guest = jstr(l, o, "guest", false);
	r->kernel = jstr(l, o, "kernel", false);
	r->reason = jstr(l, o, "reason", false);
	r->knob = jstr(l, o, "knob", false);
	r->dump = jstr(l, o, "dump", false);
	r->counts = jstr(l, o, "counts", false);
	r->dir = jstr(l, o, "dir", false);
	verdict = jstr(l, o, "verdict", true);
	if (verdict && lab_verdict_parse(verdict, &r->verdict) != 0)
		bad(l, "verdict", "not a known verdict");
	evidence = jstr(l, o, "evidence", false);
	/* results written before evidence existed: a failure is unattributed */
	if (!evidence)
		r->evidence = r->verdict == LAB_FAIL ? LAB_EV_OTHER : LAB_EV_NONE;
	else if (lab_evidence_parse(evidence, &r->evidence) != 0)
		bad(l, "evidence", "not signature, other or none");
	g_free(verdict);
	g_free(evidence);
	r->exit_code = (int)jnum(l, o, "exit_code", -1, -1, 255);
	r->taint_before = jnum(l, o, "taint_before", -1, -1, LONG_MAX);
	r->taint_after = jnum(l, o, "taint_after", -1, -1, LONG_MAX);
	r->window_hits = jnum(l, o, "window_hits", -1, -1, LONG_MAX);
	r->seconds = jseconds(l, o);
	r->ended = jnum(l, o, "ended", 0, 0, 4102444800L);
	if (r->dir && (g_path_is_absolute(r->dir) || strstr(r->dir, "..")))
		bad(l, "dir", "must be a path inside the run");
	load_reports(l, o, r);
	return r;
}

static struct lab_run *run_from_json(struct loader *l, json_object *o)
{
	struct lab_run *run = g_new0(struct lab_run, 1);
	json_object *tests;
	size_t i;

	run->dir = g_path_get_dirname(l->path);
	run->results = g_ptr_array_new_with_free_func((GDestroyNotify)lab_result_free);
	if (!json_object_is_type(o, json_type_object)) {
		bad(l, "top level", "not an object");
		return run;
	}
	run->id = jstr(l, o, "run", false);
	run->topology = jstr(l, o, "topology", false);
	run->kernel = jstr(l, o, "kernel", false);
	run->kernel_key = jstr(l, o, "kernel_key", false);
	run->kernel_release = jstr(l, o, "kernel_release", false);
	if (!json_object_object_get_ex(o, "tests", &tests) ||
	    !json_object_is_type(tests, json_type_array)) {
		bad(l, "tests", "missing or not an array");
		return run;
	}
	for (i = 0; i < json_object_array_length(tests) && !l->err; i++) {
		json_object *t = json_object_array_get_idx(tests, i);

		if (!json_object_is_type(t, json_type_object)) {
			bad(l, "tests", "an entry is not an object");
			break;
		}
		l->test = i;
		g_snprintf(l->at, sizeof(l->at), "tests[%zu].", i);
		g_ptr_array_add(run->results, result_from_json(l, t));
	}
	return run;
}

/* "LINE" of a byte offset, for the tokenizer's error. */
static int line_at(const char *data, size_t off)
{
	int line = 1;
	size_t i;

	for (i = 0; i < off; i++)
		line += data[i] == '\n';
	return line;
}

/* The file as strict JSON in valid UTF-8, one value and nothing after. */
static json_object *parse_file(struct loader *l)
{
	json_tokener *tok;
	json_object *o = NULL;
	GError *e = NULL;
	gchar *data;
	gsize len;
	size_t off;

	if (!g_file_get_contents(l->path, &data, &len, &e)) {
		l->err = g_strdup_printf("cannot read %s", e->message);
		g_error_free(e);
		return NULL;
	}
	if (len > MAX_RESULTS_BYTES || len > INT_MAX) {
		l->err = g_strdup_printf("%s: larger than 16 MiB", l->path);
		g_free(data);
		return NULL;
	}
	tok = json_tokener_new();
	/* trailing characters are checked below: blanks may follow */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8 |
			       JSON_TOKENER_ALLOW_TRAILING_CHARS);
	o = json_tokener_parse_ex(tok, data, (int)len);
	off = json_tokener_get_parse_end(tok);
	if (!o || off + strspn(data + off, " \t\r\n") != len) {
		enum json_tokener_error je = json_tokener_get_error(tok);

		l->err = g_strdup_printf("%s:%d: not JSON: %s", l->path,
			line_at(data, off + (o ? strspn(data + off, " \t\r\n") : 0)),
			o ? "text after the value" : je == json_tokener_continue
			  ? "the file ends inside a value" : json_tokener_error_desc(je));
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	g_free(data);
	return o;
}

struct lab_run *lab_results_parse(const char *path, char **err)
{
	struct loader l = { .path = path };
	json_object *o = parse_file(&l);
	struct lab_run *run = NULL;

	if (o) {
		run = run_from_json(&l, o);
		json_object_put(o);
	}
	if (l.err) {
		lab_run_free(run);
		run = NULL;
	}
	*err = l.err;
	return run;
}

struct lab_run *lab_results_load(const char *path)
{
	char *err = NULL;
	struct lab_run *run = lab_results_parse(path, &err);

	if (!run) {
		lab_err("malformed results: %s", err);
		g_free(err);
	}
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
	g_free(run->kernel_key);
	g_free(run->kernel_release);
	g_ptr_array_free(run->results, TRUE);
	g_free(run);
}
