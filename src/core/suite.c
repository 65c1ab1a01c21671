/* suite.c - the suite map, tests/suite.ini: the only home of test
 * metadata, read with the strict INI reader (core/ini.h: every error
 * names the file, line, group and key). */
#include "core/suite.h"
#include "core/ini.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <string.h>

static void test_free(gpointer p)
{
	struct lab_test *t = p;

	g_free(t->name);
	g_free(t->seed);
	g_strfreev(t->roles);
	g_free(t->needs_cmdline);
	g_strfreev(t->nfs_versions);
	g_strfreev(t->amplifiers);
	g_free(t->window);
	g_free(t->netem);
	g_free(t->expected_report);
	g_free(t->title);
	g_strfreev(t->peers);
	g_strfreev(t->parts);
	g_strfreev(t->signature);
	g_free(t->signature_program);
	g_strfreev(t->servers);
	g_strfreev(t->groups);
	g_free(t);
}

void lab_suite_free(struct lab_suite *s)
{
	if (!s)
		return;
	g_free(s->path);
	g_ptr_array_free(s->tests, TRUE);
	g_hash_table_destroy(s->suites);
	g_free(s);
}

static const char *const test_keys[] = {
	"title", "seed", "roles", "order", "timeout", "consumes_boot",
	"needs_cmdline", "nfs_versions", "amplifier", "window", "nfs_mount", "reset_server",
	"netem", "expected_report", "peers", "signature", "signature_program",
	"min_hits", "servers", "groups", "parts", NULL,
};

/* Values that reach a guest's shell must fit a strict grammar. */
static bool matches(const char *re, const char *s)
{
	return !s || g_regex_match_simple(re, s, 0, 0);
}

static char *check_values(const struct lab_test *t)
{
	char **v;

	if (!matches("^[a-z0-9][a-z0-9.-]*$", t->name))
		return g_strdup("the test name may hold only a-z, 0-9, '.' and '-'");
	if (t->seed && !matches("^[0-9]{3}$", t->seed))
		return g_strdup("seed= is three digits");
	for (v = t->amplifiers; v && *v; v++)
		if (!matches("^/sys/module/[a-z0-9_]+/parameters/[a-z0-9_]+=[0-9]+$", *v))
			return g_strdup_printf("amplifier: '%s' is not /sys/module/MOD/parameters/NAME=NUMBER", *v);
	if (!matches("^[0-9]{1,5}ms$", t->netem))
		return g_strdup("netem= is a delay like 20ms");
	if (!matches("^[A-Za-z0-9_.,=+\" -]+$", t->needs_cmdline))
		return g_strdup("needs_cmdline= holds letters, digits, spaces and _.,=+\"- only");
	for (v = t->nfs_versions; v && *v; v++)
		if (!matches("^(3|4\\.0|4\\.1|4\\.2)$", *v))
			return g_strdup_printf("nfs_versions: '%s' is not 3, 4.0, 4.1 or 4.2", *v);
	for (v = t->roles; v && *v; v++)
		if (!matches("^[a-z-]+$", *v))
			return g_strdup_printf("roles: '%s' is not a role name", *v);
	for (v = t->peers; v && *v; v++)
		if (!matches("^[a-z-]+$", *v))
			return g_strdup_printf("peers: '%s' is not a role name", *v);
	for (v = t->parts; v && *v; v++)
		if (!matches("^[a-z-]+:[a-z0-9][a-z0-9._-]*$", *v))
			return g_strdup_printf("parts: '%s' is not ROLE:PROGRAM", *v);
	for (v = t->servers; v && *v; v++)
		if (!matches("^[a-z-]+$", *v))
			return g_strdup_printf("servers: '%s' is not a role name", *v);
	for (v = t->groups; v && *v; v++)
		if (!matches("^[a-z]+$", *v))
			return g_strdup_printf("groups: '%s' is not a group name", *v);
	if (t->seed && !t->signature && !t->signature_program)
		return g_strdup("a seed's test needs signature= or signature_program=");
	return NULL;
}

static const char *const suite_keys[] = { "tests", NULL };
static const struct lab_ini_kind kinds[] = {
	{ "test ", true, test_keys },
	{ "suite ", true, suite_keys },
	{ NULL, false, NULL },
};

