/* test_user_kernel.c - the user's kernels: names (built-in ones refused),
 * series read from a quilt series file or a `git format-patch` directory
 * (cover letter left out, order kept), non-diffs named, a definition
 * written and loaded again, NAME@N as a prefix of its series. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "build/user_kernel.h"
#include "util/util.h"

#define DIFF "--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n"

static char *tmp;

static void put(const char *rel, const char *text)
{
	char *p = g_build_filename(tmp, rel, NULL), *d = g_path_get_dirname(p);

	g_mkdir_with_parents(d, 0755);
	assert_true(g_file_set_contents(p, text, -1, NULL));
	g_free(p);
	g_free(d);
}

static int setup(void **s)
{
	(void)s;
	tmp = g_dir_make_tmp("lab-uk-XXXXXX", NULL);
	setenv("LAB_HOME", tmp, 1);
	put("fp/0000-cover-letter.patch", "Subject: [PATCH 0/2] cover\n");
	put("fp/0002-second.patch", "Subject: [PATCH 2/2] second\n---\n" DIFF);
	put("fp/0001-first.patch", "From: x\nSubject: [PATCH 1/2] first\n---\n" DIFF);
	put("q/series", "# a quilt series\nb.patch -p1\n\na.patch\n");
	put("q/a.patch", DIFF);
	put("q/b.patch", DIFF);
	put("bad/series", "a.patch\nnot.patch\n");
	put("bad/a.patch", DIFF);
	put("bad/not.patch", "just words\n");
	put("empty/README", "nothing\n");
	return 0;
}

static int teardown(void **s)
{
	(void)s;
	lab_rm_rf(tmp);
	g_free(tmp);
	return 0;
}

static void test_names(void **s)
{
	static const struct {
		const char *name;
		int ok;
	} rows[] = {
		{ "queue-6.1.y", 0 }, { "my_series2", 0 }, { "baseline", -1 }, { "patched", -1 },
		{ "debian", -1 }, { "all", -1 }, { "isolate-010", -1 }, { "-x", -1 }, { "a/b", -1 },
		{ "a@1", -1 }, { "", -1 }, { "abcdefghijklmnopqrstuvwxyz0123456", -1 },
	};

	(void)s;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *why = NULL;
		int got = lab_user_kernel_name_check(rows[i].name, &why);

		if (got != rows[i].ok)
			fail_msg("'%s': %d, want %d (%s)", rows[i].name, got, rows[i].ok,
				 why ? why : "");
		g_free(why);
	}
}

static void test_series(void **s)
{
	static const struct {
		const char *path, *first, *second, *err;
	} rows[] = {
		{ "fp", "0001-first.patch", "0002-second.patch", NULL },
		{ "q/series", "b.patch", "a.patch", NULL },
		{ "q", "b.patch", "a.patch", NULL }, /* a directory with a series file */
		{ "bad/series", NULL, NULL, "patch 2 of the series" },
		{ "empty", NULL, NULL, "no *.patch files" },
		{ "none", NULL, NULL, "no such series file or directory" },
	};

	(void)s;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *p = g_build_filename(tmp, rows[i].path, NULL), *err = NULL;
		char **list = lab_user_series_read(p, &err);

		if (rows[i].err) {
			assert_null(list);
			if (!err || !strstr(err, rows[i].err))
				fail_msg("%s: error '%s', want '%s'", rows[i].path, err ? err : "",
					 rows[i].err);
		} else {
			if (!list)
				fail_msg("%s: %s", rows[i].path, err ? err : "no list");
			assert_int_equal(g_strv_length(list), 2);
			assert_true(g_path_is_absolute(list[0]));
			assert_true(g_str_has_suffix(list[0], rows[i].first));
			assert_true(g_str_has_suffix(list[1], rows[i].second));
		}
		g_strfreev(list);
		g_free(err);
		g_free(p);
	}
}

static void test_define_load(void **s)
{
	char *fp = g_build_filename(tmp, "fp", NULL);
	struct lab_user_kernel_src src = { .name = "mine", .series = fp, .base = "patched" };
	struct lab_user_kernel *k, *k1;
	char **names;

	(void)s;
	assert_int_equal(lab_user_kernel_define(&src), 0);
	k = lab_user_kernel_load("mine");
	assert_non_null(k);
	assert_string_equal(k->base, "patched");
	assert_int_equal(k->total, 2);
	assert_int_equal(k->prefix, -1);
	assert_true(g_str_has_suffix(k->patches[0], "patches/0001-first.patch"));
	assert_true(g_str_has_suffix(k->patches[1], "patches/0002-second.patch"));
	k1 = lab_user_kernel_load("mine@1");
	assert_non_null(k1);
	assert_int_equal(g_strv_length(k1->patches), 1);
	assert_true(lab_user_kernel_exists("mine@0"));
	assert_false(lab_user_kernel_exists("mine@3"));
	assert_false(lab_user_kernel_exists("mine@x"));
	assert_false(lab_user_kernel_exists("other"));
	names = lab_user_kernel_names();
	assert_int_equal(g_strv_length(names), 1);
	assert_string_equal(names[0], "mine");
	/* a bad name defines nothing */
	src.name = "baseline";
	assert_int_equal(lab_user_kernel_define(&src), 2);
	assert_false(lab_user_kernel_exists("baseline"));
	g_strfreev(names);
	lab_user_kernel_free(k);
	lab_user_kernel_free(k1);
	g_free(fp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_define_load),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
