/* user_kernel.c - the definitions of the user's named kernels (see
 * user_kernel.h): read, checked, written under $LAB_HOME/named-kernels. */
#include "build/user_kernel.h"
#include "build/series.h"
#include "build/user_tree.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFS "named-kernels"

bool lab_kernel_name_reserved(const char *name)
{
	static const char *const fixed[] = { "baseline", "patched", "debian", "all", NULL };

	return g_strv_contains(fixed, name) || g_str_has_prefix(name, "isolate-");
}

int lab_user_kernel_name_check(const char *name, char **why)
{
	size_t n = strlen(name);

	if (lab_kernel_name_reserved(name))
		*why = g_strdup_printf("'%s' is a built-in kernel's name (baseline, patched, "
				       "debian, all, isolate-NNN)", name);
	else if (n == 0 || n > LAB_USER_KERNEL_NAME_MAX)
		*why = g_strdup_printf("a kernel name has 1 to %d characters",
				       LAB_USER_KERNEL_NAME_MAX);
	else if (!g_ascii_isalnum(name[0]) ||
		 strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			      "0123456789._-") != n)
		*why = g_strdup_printf("'%s': a kernel name is letters, digits, '.', '_' and "
				       "'-', starting with a letter or digit", name);
	else
		return 0;
	return -1;
}

/* NAME@N: *def gets NAME, *n gets N; -1 when there is no "@". */
static int split_prefix(const char *name, char **def, int *n)
{
	const char *at = strrchr(name, '@');

	*def = g_strndup(name, at ? (gsize)(at - name) : strlen(name));
	*n = -1;
	if (at && lab_parse_count(at + 1, 0, 9999, n) != 0)
		*n = -2; /* NAME@junk */
	return at ? 0 : -1;
}

static char *def_dir(const char *def)
{
	char *rel = g_build_filename(DEFS, def, NULL), *dir = lab_path(rel);

	g_free(rel);
	return dir;
}

void lab_user_kernel_free(struct lab_user_kernel *k)
{
	if (!k)
		return;
	g_free(k->name);
	g_free(k->def);
	g_free(k->base);
	g_strfreev(k->patches);
	g_free(k->config);
	g_free(k->source);
	g_free(k->defined);
	g_free(k->tree);
	g_free(k->tree_id);
	g_free(k->commit);
	g_free(k);
}

/* kernel.ini of a definition into K; -1 with a message when damaged. */
static int load_ini(struct lab_user_kernel *k, const char *dir)
{
	char *ini = g_build_filename(dir, "kernel.ini", NULL);
	char *series = g_build_filename(dir, "series", NULL);
	GKeyFile *kf = g_key_file_new();
	char *cfg = NULL;
	int rc = -1;

	if (!g_key_file_load_from_file(kf, ini, G_KEY_FILE_NONE, NULL)) {
		lab_err("%s: cannot read it (remove %s and define the kernel again)", ini, dir);
		goto out;
	}
	k->base = g_key_file_get_string(kf, "kernel", "base", NULL);
	if (k->base && !*k->base) {
		g_free(k->base);
		k->base = NULL;
	}
	k->source = g_key_file_get_string(kf, "kernel", "series", NULL);
	k->defined = g_key_file_get_string(kf, "kernel", "defined", NULL);
	cfg = g_key_file_get_string(kf, "kernel", "config", NULL);
	if (cfg && *cfg)
		k->config = g_build_filename(dir, cfg, NULL);
	k->tree = g_key_file_get_string(kf, "kernel", "tree", NULL);
	if (k->tree && *k->tree) {
		k->tree_id = g_key_file_get_string(kf, "kernel", "tree_id", NULL);
		k->commit = g_key_file_get_string(kf, "kernel", "commit", NULL);
		k->patches = g_new0(char *, 1); /* a commit, no series */
		rc = k->tree_id && k->commit ? 0 : -1;
		if (rc != 0)
			lab_err("%s: a tree kernel without tree_id or commit (remove %s and "
				"define the kernel again)", ini, dir);
		goto out;
	}
	g_free(k->tree);
	k->tree = NULL;
	k->patches = lab_series_read(series);
	if (k->patches)
		rc = 0;
out:
	g_key_file_free(kf);
	g_free(ini);
	g_free(series);
	g_free(cfg);
	return rc;
}

