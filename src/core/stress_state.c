/* stress_state.c - the state of a stress run: per-test counts, crash
 * titles, the timeline; stress.json both ways; the Wilson interval and the
 * title normalizer. Pure, unit-tested (tests/unit/test_stress.c). */
#include "core/stress_state.h"
#include "core/results.h"
#include "core/test_env.h"
#include "util/util.h"

#include <json-c/json.h>
#include <math.h>
#include <string.h>

#define TIMELINE_MAX 4000 /* points per test kept for the picture */

void lab_wilson(long k, long n, double *lo, double *hi)
{
	const double z = 1.959964;
	double p, den, centre, half;

	if (n <= 0 || k < 0 || k > n) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = (double)k / (double)n;
	den = 1 + z * z / (double)n;
	centre = (p + z * z / (2.0 * (double)n)) / den;
	half = z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * (double)n * (double)n)) / den;
	*lo = centre - half < 0 ? 0 : centre - half;
	*hi = centre + half > 1 ? 1 : centre + half;
}

char *lab_stress_title(const char *title)
{
	static GRegex *hex, *num;
	char *a, *b;

	if (!hex) {
		hex = g_regex_new("0x[0-9a-fA-F]+|\\+0x[0-9a-f]+/0x[0-9a-f]+", 0, 0, NULL);
		num = g_regex_new("[0-9]+", 0, 0, NULL);
	}
	a = g_regex_replace_literal(hex, title ? title : "?", -1, 0, "N", 0, NULL);
	b = g_regex_replace_literal(num, a, -1, 0, "N", 0, NULL);
	g_free(a);
	return b;
}

static void test_free(gpointer p)
{
	struct lab_stress_test *t = p;

	g_free(t->name);
	g_array_free(t->timeline, TRUE);
	g_array_free(t->rates, TRUE);
	g_free(t);
}

static void crash_free(gpointer p)
{
	struct lab_stress_crash *c = p;

	g_free(c->title);
	g_ptr_array_free(c->tests, TRUE);
	g_ptr_array_free(c->excerpts, TRUE);
	g_ptr_array_free(c->dumps, TRUE);
	g_free(c);
}

struct lab_stress *lab_stress_new(void)
{
	struct lab_stress *s = g_new0(struct lab_stress, 1);

	s->tests = g_ptr_array_new_with_free_func(test_free);
	s->crashes = g_ptr_array_new_with_free_func(crash_free);
	s->quarantine_after = 3;
	return s;
}

void lab_stress_free(struct lab_stress *s)
{
	if (!s)
		return;
	g_free(s->id);
	g_free(s->dir);
	g_free(s->topology);
	g_free(s->kernel);
	g_free(s->kernel_dir);
	g_strfreev(s->names);
	g_strfreev(s->env);
	g_ptr_array_free(s->tests, TRUE);
	g_ptr_array_free(s->crashes, TRUE);
	g_free(s->stop_reason);
	g_free(s);
}

struct lab_stress_test *lab_stress_test_get(struct lab_stress *s, const char *name)
{
	struct lab_stress_test *t;
	guint i;

	for (i = 0; i < s->tests->len; i++) {
		t = g_ptr_array_index(s->tests, i);
		if (strcmp(t->name, name) == 0)
			return t;
	}
	t = g_new0(struct lab_stress_test, 1);
	t->name = g_strdup(name);
	t->timeline = g_array_new(FALSE, FALSE, sizeof(struct lab_stress_point));
	t->rates = lab_stress_rates_new();
	g_ptr_array_add(s->tests, t);
	return t;
}

struct lab_stress_crash *lab_stress_crash_get(struct lab_stress *s, const char *title)
{
	struct lab_stress_crash *c;
	guint i;

