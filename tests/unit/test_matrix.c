/* test_matrix.c - the interop matrix of a real run (tests/unit/runs/interop:
 * the features group against knfsd, knfsd on Debian's kernel and
 * NFS-Ganesha, v3 to v4.2): cell words, the cells that are not a pass,
 * every skipped check with its reason and cells, what each server runs, and
 * the same facts in matrix.json and matrix.html. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/matrix.h"
#include "util/util.h"

static char *written(const char *dir, const char *name)
{
	char *p = g_build_filename(dir, name, NULL), *text = NULL;

	assert_true(g_file_get_contents(p, &text, NULL, NULL));
	g_free(p);
	return text;
}

/* Without spaces and newlines: matrix.json is pretty-printed. */
static char *flat(const char *s)
{
	gchar **parts = g_strsplit_set(s, " \n", -1), *out = g_strjoinv("", parts);

	g_strfreev(parts);
	return out;
}

static void test_features_matrix(void **state)
{
	static const struct {
		const char *file, *want;
	} rows[] = {
		/* the grid: an all-skip cell says skip; a pass says its skips */
		{ "matrix.txt", "knfsd          features   skip          skip          pass, 4 skip  pass, 1 skip" },
		{ "matrix.txt", "ganesha        features   skip          skip          pass, 4 skip  pass, 4 skip" },
		{ "matrix.txt", "12 cells: 6 pass, 6 skip; 18 checks skipped inside passing cells" },
		/* the reason is the program's own result line: its word once */
		{ "matrix.txt", "  knfsd v3 features: skip: 0 passed, 0 failed, 5 skipped\n" },
		/* a reason once, with every cell that gave it; no check time */
		{ "matrix.txt", "  features/xattr: setxattr: EOPNOTSUPP (the server does not support "
				"extended attributes (RFC 8276))\n    (ganesha v4.2)\n" },
		{ "matrix.txt", "  features/copy-whole: an 8 MiB file copied whole: bytes right, copied "
				"by the client: the server refused COPY\n    (ganesha v4.2)\n" },
		{ "matrix.txt", "  features/session-parallel: sessions and their slots came with NFSv4.1\n"
				"    (knfsd v3, knfsd v4.0, knfsd-debian v3, knfsd-debian v4.0, "
				"ganesha v3, ganesha v4.0)\n" },
		/* what each server runs, and the time its cells took */
		{ "matrix.txt", "  knfsd          kernel 6.1.192, knfsd; its cells took" },
		{ "matrix.txt", "  ganesha        (what it runs was not asked); its cells took" },
		{ "matrix.json", "\"knfsd\":\"kernel 6.1.192, knfsd\"" },
		{ "matrix.json", "\"skips\":[\"features/copy-whole: an 8 MiB file copied whole" },
		{ "matrix.html", "<small class=\"why\">features/xattr: setxattr: EOPNOTSUPP" },
		{ "matrix.html", "<li>knfsd: kernel 6.1.192, knfsd</li>" },
	};
	char *dir = g_dir_make_tmp("lab-matrix-XXXXXX", NULL);
	char *run = g_build_filename(lab_srcdir(), "tests/unit/runs/interop", NULL);
	GHashTable *sw = g_hash_table_new(g_str_hash, g_str_equal);

	(void)state;
	g_hash_table_insert(sw, "knfsd", "kernel 6.1.192, knfsd");
	assert_int_equal(lab_matrix_write(dir, run, sw), 0);
	for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
		char *text = written(dir, rows[i].file);
		bool json = !strcmp(rows[i].file, "matrix.json");
		char *have = json ? flat(text) : g_strdup(text), *want = json ? flat(rows[i].want)
										: g_strdup(rows[i].want);

		if (!strstr(have, want))
			fail_msg("%s lacks: %s", rows[i].file, rows[i].want);
		g_free(have);
		g_free(want);
		g_free(text);
	}
	/* every cell is either a pass or listed with its reason: none here passes all */
	{
		char *text = written(dir, "matrix.txt");

		assert_null(strstr(text, "and why:\n  none"));
		g_free(text);
	}
	lab_rm_rf(dir);
	g_hash_table_destroy(sw);
	g_free(run);
	g_free(dir);
}

/* A failed cell names its failed check and why (tests/unit/runs/
 * interop-reboot: the reboot group on knfsd before the image let sm-notify
 * run, v3's lock was lost). */
static void test_failed_check_named(void **state)
{
	char *dir = g_dir_make_tmp("lab-matrix-XXXXXX", NULL);
	char *run = g_build_filename(lab_srcdir(), "tests/unit/runs/interop-reboot", NULL);
	char *text, *json;

	(void)state;
	assert_int_equal(lab_matrix_write(dir, run, NULL), 0);
	text = written(dir, "matrix.txt");
	json = written(dir, "matrix.json");
	if (!strstr(text, "knfsd          reboot     fail          -             -             pass"))
		fail_msg("grid: %s", text);
	if (!strstr(text, "  knfsd v3 reboot: fail: ") ||
	    !strstr(text, "\n    failed reboot/lock-reclaimed: the lock was lost: after the server's "
			  "reboot the peer got [50, 60)"))
		fail_msg("the failed check is not named: %s", text);
	assert_non_null(strstr(json, "\"fails\""));
	lab_rm_rf(dir);
	g_free(text);
	g_free(json);
	g_free(run);
	g_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_features_matrix),
		cmocka_unit_test(test_failed_check_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
