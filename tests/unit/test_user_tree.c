/* test_user_tree.c - the user's kernel trees: what is a kernel tree (table),
 * a git tree's commits imported into the lab's copy without a write into
 * the user's tree, revisions resolved there, first-parent steps between
 * two commits, a plain directory recorded by content (the same files as a
 * commit: the same content id, so the same kernel key), bad input refused
 * before anything is made, a tree kernel defined and NAME@REV loaded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "build/user_kernel.h"
#include "build/user_tree.h"
#include "util/util.h"

#define MAKEFILE "# SPDX\nVERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n"
#define GIT "git -c user.name=t -c user.email=t@t "

static char *tmp;

static void put(const char *rel, const char *text)
{
	char *p = g_build_filename(tmp, rel, NULL), *d = g_path_get_dirname(p);

	g_mkdir_with_parents(d, 0755);
	assert_true(g_file_set_contents(p, text, -1, NULL));
	g_free(p);
	g_free(d);
}

/* A shell command in the test directory: its stdout, trimmed. */
static char *sh(const char *cmd)
{
	char *full = g_strdup_printf("cd '%s' && %s", tmp, cmd), *out = NULL;
	char *argv[] = { "sh", "-c", full, NULL };
	int rc = lab_run_capture(argv, NULL, &out, 60);

	if (rc != 0)
		fail_msg("%s: exit %d", cmd, rc);
	g_free(full);
	return g_strstrip(out ? out : g_strdup(""));
}

static void kernel_files(const char *dir, const char *makefile)
{
	char *p;

	p = g_build_filename(dir, "Makefile", NULL);
	put(p, makefile);
	g_free(p);
	p = g_build_filename(dir, "Kconfig", NULL);
	put(p, "mainmenu \"t\"\n");
	g_free(p);
	p = g_build_filename(dir, "arch/x86/Kconfig", NULL);
	put(p, "config X86\n\tdef_bool y\n");
	g_free(p);
	p = g_build_filename(dir, "scripts/kconfig/merge_config.sh", NULL);
	put(p, "#!/bin/sh\n");
	g_free(p);
}

static int setup(void **s)
{
	(void)s;
	tmp = g_dir_make_tmp("lab-ut-XXXXXX", NULL);
	setenv("LAB_HOME", tmp, 1);
	/* a git kernel tree of three commits; Debian's .gitignore ignores all */
	kernel_files("kt", MAKEFILE);
	put("kt/.gitignore", "/*\n");
	g_free(sh("git init -q kt && cd kt && git add -A -f && " GIT "commit -qm one && "
		  "echo a > a.c && git add -f a.c && " GIT "commit -qm two && "
		  "echo b > b.c && git add -f b.c && " GIT "commit -qm three"));
	/* the same files as kt's first commit, no git */
	g_free(sh("mkdir plain && git -C kt archive HEAD~2 | tar -x -C plain"));
	kernel_files("nover", "# no version here\n");
	kernel_files("nox86", MAKEFILE);
	g_free(sh("rm nox86/arch/x86/Kconfig"));
	put("nomk/Kconfig", "x\n");
	kernel_files("built", MAKEFILE);
	put("built/.config", "CONFIG_X=y\n");
	return 0;
}

static int teardown(void **s)
{
	(void)s;
	lab_rm_rf(tmp);
	g_free(tmp);
	return 0;
}

static void test_not_kernel(void **s)
{
	static const struct {
		const char *dir, *why;
	} rows[] = {
		{ "kt", NULL }, { "plain", NULL },
		{ "nomk", "it has no Makefile" },
		{ "nover", "sets no VERSION and PATCHLEVEL" },
		{ "nox86", "it has no arch/x86/Kconfig" },
		{ "none", "no such directory" },
	};

	(void)s;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *d = g_build_filename(tmp, rows[i].dir, NULL);
		char *why = lab_user_tree_not_kernel(d);

		if (rows[i].why ? !why || !strstr(why, rows[i].why) : why != NULL)
			fail_msg("%s: '%s', want '%s'", rows[i].dir, why ? why : "(a kernel tree)",
				 rows[i].why ? rows[i].why : "(a kernel tree)");
		g_free(why);
		g_free(d);
	}
}

/* Bad input: 2, and nothing made under $LAB_HOME/trees. */
static void test_bad_input(void **s)
{
	static const struct {
		const char *dir, *rev;
	} rows[] = {
		{ "none", NULL }, { "nomk", NULL }, { "nover", NULL }, { "built", NULL },
		{ "plain", "HEAD" }, { "kt", "nosuch" }, { "kt", "--all" },
	};
	char *trees = lab_path("trees");

	(void)s;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *d = g_build_filename(tmp, rows[i].dir, NULL), *id = NULL, *c = NULL;
		int rc = lab_user_tree_import(d, rows[i].rev, &id, &c);

		if (rc != 2 || c || lab_exists(trees))
			fail_msg("%s --rev %s: rc %d, commit %s, trees made: %d", rows[i].dir,
				 rows[i].rev ? rows[i].rev : "-", rc, c ? c : "-", lab_exists(trees));
		g_free(id);
		g_free(d);
	}
	g_free(trees);
}