struct lab_user_kernel *lab_user_kernel_load(const char *name)
{
	struct lab_user_kernel *k = g_new0(struct lab_user_kernel, 1);
	char *dir = NULL, *ini = NULL;
	int n;

	split_prefix(name, &k->def, &n);
	k->name = g_strdup(name);
	k->prefix = n;
	dir = def_dir(k->def);
	ini = g_build_filename(dir, "kernel.ini", NULL);
	if (lab_kernel_name_reserved(k->def) || strchr(k->def, '/') ||
	    !*k->def || !lab_exists(ini) || load_ini(k, dir) != 0)
		goto bad;
	if (k->tree) { /* NAME@REV: the tree at another commit */
		const char *at = strrchr(name, '@');
		/* NAME@~N, NAME@^: relative to NAME's own commit */
		char *rev = at ? (strchr("~^", at[1]) && at[1] ? g_strconcat(k->commit, at + 1, NULL)
				  : g_strdup(at + 1)) : NULL;
		char *c = rev ? lab_user_tree_resolve(k->tree_id, rev) : NULL;

		g_free(rev);

		if (at && !c)
			goto bad;
		if (c) {
			g_free(k->commit);
			k->commit = c;
		}
		k->prefix = -1;
		goto done;
	}
	if (n == -2)
		goto bad;
	k->total = g_strv_length(k->patches);
	if (n > (int)k->total)
		goto bad;
	if (n >= 0) {
		g_free(k->patches[n]);
		for (guint i = n + 1; i <= k->total; i++) {
			g_free(k->patches[i]);
			k->patches[i] = NULL;
		}
		k->patches[n] = NULL;
	}
done:
	g_free(dir);
	g_free(ini);
	return k;
bad:
	g_free(dir);
	g_free(ini);
	lab_user_kernel_free(k);
	return NULL;
}

bool lab_user_kernel_exists(const char *name)
{
	struct lab_user_kernel *k = lab_user_kernel_load(name);

	lab_user_kernel_free(k);
	return k != NULL;
}

/* A unified diff: a "--- " line followed by a "+++ " line and a hunk. */
static bool is_diff(const char *data)
{
	const char *m = g_str_has_prefix(data, "--- ") ? data : strstr(data, "\n--- ");

	return m && strstr(m, "\n+++ ") && strstr(m, "\n@@ ");
}

static gint by_name(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .patch file of DIR in name order, a cover letter left out. */
static char **dir_patches(const char *dir, char **err)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	GPtrArray *out = g_ptr_array_new();
	const char *n;

	if (!d) {
		*err = g_strdup_printf("%s: cannot read the directory", dir);
		g_ptr_array_free(out, TRUE);
		return NULL;
	}
	while ((n = g_dir_read_name(d)))
		if (g_str_has_suffix(n, ".patch") && !strstr(n, "cover-letter"))
			g_ptr_array_add(out, g_build_filename(dir, n, NULL));
	g_dir_close(d);
	g_ptr_array_sort(out, by_name);
	if (out->len == 0)
		*err = g_strdup_printf("%s: no *.patch files (and no series file)", dir);
	g_ptr_array_add(out, NULL);
	if (*err) {
		g_strfreev((char **)g_ptr_array_free(out, FALSE));
		return NULL;
	}
	return (char **)g_ptr_array_free(out, FALSE);
}

