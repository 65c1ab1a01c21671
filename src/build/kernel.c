/* kernel.c - `lab build`: a named kernel (its series, see series.h) built
 * in the shared tree (tree.h) and stored under $LAB_HOME/kernels/KEY, KEY
 * being a hash of the tarball, the series and the config fragment, so an
 * unchanged input is a cache hit. */
#include "build/kernel.h"
#include "build/image.h"
#include "build/series.h"
#include "build/tree.h"
#include "build/user_kernel.h"
#include "build/user_tree.h"
#include "util/util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bases are followed at most this deep: a longer chain is a loop. */
#define BASE_DEPTH 16

static char **patches_at(const char *review, const char *name, int depth)
{
	struct lab_user_kernel *k;
	char **base = NULL, **all = NULL;

	if (!lab_user_kernel_exists(name))
		return lab_variant_patches(review, name);
	if (depth >= BASE_DEPTH) {
		lab_err("kernel %s: its bases go round in a circle", name);
		return NULL;
	}
	k = lab_user_kernel_load(name);
	base = k->base ? patches_at(review, k->base, depth + 1) : g_new0(char *, 1);
	if (base) {
		GStrvBuilder *b = g_strv_builder_new();

		g_strv_builder_addv(b, (const char **)base);
		g_strv_builder_addv(b, (const char **)k->patches);
		all = g_strv_builder_end(b);
		g_strv_builder_unref(b);
	}
	g_strfreev(base);
	lab_user_kernel_free(k);
	return all;
}

char **lab_kernel_patches(const char *review, const char *name)
{
	return patches_at(review, name, 0);
}