/* An optional string: NULL when absent. */
static char *opt_str(struct lab_ini *l, const char *g, const char *k)
{
	return g_key_file_has_key(l->kf, g, k, NULL) ? lab_ini_str(l, g, k, "") : NULL;
}

/* An optional list: NULL when absent or empty. */
static char **opt_list(struct lab_ini *l, const char *g, const char *k)
{
	char **v = lab_ini_list(l, g, k);

	if (v && !v[0]) {
		g_strfreev(v);
		return NULL;
	}
	return v;
}

/* A part's guest is used by the test: its role joins peers (once). */
static void add_part_peers(struct lab_test *t)
{
	GPtrArray *peers = g_ptr_array_new();
	char **v;

	for (v = t->peers; v && *v; v++)
		g_ptr_array_add(peers, g_strdup(*v));
	for (v = t->parts; v && *v; v++) {
		char *role = g_strndup(*v, strcspn(*v, ":"));

		if (g_ptr_array_find_with_equal_func(peers, role, g_str_equal, NULL))
			g_free(role);
		else
			g_ptr_array_add(peers, role);
	}
	g_ptr_array_add(peers, NULL);
	g_strfreev(t->peers);
	t->peers = (char **)g_ptr_array_free(peers, FALSE);
}

static struct lab_test *load_test(struct lab_ini *l, const char *grp)
{
	struct lab_test *t = g_new0(struct lab_test, 1);
	char *why;

	t->name = g_strdup(grp + strlen("test "));
	t->seed = opt_str(l, grp, "seed");
	t->roles = opt_list(l, grp, "roles");
	t->order = lab_ini_int(l, grp, "order", 0, 0, 1000000, "the run order");
	t->timeout_s = lab_ini_int(l, grp, "timeout", 0, 1, 86400, "seconds");
	t->consumes_boot = lab_ini_bool(l, grp, "consumes_boot", false);
	t->needs_cmdline = opt_str(l, grp, "needs_cmdline");
	t->nfs_versions = opt_list(l, grp, "nfs_versions");
	t->amplifiers = opt_list(l, grp, "amplifier");
	t->window = opt_str(l, grp, "window");
	t->nfs_mount = lab_ini_bool(l, grp, "nfs_mount", false);
	t->reset_server = lab_ini_bool(l, grp, "reset_server", false);
	t->netem = opt_str(l, grp, "netem");
	t->expected_report = opt_str(l, grp, "expected_report");
	t->title = opt_str(l, grp, "title");
	t->peers = opt_list(l, grp, "peers");
	t->signature = opt_list(l, grp, "signature");
	t->signature_program = opt_str(l, grp, "signature_program");
	t->min_hits = lab_ini_int(l, grp, "min_hits", 0, 0, 1000000, "window hits");
	t->servers = opt_list(l, grp, "servers");
	t->groups = opt_list(l, grp, "groups");
	t->parts = opt_list(l, grp, "parts");
	if (!l->err && (!t->roles || t->timeout_s <= 0))
		lab_ini_fail(l, grp, NULL, "needs roles= and a positive timeout=");
	if (!l->err && (why = check_values(t))) {
		lab_ini_fail(l, grp, NULL, "%s", why);
		g_free(why);
	}
	if (!l->err && t->parts)
		add_part_peers(t);
	if (l->err) {
		test_free(t);
		return NULL;
	}
	return t;
}

static void check_suites(struct lab_ini *l, struct lab_suite *s)
{
	GHashTableIter it;
	gpointer k, v;

	g_hash_table_iter_init(&it, s->suites);
	while (!l->err && g_hash_table_iter_next(&it, &k, &v)) {
		char **names = v;
		char *grp = g_strdup_printf("suite %s", (char *)k);

		for (; names && *names && !l->err; names++)
			if (!lab_suite_test(s, *names))
				lab_ini_fail(l, grp, "tests", "names unknown test '%s'", *names);
		g_free(grp);
	}
}