char **lab_user_series_read(const char *path, char **err)
{
	char *series = NULL, **list;

	*err = NULL;
	if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
		series = g_build_filename(path, "series", NULL);
		list = lab_exists(series) ? lab_series_read(series) : dir_patches(path, err);
	} else if (!lab_exists(path)) {
		*err = g_strdup_printf("%s: no such series file or directory", path);
		return NULL;
	} else {
		list = lab_series_read(path);
	}
	g_free(series);
	if (!list && !*err)
		*err = g_strdup_printf("%s: cannot read it", path);
	for (int i = 0; list && list[i]; i++) { /* patch(1) runs in the tree */
		char *abs = g_canonicalize_filename(list[i], NULL);

		g_free(list[i]);
		list[i] = abs;
	}
	for (int i = 0; list && list[i] && !*err; i++) {
		gchar *data = NULL;

		if (!g_file_get_contents(list[i], &data, NULL, NULL))
			*err = g_strdup_printf("%s: patch %d of the series, %s, cannot be read",
					       path, i + 1, list[i]);
		else if (!is_diff(data))
			*err = g_strdup_printf("%s: patch %d of the series, %s, is not a unified "
					       "diff (no ---/+++/@@ lines)", path, i + 1, list[i]);
		g_free(data);
	}
	if (list && !list[0] && !*err)
		*err = g_strdup_printf("%s: the series has no patches", path);
	if (*err) {
		g_strfreev(list);
		return NULL;
	}
	return list;
}

/* A config fragment: CONFIG_X=V, "# CONFIG_X is not set", comments. */
static int fragment_check(const char *path, char **err)
{
	gchar *data = NULL, **lines;
	int rc = 0;

	if (!g_file_get_contents(path, &data, NULL, NULL)) {
		*err = g_strdup_printf("%s: cannot read the config fragment", path);
		return -1;
	}
	lines = g_strsplit(data, "\n", -1);
	for (int i = 0; lines[i] && rc == 0; i++) {
		const char *l = g_strstrip(lines[i]);

		if (!*l || (l[0] == '#' && !g_str_has_prefix(l, "# CONFIG_")) ||
		    (g_str_has_prefix(l, "CONFIG_") && strchr(l, '=')) ||
		    (g_str_has_prefix(l, "# CONFIG_") && g_str_has_suffix(l, " is not set")))
			continue;
		*err = g_strdup_printf("%s:%d: not a config line (CONFIG_X=V or "
				       "\"# CONFIG_X is not set\"): %s", path, i + 1, l);
		rc = -1;
	}
	g_strfreev(lines);
	g_free(data);
	return rc;
}

static int copy_to(const char *from, const char *to)
{
	gchar *data = NULL;
	gsize len = 0;
	int rc = g_file_get_contents(from, &data, &len, NULL) ? lab_write_file(to, data, len) : -1;

	g_free(data);
	return rc;
}

static char *now_utc(void)
{
	GDateTime *t = g_date_time_new_now_utc();
	char *s = g_date_time_format(t, "%Y-%m-%dT%H:%M:%SZ");

	g_date_time_unref(t);
	return s;
}

/* Write the definition into TMP: copies numbered in order, series,
 * kernel.ini. */