static void test_import_git(void **s)
{
	char *kt = g_build_filename(tmp, "kt", NULL), *id = NULL, *c = NULL, *id2 = NULL;
	char *c0 = NULL, *head = sh("git -C kt rev-parse HEAD");
	char *first = sh("git -C kt rev-parse HEAD~2"), *why = NULL, **steps, *r, *t;

	(void)s;
	g_free(sh("touch marker && sleep 1"));
	assert_int_equal(lab_user_tree_import(kt, NULL, &id, &c), 0);
	assert_string_equal(c, head);
	assert_int_equal(lab_user_tree_import(kt, "HEAD~2", &id2, &c0), 0);
	assert_string_equal(id, id2);
	assert_string_equal(c0, first);
	/* nothing written into the user's tree */
	r = sh("find kt -newer marker | head -1");
	assert_string_equal(r, "");
	g_free(r);
	/* revisions resolve in the copy; steps are the commits after good */
	r = lab_user_tree_resolve(id, first);
	assert_string_equal(r, first);
	g_free(r);
	assert_null(lab_user_tree_resolve(id, "nosuch"));
	assert_null(lab_user_tree_resolve(id, "--all"));
	steps = lab_user_tree_steps(id, c0, c, &why);
	assert_non_null(steps);
	assert_int_equal(g_strv_length(steps), 2);
	assert_string_equal(steps[1], head);
	g_strfreev(steps);
	assert_null(lab_user_tree_steps(id, c, c0, &why));
	assert_non_null(strstr(why, "is not an ancestor"));
	g_free(why);
	assert_null(lab_user_tree_steps(id, c, c, &why));
	assert_non_null(strstr(why, "the same commit"));
	g_free(why);
	t = lab_user_tree_title(id, c);
	assert_true(g_str_has_prefix(t, "") && strlen(t) > 13);
	assert_string_equal(t + 13, "three");
	g_free(t);
	g_free(kt);
	g_free(id);
	g_free(id2);
	g_free(c);
	g_free(c0);
	g_free(head);
	g_free(first);
}

static void test_snapshot_and_define(void **s)
{
	char *plain = g_build_filename(tmp, "plain", NULL), *kt = g_build_filename(tmp, "kt", NULL);
	char *id = NULL, *c = NULL, *kid = NULL, *kc = NULL, *head = NULL, *a, *b, *n;
	struct lab_user_kernel_src src = { .name = "mine", .tree = kt };
	struct lab_user_kernel *k;

	(void)s;
	assert_int_equal(lab_user_tree_import(plain, NULL, &id, &c), 0);
	assert_int_equal(lab_user_tree_import(kt, "HEAD~2", &kid, &kc), 0);
	assert_string_not_equal(id, kid); /* one copy per tree */
	a = lab_user_tree_content(id, c);
	b = lab_user_tree_content(kid, kc);
	assert_non_null(a);
	assert_string_equal(a, b); /* same files, same content id */
	g_free(kid);
	assert_int_equal(lab_user_tree_import(kt, NULL, &kid, &head), 0);
	src.tree_id = kid;
	src.commit = head;
	assert_int_equal(lab_user_kernel_define(&src), 0);
	k = lab_user_kernel_load("mine");
	assert_non_null(k);
	assert_string_equal(k->commit, head);
	assert_string_equal(k->tree_id, kid);
	assert_int_equal(g_strv_length(k->patches), 0);
	lab_user_kernel_free(k);
	k = lab_user_kernel_load("mine@~2"); /* relative to mine's commit */
	assert_non_null(k);
	assert_string_equal(k->commit, kc);
	lab_user_kernel_free(k);
	n = g_strdup_printf("mine@%.12s", kc);
	k = lab_user_kernel_load(n);
	assert_non_null(k);
	assert_string_equal(k->commit, kc);
	lab_user_kernel_free(k);
	g_free(n);
	n = g_strdup_printf("mine@%.12s", c); /* the snapshot: not this tree's */
	assert_false(lab_user_kernel_exists(n));
	g_free(n);
	assert_false(lab_user_kernel_exists("mine@~3"));
	assert_false(lab_user_kernel_exists("mine@nosuch"));
	g_free(a);
	g_free(b);
	g_free(id);
	g_free(c);
	g_free(kid);
	g_free(kc);
	g_free(head);
	g_free(plain);
	g_free(kt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_kernel),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_import_git),
		cmocka_unit_test(test_snapshot_and_define),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
