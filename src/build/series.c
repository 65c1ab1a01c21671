/* series.c - the patch series of a review: quilt series files under
 * patches/REVIEW/{support,bugs,fixes}, and which of them make up a kernel
 * (baseline, patched, isolate-NNN). */
#include "build/series.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>

/* "isolate-NNN": the seed, else NULL. */
static const char *isolated_seed(const char *name)
{
	const char *seed = name && g_str_has_prefix(name, "isolate-") ? name + 8 : NULL;

	if (!seed || strlen(seed) != 3 || strspn(seed, "0123456789") != 3)
		return NULL;
	return seed;
}


char **lab_series_read(const char *series_path)
{
	GPtrArray *out = g_ptr_array_new();
	char *dir = g_path_get_dirname(series_path);
	gchar *data = NULL;
	gchar **lines;
	int i;

	if (!g_file_get_contents(series_path, &data, NULL, NULL)) {
		lab_err("cannot read series file %s", series_path);
		g_free(dir);
		g_ptr_array_free(out, TRUE);
		return NULL;
	}
	lines = g_strsplit(data, "\n", -1);
	for (i = 0; lines[i]; i++) {
		/* quilt: "name [-pN]" with '#' comments */
		char *line = g_strstrip(lines[i]);
		char **words;

		if (*line == '\0' || *line == '#')
			continue;
		words = g_strsplit_set(line, " \t", 2);
		g_ptr_array_add(out, g_build_filename(dir, words[0], NULL));
		g_strfreev(words);
	}
	g_ptr_array_add(out, NULL);
	g_strfreev(lines);
	g_free(data);
	g_free(dir);
	return (char **)g_ptr_array_free(out, FALSE);
}

/* Patches of one series of a review, as paths; an optional series that is
 * absent is empty. NULL (message printed) on error. */
char **lab_review_series(const char *review, const char *name,
			    bool optional)
{
	char *path = g_build_filename(lab_srcdir(), "patches", review, name,
				      "series", NULL);
	char **out;

	if (optional && !lab_exists(path))
		out = g_new0(char *, 1);
	else
		out = lab_series_read(path);
	g_free(path);
	return out;
}

/* The default review's bugs/ has a patch for SEED. */
static bool seed_has_bug(const char *seed)
{
	char **bugs = lab_review_series(LAB_REVIEW_DEFAULT, "bugs", false);
	char *prefix = g_strdup_printf("%s-", seed);
	bool found = false;

	for (int i = 0; bugs && bugs[i] && !found; i++) {
		char *base = g_path_get_basename(bugs[i]);

		found = g_str_has_prefix(base, prefix);
		g_free(base);
	}
	g_free(prefix);
	g_strfreev(bugs);
	return found;
}

bool lab_kernel_name_valid(const char *name)
{
	const char *seed = isolated_seed(name);

	return name && (!strcmp(name, "baseline") || !strcmp(name, "patched") ||
			!strcmp(name, "debian") || (seed && seed_has_bug(seed)));
}

static void append_all(GPtrArray *all, char **list)
{
	int i;

	for (i = 0; list[i]; i++)
		g_ptr_array_add(all, g_strdup(list[i]));
}

/* Keep only bugs/NNN-*.patch of a series (an isolated kernel). */
static char **only_seed(char **bugs, const char *seed)
{
	GPtrArray *out = g_ptr_array_new();
	char *prefix = g_strdup_printf("%s-", seed);
	int i;

	for (i = 0; bugs && bugs[i]; i++) {
		char *base = g_path_get_basename(bugs[i]);

		if (g_str_has_prefix(base, prefix))
			g_ptr_array_add(out, g_strdup(bugs[i]));
		g_free(base);
	}
	g_free(prefix);
	if (out->len == 0) {
		lab_err("there is no bugs/%s-*.patch to isolate", seed);
		g_ptr_array_free(out, TRUE);
		return NULL;
	}
	g_ptr_array_add(out, NULL);
	g_strfreev(bugs);
	return (char **)g_ptr_array_free(out, FALSE);
}

/* The patch files making up a kernel, in push order: support/ (test knobs
 * both kernels share), bugs/ (all, or one seed's), and for patched
 * fixes/. */
char **lab_variant_patches(const char *review, const char *name)
{
	const char *seed = isolated_seed(name);
	bool patched = name && !strcmp(name, "patched");
	char **support = lab_review_series(review, "support", true);
	char **bugs = support ? lab_review_series(review, "bugs", false) : NULL;
	char **fixes = bugs && patched ? lab_review_series(review, "fixes", false) : NULL;
	GPtrArray *all = NULL;

	if (bugs && seed)
		bugs = only_seed(bugs, seed);
	if (bugs && (!patched || fixes)) {
		all = g_ptr_array_new();
		append_all(all, support);
		append_all(all, bugs);
		if (fixes)
			append_all(all, fixes);
		g_ptr_array_add(all, NULL);
	}
	g_strfreev(support);
	g_strfreev(bugs);
	g_strfreev(fixes);
	return all ? (char **)g_ptr_array_free(all, FALSE) : NULL;
}

/* Name a patch by its last two path parts: "bugs/001-x.patch". */
char *lab_patch_label(const char *path)
{
	char *base = g_path_get_basename(path);
	char *dir = g_path_get_dirname(path);
	char *dbase = g_path_get_basename(dir);
	char *label = g_build_filename(dbase, base, NULL);

	g_free(base);
	g_free(dir);
	g_free(dbase);
	return label;
}