	for (i = 0; i < s->crashes->len; i++) {
		c = g_ptr_array_index(s->crashes, i);
		if (strcmp(c->title, title) == 0)
			return c;
	}
	c = g_new0(struct lab_stress_crash, 1);
	c->title = g_strdup(title);
	c->tests = g_ptr_array_new_with_free_func(g_free);
	c->excerpts = g_ptr_array_new_with_free_func(g_free);
	c->dumps = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(s->crashes, c);
	return c;
}

/* ---- JSON out ---- */

static json_object *strv(GPtrArray *a)
{
	json_object *o = json_object_new_array();
	guint i;

	for (i = 0; a && i < a->len; i++)
		json_object_array_add(o, lab_json_str(g_ptr_array_index(a, i)));
	return o;
}

static json_object *test_json(const struct lab_stress_test *t)
{
	json_object *o = json_object_new_object(), *tl = json_object_new_array();
	double lo, hi;
	guint i;

	lab_wilson(t->fail, t->runs, &lo, &hi);
	json_object_object_add(o, "name", lab_json_str(t->name));
#define N(k) json_object_object_add(o, #k, json_object_new_int64(t->k))
	N(runs); N(pass); N(fail); N(inconclusive); N(error); N(timeout); N(skip);
	N(window_hits); N(first_fail); N(last_fail); N(crash_streak);
#undef N
	json_object_object_add(o, "total_s", json_object_new_double(t->total_s));
	json_object_object_add(o, "max_s", json_object_new_double(t->max_s));
	json_object_object_add(o, "fail_rate", json_object_new_double(t->runs ? (double)t->fail / (double)t->runs : 0));
	json_object_object_add(o, "fail_rate_95_lo", json_object_new_double(lo));
	json_object_object_add(o, "fail_rate_95_hi", json_object_new_double(hi));
	json_object_object_add(o, "quarantined", json_object_new_boolean(t->quarantined));
	for (i = 0; i < t->timeline->len; i++) {
		const struct lab_stress_point *p = &g_array_index(t->timeline, struct lab_stress_point, i);
		json_object *pt = json_object_new_array();

		json_object_array_add(pt, json_object_new_int64(p->t));
		json_object_array_add(pt, json_object_new_string_len(&p->verdict, 1));
		json_object_array_add(tl, pt);
	}
	json_object_object_add(o, "timeline", tl);
	json_object_object_add(o, "rates", lab_stress_rates_json(t->rates));
	return o;
}

static json_object *crash_json(const struct lab_stress_crash *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "title", lab_json_str(c->title));
	json_object_object_add(o, "count", json_object_new_int64(c->count));
	json_object_object_add(o, "first", json_object_new_int64(c->first));
	json_object_object_add(o, "last", json_object_new_int64(c->last));
	json_object_object_add(o, "tests", strv(c->tests));
	json_object_object_add(o, "excerpts", strv(c->excerpts));
	json_object_object_add(o, "dumps", strv(c->dumps));
	return o;
}

char *lab_stress_to_json(const struct lab_stress *s)
{
	json_object *o = json_object_new_object(), *a;
	char *out;
	guint i;

	json_object_object_add(o, "id", lab_json_str(s->id));
	json_object_object_add(o, "topology", lab_json_str(s->topology));
	json_object_object_add(o, "kernel", lab_json_str(s->kernel));
	json_object_object_add(o, "kernel_dir", lab_json_str(s->kernel_dir));
	json_object_object_add(o, "seed", json_object_new_int64((int64_t)s->seed));
	a = json_object_new_array();
	for (i = 0; s->names && s->names[i]; i++)
		json_object_array_add(a, lab_json_str(s->names[i]));
	json_object_object_add(o, "names", a);
	a = json_object_new_array();
	for (i = 0; s->env && s->env[i]; i++)
		json_object_array_add(a, lab_json_str(s->env[i]));
	json_object_object_add(o, "env", a);
#define N(k) json_object_object_add(o, #k, json_object_new_int64(s->k))
	N(iteration); N(tests_run); N(duration_s); N(loops); N(steady);
	N(clean_streak); N(quarantine_after); N(started); N(updated);
#undef N
	json_object_object_add(o, "until_fail", json_object_new_boolean(s->until_fail));
	json_object_object_add(o, "elapsed_s", json_object_new_double(s->elapsed_s));
	json_object_object_add(o, "overhead_s", json_object_new_double(s->overhead_s));
	json_object_object_add(o, "stop_reason", lab_json_str(s->stop_reason));
	a = json_object_new_array();
	for (i = 0; i < s->tests->len; i++)
		json_object_array_add(a, test_json(g_ptr_array_index(s->tests, i)));
	json_object_object_add(o, "tests", a);
	a = json_object_new_array();
	for (i = 0; i < s->crashes->len; i++)
		json_object_array_add(a, crash_json(g_ptr_array_index(s->crashes, i)));
	json_object_object_add(o, "crashes", a);
	out = g_strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return out;
}