char **lab_kernel_fragments(const char *name)
{
	GPtrArray *out = g_ptr_array_new();
	char *n = g_strdup(name);

	for (int depth = 0; n && depth < BASE_DEPTH; depth++) {
		struct lab_user_kernel *k = lab_user_kernel_load(n);

		g_free(n);
		n = NULL;
		if (!k)
			break;
		if (k->config)
			g_ptr_array_insert(out, 0, g_strdup(k->config)); /* the base's first */
		n = g_strdup(k->base);
		lab_user_kernel_free(k);
	}
	g_free(n);
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

/* The tree kernel at the bottom of NAME's base chain (NAME itself or a
 * base), or NULL: the chain starts from linux-source-6.1. */
static struct lab_user_kernel *chain_tree(const char *name)
{
	char *n = g_strdup(name);

	for (int depth = 0; n && depth < BASE_DEPTH; depth++) {
		struct lab_user_kernel *k = lab_user_kernel_load(n);

		g_free(n);
		n = NULL;
		if (!k || k->tree)
			return k;
		n = g_strdup(k->base);
		lab_user_kernel_free(k);
	}
	g_free(n);
	return NULL;
}

/* What NAME's source is, for its key: the tarball's identity, or the
 * content of the user's commit (one content, one key). */
static char *source_identity(const char *name)
{
	struct lab_user_kernel *k = chain_tree(name);
	char *id, *content;

	if (!k)
		return lab_tarball_identity();
	content = lab_user_tree_content(k->tree_id, k->commit);
	id = content ? g_strdup_printf("tree %s", content) : NULL;
	if (!content)
		lab_err("kernel %s: commit %.12s is not in the lab's copy of %s (define it "
			"again: `lab build %s --tree %s`)", name, k->commit, k->tree, k->def,
			k->tree);
	g_free(content);
	lab_user_kernel_free(k);
	return id;
}

/* Open the tree NAME builds in: the one linux-source-6.1 tree, or the
 * lab's copy of the user's tree at NAME's commit. */
static int open_for(struct lab_tree *t, const char *name)
{
	struct lab_user_kernel *k = name ? chain_tree(name) : NULL;
	int rc;

	if (!k)
		return lab_tree_open(t);
	{
		char *what = g_strdup_printf("%s at %.12s", k->tree, k->commit);

		rc = lab_user_tree_open(t, k->tree_id, k->commit, what);
		g_free(what);
	}
	lab_user_kernel_free(k);
	return rc;
}

bool lab_kernel_known(const char *name)
{
	return name && (lab_kernel_name_valid(name) || lab_user_kernel_exists(name));
}

char *lab_kernel_key(const char *review, const char *name)
{
	char **patches = lab_kernel_patches(review, name);
	char **extra = lab_kernel_fragments(name);
	char *frag = lab_fragment_path();
	char *ident = source_identity(name);
	lab_hash *h;
	char *key = NULL;
	int i;

	if (!patches || !ident)
		goto out;
	h = lab_hash_new();
	lab_hash_str(h, LAB_KERNEL_RECIPE);
	lab_hash_str(h, ident);
	if (lab_hash_file(h, frag) != 0)
		goto bad;
	for (i = 0; extra[i]; i++) { /* none for the built-in kernels */
		lab_hash_str(h, "fragment");
		if (lab_hash_file(h, extra[i]) != 0)
			goto bad;
	}
	for (i = 0; patches[i]; i++) {
		char *label = lab_patch_label(patches[i]);

		lab_hash_str(h, label);
		g_free(label);
		if (lab_hash_file(h, patches[i]) != 0)
			goto bad;
	}
	key = lab_hash_finish(h, LAB_KERNEL_KEY_LEN);
	goto out;
bad:
	g_free(lab_hash_finish(h, 1));
out:
	g_strfreev(patches);
	g_strfreev(extra);
	g_free(frag);
	g_free(ident);
	return key;
}

char *lab_kernel_dir(const char *review, const char *name)
{
	char *key;

	if (name && !strcmp(name, "debian"))
		return lab_image_kernel_dir(); /* Debian's own, from the image */
	key = lab_kernel_key(review, name);
	char *rel, *dir, *bz;

	if (!key)
		return NULL;
	rel = g_build_filename("kernels", key, NULL);
	dir = lab_path(rel);
	bz = g_build_filename(dir, "bzImage", NULL);
	g_free(rel);
	g_free(key);
	if (!lab_exists(bz)) {
		lab_err("the %s kernel for the current series is not built in %s: run `lab build %s`%s",
			name, lab_home(), name, geteuid() == 0 ? "" :
			" (lab builds and runs guests as root; for other users LAB_HOME is "
			"~/.cache/lab, where root's kernels are not)");
		g_free(bz);
		g_free(dir);
		return NULL;
	}
	g_free(bz);
	return dir;
}

static int copy_file(const char *from, const char *to)
{
	char *argv[] = { "cp", "--", (char *)from, (char *)to, NULL };

	if (lab_run(argv, NULL, NULL, 120) != 0) {
		lab_err("cannot copy %s to %s (disk full?)", from, to);
		return -1;
	}
	return 0;
}

/* Store the result atomically: a .tmp directory renamed into place. */
static int store_kernel(struct lab_tree *t, const char *dir, char **patches)
{
	char *tmp = g_strconcat(dir, ".tmp", NULL);
	const char *files[][2] = {
		{ "arch/x86/boot/bzImage", "bzImage" },
		{ ".config", "config" },
		{ "System.map", "System.map" },
		/* with debug info: what `crash` opens a memory dump with */
		{ "vmlinux", "vmlinux" },
	};
	GString *list = g_string_new(NULL);
	char *p;
	int rc = -1;
	size_t i;

	lab_rm_rf(tmp);
	if (lab_mkdir_p(tmp) != 0)
		goto out;
	for (i = 0; i < G_N_ELEMENTS(files); i++) {
		char *from = g_build_filename(t->obj, files[i][0], NULL);
		char *to = g_build_filename(tmp, files[i][1], NULL);
		int r = copy_file(from, to);

		g_free(from);
		g_free(to);
		if (r != 0)
			goto out;
	}
	for (i = 0; patches[i]; i++) {
		p = lab_patch_label(patches[i]);
		g_string_append_printf(list, "%s\n", p);
		g_free(p);
	}
	p = g_build_filename(tmp, "series.applied", NULL);
	rc = lab_write_file(p, list->str, list->len);
	g_free(p);
	if (rc == 0) {
		p = g_build_filename(tmp, "build.log", NULL);
		copy_file(t->log, p);
		g_free(p);
		lab_rm_rf(dir);
		if (rename(tmp, dir) != 0) {
			lab_err("rename %s: %s", tmp, strerror(errno));
			rc = -1;
		}
	}
out:
	if (rc != 0)
		lab_rm_rf(tmp);
	g_string_free(list, TRUE);
	g_free(tmp);
	return rc;
}

static int build_series_kernel(const char *review, const char *name)
{
	char *key = lab_kernel_key(review, name);
	char **patches = lab_kernel_patches(review, name);
	char **extra = lab_kernel_fragments(name);
	char *rel = NULL, *dir = NULL, *bz = NULL, *phase;
	struct lab_tree t = { .lock_fd = -1 };
	int rc = -1;

	if (!key || !patches)
		goto out;
	rel = g_build_filename("kernels", key, NULL);
	dir = lab_path(rel);
	bz = g_build_filename(dir, "bzImage", NULL);
	if (lab_exists(bz)) {
		lab_info("%s kernel: cache hit %s", name, dir);
		rc = 0;
		goto out;
	}
	lab_info("%s kernel: building (key %s, %u patches)", name, key,
		 g_strv_length(patches));
	if (open_for(&t, name) != 0)
		goto out;
	if (lab_exists(bz)) { /* built while this command waited for the lock */
		lab_info("%s kernel: built meanwhile by another lab command: %s", name, dir);
		rc = 0;
		goto out;
	}
	phase = g_strdup_printf("series %s", name);
	lab_phase_begin(phase);
	g_free(phase);
	if (lab_tree_goto(&t, patches) != 0)
		goto out;
	if (lab_tree_configure(&t, extra) != 0)
		goto out;
	phase = g_strdup_printf("make %s", name);
	lab_phase_begin(phase);
	g_free(phase);
	if (lab_tree_make(&t, name, "bzImage") != 0)
		goto out;
	lab_phase_begin("store");
	if (store_kernel(&t, dir, patches) != 0)
		goto out;
	lab_phase_end();
	lab_info("%s kernel: %s", name, bz);
	rc = 0;
out:
	lab_tree_free(&t);
	g_strfreev(patches);
	g_strfreev(extra);
	g_free(key);
	g_free(rel);
	g_free(dir);
	g_free(bz);
	return rc;
}

int lab_kernel_build(const char *review, const char *name)
{
	if (!strcmp(name, "debian")) {
		char *d = lab_image_kernel_dir(); /* `lab image` makes it */
		int ok = d != NULL;

		g_free(d);
		return ok ? 0 : -1;
	}
	return build_series_kernel(review, name);
}

int lab_kernel_build_named(const char *review, const char *variant)
{
	struct lab_user_kernel *tree = chain_tree(variant);
	int rc;

	lab_user_kernel_free(tree);
	if (!tree && !lab_tarball_present())
		return 1;
	if (strcmp(variant, "all") == 0) {
		/* baseline first: patched is then a push of fixes/ only */
		rc = lab_kernel_build(review, "baseline");
		if (rc == 0)
			rc = lab_kernel_build(review, "patched");
	} else {
		rc = lab_kernel_build(review, variant);
	}
	return rc == 0 ? 0 : 1;
}


/* BASE is known and does not lead back to NAME. */
static int base_check(const char *name, const char *base)
{
	char *n = g_strdup(base);
	int rc = 0;

	if (!lab_kernel_known(base)) {
		lab_err("build %s: --base %s is no kernel lab knows (baseline, patched, "
			"isolate-NNN, or a name `lab kernels` lists)", name, base);
		rc = -1;
	}
	for (int depth = 0; rc == 0 && n && depth < BASE_DEPTH; depth++) {
		struct lab_user_kernel *k;
		char *def = g_strndup(n, strcspn(n, "@"));

		if (!strcmp(def, name)) {
			lab_err("build %s: --base %s is built on %s itself", name, base, name);
			rc = -1;
		}
		g_free(def);
		k = lab_user_kernel_load(n);
		g_free(n);
		n = k ? g_strdup(k->base) : NULL;
		lab_user_kernel_free(k);
	}
	g_free(n);
	return rc;
}

/* The series applies on its base, patch by patch, in the one tree: the
 * push names the patch, the file and the hunk that do not. */
static int applies(const char *review, const char *base, char **series)
{
	char **on = base ? lab_kernel_patches(review, base) : g_new0(char *, 1);
	struct lab_tree t = { .lock_fd = -1 };
	GStrvBuilder *b;
	char **all;
	int rc = -1;

	if (!on)
		return -1;
	b = g_strv_builder_new();
	g_strv_builder_addv(b, (const char **)on);
	g_strv_builder_addv(b, (const char **)series);
	all = g_strv_builder_end(b);
	g_strv_builder_unref(b);
	lab_phase_begin("apply the series");
	if (open_for(&t, base) == 0)
		rc = lab_tree_goto(&t, all);
	lab_phase_end();
	lab_tree_free(&t);
	g_strfreev(all);
	g_strfreev(on);
	return rc;
}

/* `--tree DIR [--rev REV]`: the commit imported into the lab's copy, then
 * the definition written. */
static int define_tree(const struct lab_user_kernel_src *src)
{
	struct lab_user_kernel_src t = *src;
	char *id = NULL, *commit = NULL;
	int rc = lab_user_tree_import(src->tree, src->rev, &id, &commit);

	if (rc == 0) {
		char buf[PATH_MAX];

		t.tree = realpath(src->tree, buf) ? buf : src->tree;
		t.tree_id = id;
		t.commit = commit;
		rc = lab_user_kernel_define(&t);
	}
	g_free(id);
	g_free(commit);
	return rc;
}

int lab_kernel_define(const char *review, const struct lab_user_kernel_src *src)
{
	char *why = NULL, **series;
	int rc;

	if (lab_user_kernel_name_check(src->name, &why) != 0) {
		lab_err("build: %s", why);
		g_free(why);
		return 2;
	}
	if (src->tree)
		return define_tree(src);
	if (src->base && base_check(src->name, src->base) != 0)
		return 2;
	if (!(series = lab_user_series_read(src->series, &why))) {
		lab_err("build %s: --series %s", src->name, why);
		g_free(why);
		return 2;
	}
	if (!lab_tarball_present())
		rc = 1;
	else
		rc = applies(review, src->base, series) == 0 ? lab_user_kernel_define(src) : 2;
	g_strfreev(series);
	return rc;
}

int lab_kernel_describe(const char *review, const char *name, struct lab_kernel_info *ki)
{
	char **patches = lab_kernel_patches(review, name);
	struct lab_user_kernel *k = lab_user_kernel_load(name);
	char *rel, *bz;
	struct stat st;

	memset(ki, 0, sizeof(*ki));
	if (!patches) {
		lab_user_kernel_free(k);
		return -1;
	}
	ki->patches = g_strv_length(patches);
	ki->own = k ? g_strv_length(k->patches) : ki->patches;
	if (k && k->tree)
		ki->base = g_strdup_printf("%s@%.12s", k->tree, k->commit);
	else
		ki->base = g_strdup(k && k->base ? k->base : "linux-source-6.1");
	ki->key = lab_kernel_key(review, name);
	rel = g_build_filename("kernels", ki->key ? ki->key : "-", NULL);
	ki->dir = lab_path(rel);
	bz = g_build_filename(ki->dir, "bzImage", NULL);
	if (stat(bz, &st) == 0) {
		ki->built = st.st_mtime;
		ki->bytes = lab_du(ki->dir);
	}
	g_free(bz);
	g_free(rel);
	g_strfreev(patches);
	lab_user_kernel_free(k);
	return 0;
}

void lab_kernel_info_clear(struct lab_kernel_info *ki)
{
	g_free(ki->base);
	g_free(ki->key);
	g_free(ki->dir);
}
