/* suite.c - the suite map, tests/suite.ini: the only home of test
 * metadata (strict grammar: every error names the file and key). */
#include "core/suite.h"
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

static char **get_list(GKeyFile *kf, const char *grp, const char *key)
{
	gsize n = 0;
	char **v = g_key_file_get_string_list(kf, grp, key, &n, NULL);

	if (v && n == 0) {
		g_strfreev(v);
		return NULL;
	}
	return v;
}

static const char *const test_keys[] = {
	"title", "seed", "roles", "order", "timeout", "consumes_boot",
	"needs_cmdline", "nfs_versions", "amplifier", "window", "nfs_mount",
	"netem", "expected_report", "peers", "signature", "signature_program",
	"min_hits", "servers", "groups", NULL,
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

static char *check_keys(GKeyFile *kf, const char *grp)
{
	gchar **keys = g_key_file_get_keys(kf, grp, NULL, NULL);
	char *err = NULL;
	int i;

	for (i = 0; keys && keys[i] && !err; i++)
		if (!g_strv_contains(test_keys, keys[i]))
			err = g_strdup_printf("unknown key '%s'", keys[i]);
	g_strfreev(keys);
	return err;
}

static int get_int_key(GKeyFile *kf, const char *grp, const char *key,
		       int def, char **why)
{
	GError *e = NULL;
	int v;

	if (!g_key_file_has_key(kf, grp, key, NULL))
		return def;
	v = g_key_file_get_integer(kf, grp, key, &e);
	if (e) {
		if (!*why)
			*why = g_strdup_printf("%s= is not a whole number", key);
		g_error_free(e);
	}
	return v;
}

static struct lab_test *load_test(GKeyFile *kf, const char *grp,
				  const char *path, char **err)
{
	struct lab_test *t = g_new0(struct lab_test, 1);
	char *why = check_keys(kf, grp);

	t->name = g_strdup(grp + strlen("test "));
	t->seed = g_key_file_get_string(kf, grp, "seed", NULL);
	t->roles = get_list(kf, grp, "roles");
	t->order = get_int_key(kf, grp, "order", 0, &why);
	t->timeout_s = get_int_key(kf, grp, "timeout", 0, &why);
	t->consumes_boot = g_key_file_get_boolean(kf, grp, "consumes_boot", NULL);
	t->needs_cmdline = g_key_file_get_string(kf, grp, "needs_cmdline", NULL);
	t->nfs_versions = get_list(kf, grp, "nfs_versions");
	t->amplifiers = get_list(kf, grp, "amplifier");
	t->window = g_key_file_get_string(kf, grp, "window", NULL);
	t->nfs_mount = g_key_file_get_boolean(kf, grp, "nfs_mount", NULL);
	t->netem = g_key_file_get_string(kf, grp, "netem", NULL);
	t->expected_report = g_key_file_get_string(kf, grp, "expected_report", NULL);
	t->title = g_key_file_get_string(kf, grp, "title", NULL);
	t->peers = get_list(kf, grp, "peers");
	t->signature = get_list(kf, grp, "signature");
	t->signature_program = g_key_file_get_string(kf, grp, "signature_program", NULL);
	t->min_hits = get_int_key(kf, grp, "min_hits", 0, &why);
	t->servers = get_list(kf, grp, "servers");
	t->groups = get_list(kf, grp, "groups");
	if (!why && (!t->roles || t->timeout_s <= 0))
		why = g_strdup("needs roles= and a positive timeout=");
	if (!why)
		why = check_values(t);
	if (why) {
		*err = g_strdup_printf("%s: [%s] %s", path, grp, why);
		g_free(why);
		test_free(t);
		return NULL;
	}
	return t;
}

static int check_suites(struct lab_suite *s, char **err)
{
	GHashTableIter it;
	gpointer k, v;

	g_hash_table_iter_init(&it, s->suites);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		char **names = v;

		for (; names && *names; names++) {
			if (!lab_suite_test(s, *names)) {
				*err = g_strdup_printf("%s: [suite %s] names unknown test '%s'",
						       s->path, (char *)k, *names);
				return -1;
			}
		}
	}
	return 0;
}

struct lab_suite *lab_suite_load(const char *path, char **err)
{
	GKeyFile *kf = g_key_file_new();
	struct lab_suite *s = g_new0(struct lab_suite, 1);
	GError *e = NULL;
	char **groups;
	int i;

	s->path = g_strdup(path);
	s->tests = g_ptr_array_new_with_free_func(test_free);
	s->suites = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					  (GDestroyNotify)g_strfreev);
	if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, &e)) {
		*err = g_strdup_printf("%s: %s", path, e->message);
		g_error_free(e);
		goto fail;
	}
	groups = g_key_file_get_groups(kf, NULL);
	for (i = 0; groups[i]; i++) {
		if (g_str_has_prefix(groups[i], "test ")) {
			struct lab_test *t = load_test(kf, groups[i], path, err);

			if (!t)
				break;
			g_ptr_array_add(s->tests, t);
		} else if (g_str_has_prefix(groups[i], "suite ")) {
			g_hash_table_insert(s->suites,
					    g_strdup(groups[i] + strlen("suite ")),
					    get_list(kf, groups[i], "tests"));
		} else {
			*err = g_strdup_printf("%s: unknown section [%s] (want [test NAME] or [suite NAME])",
					       path, groups[i]);
			break;
		}
	}
	g_strfreev(groups);
	if (*err || check_suites(s, err) != 0)
		goto fail;
	g_key_file_free(kf);
	return s;
fail:
	g_key_file_free(kf);
	lab_suite_free(s);
	return NULL;
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