/* ---- JSON in: for --resume and --status; a wrong type is an error ---- */

static json_object *member(json_object *o, const char *k, json_type type)
{
	json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

static char *sget(json_object *o, const char *k)
{
	json_object *v = member(o, k, json_type_string);

	return v ? g_strdup(json_object_get_string(v)) : NULL;
}

static gint64 iget(json_object *o, const char *k)
{
	json_object *v = member(o, k, json_type_int);

	return v ? json_object_get_int64(v) : 0;
}

static double dget(json_object *o, const char *k)
{
	json_object *v;

	if (!json_object_object_get_ex(o, k, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return 0;
	return json_object_get_double(v);
}

static void sarr(json_object *o, const char *k, GPtrArray *out)
{
	json_object *a = member(o, k, json_type_array);
	size_t i;

	for (i = 0; a && i < json_object_array_length(a); i++) {
		json_object *v = json_object_array_get_idx(a, i);

		if (json_object_is_type(v, json_type_string))
			g_ptr_array_add(out, g_strdup(json_object_get_string(v)));
	}
}

/* The strings of array K, NULL-terminated (empty when there is none). */
static char **strv_get(json_object *o, const char *k)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);

	sarr(o, k, a);
	g_ptr_array_add(a, NULL);
	g_ptr_array_set_free_func(a, NULL);
	return (char **)g_ptr_array_free(a, FALSE);
}

static void load_test(struct lab_stress *s, json_object *o)
{
	char *name = sget(o, "name");
	struct lab_stress_test *t;
	json_object *tl;
	size_t i;

	if (!name)
		return;
	t = lab_stress_test_get(s, name);
	g_free(name);
#define N(k) t->k = iget(o, #k)
	N(runs); N(pass); N(fail); N(inconclusive); N(error); N(timeout); N(skip);
	N(window_hits); N(first_fail); N(last_fail); N(crash_streak);
#undef N
	t->total_s = dget(o, "total_s");
	t->max_s = dget(o, "max_s");
	t->quarantined = member(o, "quarantined", json_type_boolean) &&
			 json_object_get_boolean(member(o, "quarantined", json_type_boolean));
	tl = member(o, "timeline", json_type_array);
	for (i = 0; tl && i < json_object_array_length(tl); i++) {
		json_object *pt = json_object_array_get_idx(tl, i);
		struct lab_stress_point p;

		if (!json_object_is_type(pt, json_type_array) || json_object_array_length(pt) != 2)
			continue;
		p.t = json_object_get_int64(json_object_array_get_idx(pt, 0));
		p.verdict = json_object_get_string(json_object_array_get_idx(pt, 1))
			? json_object_get_string(json_object_array_get_idx(pt, 1))[0] : '?';
		g_array_append_val(t->timeline, p);
	}
	lab_stress_rates_load(t->rates, member(o, "rates", json_type_array));
}

static void load_crash(struct lab_stress *s, json_object *o)
{
	char *title = sget(o, "title");
	struct lab_stress_crash *c;

	if (!title)
		return;
	c = lab_stress_crash_get(s, title);
	g_free(title);
	c->count = iget(o, "count");
	c->first = iget(o, "first");
	c->last = iget(o, "last");
	sarr(o, "tests", c->tests);
	sarr(o, "excerpts", c->excerpts);
	sarr(o, "dumps", c->dumps);
}

/* ---- what a state may hold: it is read back, printed and resumed ---- */

#define T_MAX 4102444800LL /* 2100-01-01: any time after is made up */

static bool time_ok(gint64 t)
{
	return t >= 0 && t <= T_MAX;
}

static bool text_ok(const char *v, const char *allowed, size_t max)
{
	return v && *v && strlen(v) <= max && strspn(v, allowed) == strlen(v);
}

/* A run's ID: its date (20261204-083000), and for one host's part of a
 * spread run "/HOST" after it. */
static bool id_ok(const char *v)
{
	const char *slash = v ? strchr(v, '/') : NULL;
	size_t date = slash ? (size_t)(slash - v) : (v ? strlen(v) : 0);

	if (!v || date == 0 || date > 40 || strspn(v, "0123456789-") != date)
		return false;
	return !slash || text_ok(slash + 1, "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", 32);
}

/* A path the state names under its own directory: relative, no "..". */
static bool inside(const char *p)
{
	return p && *p && p[0] != '/' && !strstr(p, "..") &&
	       g_utf8_validate(p, -1, NULL) && !lab_stress_has_control(p);
}

#define COUNT_MAX 1000000000000L /* a count no stress run reaches */

static bool count_ok(long n)
{
	return n >= 0 && n <= COUNT_MAX;
}

static const char *check_test(const struct lab_stress_test *t)
{
	guint i;

	if (!count_ok(t->runs) || !count_ok(t->pass) || !count_ok(t->fail) ||
	    !count_ok(t->inconclusive) || !count_ok(t->error) || !count_ok(t->timeout) ||
	    !count_ok(t->skip) || !count_ok(t->window_hits) ||
	    t->pass + t->fail + t->inconclusive + t->error + t->timeout + t->skip != t->runs)
		return "a test's counts do not add up to its runs";
	if (!time_ok(t->first_fail) || !time_ok(t->last_fail) ||
	    !isfinite(t->total_s) || !isfinite(t->max_s) || t->total_s < 0 ||
	    t->max_s < 0 || t->total_s > 1e12 || t->crash_streak < 0)
		return "a test's times are out of range";
	for (i = 0; i < t->timeline->len; i++)
		if (!time_ok(g_array_index(t->timeline, struct lab_stress_point, i).t))
			return "a timeline point is out of range";
	return lab_stress_rates_check(t->rates);
}

static const char *check_crash(const struct lab_stress_crash *c)
{
	guint i;

	if (!count_ok(c->count) || !time_ok(c->first) || !time_ok(c->last))
		return "a crash title's count or times are out of range";
	for (i = 0; i < c->excerpts->len; i++)
		if (!inside(g_ptr_array_index(c->excerpts, i)))
			return "an excerpt path leaves the stress directory";
	for (i = 0; i < c->dumps->len; i++)
		if (!inside(g_ptr_array_index(c->dumps, i)))
			return "a dump path leaves the stress directory";
	return NULL;
}

/* NULL when S is a state lab could have written, else why not. */
static const char *check_state(const struct lab_stress *s)
{
	const char *why = NULL;
	char *env_why;
	guint i;

	if (!id_ok(s->id))
		return "no id, or not one lab makes (DATE or DATE/HOST)";
	if (!text_ok(s->topology, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		     "0123456789-_./", 256) ||
	    !text_ok(s->kernel, "abcdefghijklmnopqrstuvwxyz0123456789-", 32))
		return "no topology or kernel, or not one lab names";
	if (!s->names[0])
		return "no tests";
	for (i = 0; s->names[i]; i++)
		if (!text_ok(s->names[i], "abcdefghijklmnopqrstuvwxyz0123456789-.:", 128))
			return "a test name lab would not write";
	if ((env_why = lab_test_env_check_all(s->env))) {
		g_free(env_why);
		return "a test setting (env) lab would not pass";
	}
	if (s->iteration < 0 || !count_ok(s->tests_run) || !count_ok(s->duration_s) ||
	    !count_ok(s->loops) || s->steady < 0 || s->clean_streak < 0 || s->quarantine_after < 1 ||
	    s->quarantine_after > 1000 || !time_ok(s->started) || !time_ok(s->updated) ||
	    !isfinite(s->elapsed_s) || !isfinite(s->overhead_s) || s->elapsed_s < 0 ||
	    s->elapsed_s > 1e12 || fabs(s->overhead_s) > 1e12)
		return "a count or time is out of range";
	for (i = 0; !why && i < s->tests->len; i++)
		why = check_test(g_ptr_array_index(s->tests, i));
	for (i = 0; !why && i < s->crashes->len; i++)
		why = check_crash(g_ptr_array_index(s->crashes, i));
	return why;
}

bool lab_stress_has_control(const char *v)
{
	for (; v && *v; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			return true;
	return false;
}

struct lab_stress *lab_stress_from_json(const char *path, char **err)
{
	gchar *text = NULL;
	gsize len = 0;
	struct lab_stress *s;

	if (!g_file_get_contents(path, &text, &len, NULL)) {
		*err = g_strdup_printf("%s: cannot be read", path);
		return NULL;
	}
	s = lab_stress_from_text(text, len, path, err);
	g_free(text);
	return s;
}

struct lab_stress *lab_stress_from_text(const char *text, gsize len,
					const char *path, char **err)
{
	json_tokener *tok = json_tokener_new();
	json_object *o = len <= 64 << 20 ? json_tokener_parse_ex(tok, text, (int)len) : NULL, *a;
	struct lab_stress *s;
	const char *why;
	size_t i;

	json_tokener_free(tok);
	if (!o || !json_object_is_type(o, json_type_object)) {
		*err = g_strdup_printf("%s: not a stress state (%s)", path,
				       o ? "not an object" : "not JSON");
		json_object_put(o);
		return NULL;
	}
	s = lab_stress_new();
	s->id = sget(o, "id");
	s->topology = sget(o, "topology");
	s->kernel = sget(o, "kernel");
	s->kernel_dir = sget(o, "kernel_dir");
	s->seed = (guint64)iget(o, "seed");
	s->names = strv_get(o, "names");
	if (member(o, "env", json_type_array)) /* absent in older states */
		s->env = strv_get(o, "env");
#define N(k) s->k = iget(o, #k)
	N(iteration); N(tests_run); N(duration_s); N(loops); N(steady);
	N(clean_streak); N(quarantine_after); N(started); N(updated);
#undef N
	s->until_fail = member(o, "until_fail", json_type_boolean) &&
			json_object_get_boolean(member(o, "until_fail", json_type_boolean));
	s->elapsed_s = dget(o, "elapsed_s");
	s->overhead_s = dget(o, "overhead_s");
	s->stop_reason = sget(o, "stop_reason");
	a = member(o, "tests", json_type_array);
	for (i = 0; a && i < json_object_array_length(a); i++)
		if (json_object_is_type(json_object_array_get_idx(a, i), json_type_object))
			load_test(s, json_object_array_get_idx(a, i));
	a = member(o, "crashes", json_type_array);
	for (i = 0; a && i < json_object_array_length(a); i++)
		if (json_object_is_type(json_object_array_get_idx(a, i), json_type_object))
			load_crash(s, json_object_array_get_idx(a, i));
	json_object_put(o);
	if ((why = check_state(s))) {
		*err = g_strdup_printf("%s: not a stress state lab wrote: %s", path, why);
		lab_stress_free(s);
		return NULL;
	}
	return s;
}

/* The timeline keeps at most TIMELINE_MAX points per test: beyond that,
 * every other point is dropped (the picture keeps its shape). */
void lab_stress_point_add(struct lab_stress_test *t, gint64 when, char v)
{
	struct lab_stress_point p = { when, v };
	guint i, j;

	if (t->timeline->len >= TIMELINE_MAX) {
		for (i = 0, j = 0; i < t->timeline->len; i += 2, j++)
			g_array_index(t->timeline, struct lab_stress_point, j) =
				g_array_index(t->timeline, struct lab_stress_point, i);
		g_array_set_size(t->timeline, j);
	}
	g_array_append_val(t->timeline, p);
}

static gint64 earliest(gint64 a, gint64 b)
{
	return !a ? b : !b ? a : MIN(a, b);
}

static gint by_time(gconstpointer a, gconstpointer b)
{
	const struct lab_stress_point *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static void merge_test(struct lab_stress_test *d, const struct lab_stress_test *t)
{
	guint i;

	d->runs += t->runs;
	d->pass += t->pass;
	d->fail += t->fail;
	d->inconclusive += t->inconclusive;
	d->error += t->error;
	d->timeout += t->timeout;
	d->skip += t->skip;
	d->window_hits += t->window_hits;
	d->total_s += t->total_s;
	d->max_s = MAX(d->max_s, t->max_s);
	d->first_fail = earliest(d->first_fail, t->first_fail);
	d->last_fail = MAX(d->last_fail, t->last_fail);
	d->crash_streak = MAX(d->crash_streak, t->crash_streak);
	d->quarantined |= t->quarantined;
	for (i = 0; i < t->timeline->len; i++) {
		const struct lab_stress_point *p =
			&g_array_index(t->timeline, struct lab_stress_point, i);

		lab_stress_point_add(d, p->t, p->verdict);
	}
	g_array_sort(d->timeline, by_time);
	lab_stress_rates_merge(d->rates, t->rates);
}

static void add_paths(GPtrArray *to, GPtrArray *from, const char *prefix,
		      guint max)
{
	guint i;

	for (i = 0; i < from->len && to->len < max; i++)
		g_ptr_array_add(to, g_build_filename(prefix, g_ptr_array_index(from, i),
						     NULL));
}

static void merge_crash(struct lab_stress_crash *d, const struct lab_stress_crash *c,
			const char *prefix)
{
	guint i;

	d->count += c->count;
	d->first = earliest(d->first, c->first);
	d->last = MAX(d->last, c->last);
	for (i = 0; i < c->tests->len; i++)
		if (!g_ptr_array_find_with_equal_func(d->tests, g_ptr_array_index(c->tests, i),
						      g_str_equal, NULL))
			g_ptr_array_add(d->tests, g_strdup(g_ptr_array_index(c->tests, i)));
	add_paths(d->excerpts, c->excerpts, prefix, LAB_STRESS_EXCERPTS);
	add_paths(d->dumps, c->dumps, prefix, G_MAXUINT);
}

void lab_stress_merge(struct lab_stress *into, const struct lab_stress *from,
		      const char *prefix)
{
	guint i;

	into->iteration += from->iteration;
	into->tests_run += from->tests_run;
	into->overhead_s += from->overhead_s;
	into->elapsed_s = MAX(into->elapsed_s, from->elapsed_s);
	into->started = earliest(into->started, from->started);
	into->updated = MAX(into->updated, from->updated);
	for (i = 0; i < from->tests->len; i++) {
		const struct lab_stress_test *t = g_ptr_array_index(from->tests, i);

		merge_test(lab_stress_test_get(into, t->name), t);
	}
	for (i = 0; i < from->crashes->len; i++) {
		const struct lab_stress_crash *c = g_ptr_array_index(from->crashes, i);

		merge_crash(lab_stress_crash_get(into, c->title), c, prefix);
	}
}
