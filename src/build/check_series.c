/* check_series.c - `lab check-series`: support/, bugs/ and fixes/ on a
 * pristine tree; bugs/ + fixes/ must give back pristine + support/ in
 * every file they touch, and every touched file must compile on both
 * kernels with CONFIG_WERROR. */
#include "build/check_series.h"
#include "build/series.h"
#include "build/tree.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Files a patch touches, from its "+++ b/path" lines. */
static void patch_files(const char *patch, GHashTable *set)
{
	gchar *data = NULL;
	gchar **lines;
	int i;

	if (!g_file_get_contents(patch, &data, NULL, NULL))
		return;
	lines = g_strsplit(data, "\n", -1);
	for (i = 0; lines[i]; i++) {
		if (g_str_has_prefix(lines[i], "+++ b/")) {
			char *f = g_strdup(lines[i] + 6);
			char *tab = strchr(f, '\t');

			if (tab)
				*tab = '\0';
			g_hash_table_add(set, g_strstrip(f));
		}
	}
	g_strfreev(lines);
	g_free(data);
}

static int same_file(const char *a, const char *b)
{
	char *argv[] = { "cmp", "-s", (char *)a, (char *)b, NULL };

	return lab_run(argv, NULL, NULL, 60) == 0;
}

/* Copy the touched files of a tree state: what bugs/ + fixes/ must give
 * back (pristine 6.1 plus the shared support/ knobs). */