/* A test's name reaches paths in the guest and on the tests disk. */
static const char *name_error(const char *name)
{
	return g_regex_match_simple("^[a-z0-9][a-z0-9.-]{0,63}$", name, 0, 0)
	       ? NULL : "may hold only a-z, 0-9, '.' and '-' (64 at most)";
}

struct lab_suite *lab_suite_load(const char *path, char **err)
{
	struct lab_ini l = { .path = path, .kinds = kinds, .what = "a suite map",
			     .expected = "[test NAME] or [suite NAME]",
			     .name_error = name_error };
	struct lab_suite *s = g_new0(struct lab_suite, 1);
	char **groups = NULL;
	int i;

	s->path = g_strdup(path);
	s->tests = g_ptr_array_new_with_free_func(test_free);
	s->suites = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					  (GDestroyNotify)g_strfreev);
	if (lab_ini_load_file(&l, 1 << 20) == 0)
		groups = g_key_file_get_groups(l.kf, NULL);
	for (i = 0; groups && groups[i] && !l.err; i++) {
		if (g_str_has_prefix(groups[i], "test ")) {
			struct lab_test *t = load_test(&l, groups[i]);

			if (t)
				g_ptr_array_add(s->tests, t);
		} else {
			g_hash_table_insert(s->suites,
					    g_strdup(groups[i] + strlen("suite ")),
					    opt_list(&l, groups[i], "tests"));
		}
	}
	g_strfreev(groups);
	if (!l.err)
		check_suites(&l, s);
	lab_ini_clear(&l);
	if (l.err) {
		*err = l.err;
		lab_suite_free(s);
		return NULL;
	}
	return s;
}

const struct lab_test *lab_suite_test(const struct lab_suite *s,
				      const char *name)
{
	guint i;

	for (i = 0; i < s->tests->len; i++) {
		const struct lab_test *t = g_ptr_array_index(s->tests, i);

		if (strcmp(t->name, name) == 0)
			return t;
	}
	return NULL;
}

char *lab_suite_known(const struct lab_suite *s)
{
	GString *out = g_string_new("tests:");
	GList *names = g_hash_table_get_keys(s->suites), *l;
	guint i;

	for (i = 0; i < s->tests->len; i++)
		g_string_append_printf(out, " %s",
			((struct lab_test *)g_ptr_array_index(s->tests, i))->name);
	g_string_append(out, "; suites:");
	names = g_list_sort(names, (GCompareFunc)strcmp);
	for (l = names; l; l = l->next)
		g_string_append_printf(out, " %s", (char *)l->data);
	g_list_free(names);
	return g_string_free(out, FALSE);
}

static void add_unique(GPtrArray *out, const struct lab_test *t)
{
	guint i;

	for (i = 0; i < out->len; i++)
		if (g_ptr_array_index(out, i) == t)
			return;
	g_ptr_array_add(out, (gpointer)t);
}

static gint by_order(gconstpointer a, gconstpointer b)
{
	const struct lab_test *x = *(struct lab_test *const *)a;
	const struct lab_test *y = *(struct lab_test *const *)b;

	return (x->order > y->order) - (x->order < y->order);
}

GPtrArray *lab_suite_expand(const struct lab_suite *s, char **names,
			    char **err)
{
	GPtrArray *out = g_ptr_array_new();
	int i;

	for (i = 0; names && names[i]; i++) {
		const struct lab_test *t = lab_suite_test(s, names[i]);
		char **members = g_hash_table_lookup(s->suites, names[i]);

		if (t) {
			add_unique(out, t);
		} else if (members) {
			for (; *members; members++)
				add_unique(out, lab_suite_test(s, *members));
		} else {
			char *known = lab_suite_known(s);

			*err = g_strdup_printf("unknown test or suite '%s'; %s",
					       names[i], known);
			g_free(known);
			g_ptr_array_free(out, TRUE);
			return NULL;
		}
	}
	return out;
}

GPtrArray *lab_suite_resolve(const struct lab_suite *s, char **names,
			     char **err)
{
	GPtrArray *out = lab_suite_expand(s, names, err);

	/* g_ptr_array_sort is a stable merge sort: file order breaks ties */
	if (out)
		g_ptr_array_sort(out, by_order);
	return out;
}
