/* test_guests.c - the guests of a topology some tests need: the first
 * guest of each role they run on or use, as `lab up --guests` takes them
 * (isolate and bisect bring up only those). */
#include "jobs/test_guests.h"
#include "core/suite.h"
#include "core/topology.h"
#include "util/util.h"

#include <string.h>

static void add_role_guest(struct lab_topology *t, char **roles, GPtrArray *out,
			   bool first_only)
{
	guint i;

	for (; roles && *roles; roles++) {
		for (i = 0; i < t->guests->len; i++) {
			struct lab_guest *g = g_ptr_array_index(t->guests, i);

			if (strcmp(g->role, *roles) != 0)
				continue;
			if (!g_ptr_array_find_with_equal_func(out, g->name, g_str_equal, NULL))
				g_ptr_array_add(out, g_strdup(g->name));
			if (first_only)
				return;
		}
	}
}

char **lab_test_guests(const char *topology, char **tests, char **err)
{
	char *path = lab_src_path("tests/suite.ini"), *e = NULL;
	struct lab_suite *s = lab_suite_load(path, &e);
	struct lab_topology *t = lab_topology_open(topology);
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	char **n;

	for (n = tests; s && t && *n; n++) {
		const struct lab_test *lt = lab_suite_test(s, *n);

		if (!lt) {
			*err = g_strdup_printf("unknown test '%s' (tests/suite.ini)", *n);
			break;
		}
		add_role_guest(t, lt->roles, out, true);
		add_role_guest(t, lt->peers, out, true);
	}
	if (!s)
		*err = e;
	else
		g_free(e);
	if (!*err && (!t || out->len == 0))
		*err = g_strdup_printf("topology %s has no guest for these tests", topology);
	lab_suite_free(s);
	lab_topology_free(t);
	g_free(path);
	g_ptr_array_add(out, NULL);
	if (*err) {
		g_ptr_array_free(out, TRUE);
		return NULL;
	}
	return (char **)g_ptr_array_free(out, FALSE);
}