static int snapshot(const char *work, const char *ref, GHashTable *touched)
{
	GHashTableIter it;
	gpointer f;

	lab_rm_rf(ref);
	g_hash_table_iter_init(&it, touched);
	while (g_hash_table_iter_next(&it, &f, NULL)) {
		char *a = g_build_filename(work, f, NULL);
		char *b = g_build_filename(ref, f, NULL);
		char *dir = g_path_get_dirname(b), *data = NULL;
		gsize len = 0;
		int rc = 0;

		lab_mkdir_p(dir);
		/* a file the bugs create is absent here: "missing" must match */
		if (g_file_get_contents(a, &data, &len, NULL))
			rc = lab_write_file(b, data, (gssize)len);
		g_free(a);
		g_free(b);
		g_free(dir);
		g_free(data);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* Apply the whole stack to a hard-linked copy of a pristine tree (patch(1)
 * replaces files rather than writing through links) and compare. */
static int check_pristine(const char *review, GHashTable *touched)
{
	char *root = lab_path("check");
	char *pristine = g_build_filename(root, "pristine", NULL);
	char *work = g_build_filename(root, "work", NULL);
	char *ref = g_build_filename(root, "ref", NULL);
	char **all = lab_variant_patches(review, "patched");
	char **support = lab_review_series(review, "support", true);
	int n_support = support ? (int)g_strv_length(support) : 0;
	struct lab_tree t = { .lock_fd = -1 };
	GHashTableIter it;
	gpointer f;
	int i, rc = -1, diffs = 0;

	g_strfreev(support);
	if (!all || lab_mkdir_p(root) != 0)
		goto out;
	if (!lab_exists(pristine)) {
		char *tmp = g_strconcat(pristine, ".tmp", NULL);
		char *argv[] = { "tar", "-xf", LAB_KERNEL_TARBALL,
				 "--strip-components=1", "-C", tmp, NULL };

		lab_rm_rf(tmp);
		lab_mkdir_p(tmp);
		if (lab_run(argv, NULL, NULL, 600) != 0 || rename(tmp, pristine) != 0) {
			lab_err("cannot extract a pristine tree into %s", tmp);
			g_free(tmp);
			goto out;
		}
		g_free(tmp);
	}
	lab_rm_rf(work);
	{
		char *argv[] = { "cp", "-al", pristine, work, NULL };

		if (lab_run(argv, NULL, NULL, 600) != 0)
			goto out;
	}
	t.src = work;
	for (i = 0; all[i]; i++) {
		char *out = NULL;
		char *label;

		if (i == n_support && snapshot(work, ref, touched) != 0)
			goto out;
		label = lab_patch_label(all[i]);

		if (lab_tree_patch(&t, all[i], false, false, &out) != 0) {
			lab_err("%s does not apply (after the patches before it):\n%s",
				label, out ? out : "");
			g_free(out);
			g_free(label);
			goto out;
		}
		lab_info("ok %s applies", label);
		g_free(out);
		g_free(label);
	}
	g_hash_table_iter_init(&it, touched);
	while (g_hash_table_iter_next(&it, &f, NULL)) {
		char *a = g_build_filename(ref, f, NULL);
		char *b = g_build_filename(work, f, NULL);

		if (!same_file(a, b)) {
			lab_err("bugs/ + fixes/ do not restore pristine 6.1 (+ support/) in %s",
				(char *)f);
			diffs++;
		}
		g_free(a);
		g_free(b);
	}
	if (diffs == 0)
		lab_info("ok bugs/ + fixes/ restore pristine 6.1%s in all %u touched files",
			 n_support ? " (+ support/)" : "",
			 g_hash_table_size(touched));
	rc = diffs ? -1 : 0;
out:
	t.src = NULL;
	lab_rm_rf(work);
	lab_rm_rf(ref);
	g_strfreev(all);
	g_free(root);
	g_free(pristine);
	g_free(work);
	g_free(ref);
	return rc;
}

/* Build each touched .c file's object in the shared tree, in one state. */
static int compile_touched(struct lab_tree *t, const char *review,
			   const char *v, GHashTable *touched)
{
	char **patches = lab_variant_patches(review, v);
	GHashTableIter it;
	gpointer f;
	int bad = 0;

	if (!patches || lab_tree_goto(t, patches) != 0) {
		g_strfreev(patches);
		return -1;
	}
	g_strfreev(patches);
	g_hash_table_iter_init(&it, touched);
	while (g_hash_table_iter_next(&it, &f, NULL)) {
		char *obj;

		if (!g_str_has_suffix(f, ".c"))
			continue;
		obj = g_strdup(f);
		obj[strlen(obj) - 1] = 'o';
		if (lab_tree_run_make(t, obj, 1200) != 0) {
			char *tail = lab_tail(t->log, 15);

			lab_err("%s: %s does not build with CONFIG_WERROR:\n%s",
				v, obj, tail);
			g_free(tail);
			bad++;
		} else {
			lab_info("ok %s builds on %s", obj, v);
		}
		g_free(obj);
	}
	return bad ? -1 : 0;
}

int lab_check_series(const char *review)
{
	GHashTable *touched = g_hash_table_new_full(g_str_hash, g_str_equal,
						    g_free, NULL);
	char **all = NULL;
	struct lab_tree t = { .lock_fd = -1 };
	int i, rc = 1;

	if (!lab_tarball_present())
		goto out;
	/* the files bugs/ and fixes/ touch (support/ stays, by design) */
	all = lab_variant_patches(review, "patched");
	if (!all)
		goto out;
	{
		char **support = lab_review_series(review, "support", true);

		for (i = support ? (int)g_strv_length(support) : 0; all[i]; i++)
			patch_files(all[i], touched);
		g_strfreev(support);
	}
	lab_phase_begin("check pristine");
	if (check_pristine(review, touched) != 0)
		goto out;
	lab_phase_begin("compile touched files");
	if (lab_tree_open(&t) != 0 || lab_tree_configure(&t, NULL) != 0 ||
	    compile_touched(&t, review, "baseline", touched) != 0 ||
	    compile_touched(&t, review, "patched", touched) != 0)
		goto out;
	rc = 0;
out:
	lab_tree_free(&t);
	g_strfreev(all);
	g_hash_table_destroy(touched);
	return rc;
}