static int write_def(const struct lab_user_kernel_src *src, char **patches, const char *tmp)
{
	GString *series = g_string_new("# copied by lab build from the series the user gave\n");
	GKeyFile *kf = g_key_file_new();
	char *p = g_build_filename(tmp, "patches", NULL), *when = now_utc();
	char *abs = src->series ? g_canonicalize_filename(src->series, NULL) : g_strdup("");
	int rc = lab_mkdir_p(p);

	g_free(p);

	for (int i = 0; rc == 0 && patches[i]; i++) {
		char *base = g_path_get_basename(patches[i]);
		/* numbered: order survives, two patches of one name do not clash */
		char *name = g_strdup_printf("%04d-%s", i + 1,
					     g_ascii_isdigit(base[0]) && strchr(base, '-') ?
					     strchr(base, '-') + 1 : base);

		p = g_build_filename(tmp, "patches", name, NULL);
		rc = copy_to(patches[i], p);
		g_string_append_printf(series, "patches/%s\n", name);
		g_free(p);
		g_free(name);
		g_free(base);
	}
	g_key_file_set_string(kf, "kernel", "base", src->base ? src->base : "");
	g_key_file_set_string(kf, "kernel", "series", abs);
	g_key_file_set_string(kf, "kernel", "defined", when);
	if (src->tree) {
		g_key_file_set_string(kf, "kernel", "tree", src->tree);
		g_key_file_set_string(kf, "kernel", "tree_id", src->tree_id);
		g_key_file_set_string(kf, "kernel", "commit", src->commit);
	}
	if (src->config) {
		g_key_file_set_string(kf, "kernel", "config", "config.fragment");
		p = g_build_filename(tmp, "config.fragment", NULL);
		if (rc == 0)
			rc = copy_to(src->config, p);
		g_free(p);
	}
	if (rc == 0) {
		gchar *ini = g_key_file_to_data(kf, NULL, NULL);

		p = g_build_filename(tmp, "series", NULL);
		rc = lab_write_file(p, series->str, series->len);
		g_free(p);
		p = g_build_filename(tmp, "kernel.ini", NULL);
		if (rc == 0)
			rc = lab_write_file(p, ini, -1);
		g_free(p);
		g_free(ini);
	}
	g_key_file_free(kf);
	g_string_free(series, TRUE);
	g_free(when);
	g_free(abs);
	return rc;
}

int lab_user_kernel_define(const struct lab_user_kernel_src *src)
{
	char *why = NULL, **patches = NULL, *dir = NULL, *tmp = NULL;
	int rc = 2;

	if (lab_user_kernel_name_check(src->name, &why) != 0) {
		lab_err("build: %s", why);
		goto out;
	}
	if (src->tree)
		patches = g_new0(char *, 1);
	else if (!(patches = lab_user_series_read(src->series, &why))) {
		lab_err("build %s: --series %s", src->name, why);
		goto out;
	}
	if (src->config && fragment_check(src->config, &why) != 0) {
		lab_err("build %s: --config %s", src->name, why);
		goto out;
	}
	dir = def_dir(src->name);
	tmp = g_strdup_printf("%s.tmp-%ld", dir, (long)getpid());
	lab_rm_rf(tmp);
	rc = 1;
	if (write_def(src, patches, tmp) != 0) {
		lab_err("build %s: cannot write %s", src->name, tmp);
		lab_rm_rf(tmp);
		goto out;
	}
	lab_rm_rf(dir);
	if (rename(tmp, dir) != 0) {
		lab_err("rename %s: %s", tmp, strerror(errno));
		lab_rm_rf(tmp);
		goto out;
	}
	if (src->tree)
		lab_info("kernel %s: %s at %.12s%s", src->name, src->tree, src->commit,
			 src->config ? " (+ config fragment)" : "");
	else
		lab_info("kernel %s: %u patches from %s%s%s%s", src->name,
			 g_strv_length(patches), src->series, src->base ? " on " :
			 " on linux-source-6.1", src->base ? src->base : "",
			 src->config ? " (+ config fragment)" : "");
	rc = 0;
out:
	g_free(why);
	g_strfreev(patches);
	g_free(dir);
	g_free(tmp);
	return rc;
}

char **lab_user_kernel_names(void)
{
	char *root = lab_path(DEFS);
	GDir *d = g_dir_open(root, 0, NULL);
	GPtrArray *out = g_ptr_array_new();
	const char *n;

	while (d && (n = g_dir_read_name(d)))
		if (!strstr(n, ".tmp-"))
			g_ptr_array_add(out, g_strdup(n));
	if (d)
		g_dir_close(d);
	g_free(root);
	g_ptr_array_sort(out, by_name);
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}
