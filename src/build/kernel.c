/* kernel.c - `lab build`: a named kernel (its series, see series.h) built
 * in the shared tree (tree.h) and stored under $LAB_HOME/kernels/KEY, KEY
 * being a hash of the tarball, the series and the config fragment, so an
 * unchanged input is a cache hit. */
#include "build/kernel.h"
#include "build/image.h"
#include "build/series.h"
#include "build/tree.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

char *lab_kernel_key(const char *review, const char *name)
{
	char **patches = lab_variant_patches(review, name);
	char *frag = lab_fragment_path();
	char *ident = lab_tarball_identity();
	lab_hash *h;
	char *key = NULL;
	int i;

	if (!patches || !ident)
		goto out;
	h = lab_hash_new();
	lab_hash_str(h, LAB_KERNEL_RECIPE);
	lab_hash_str(h, ident);
	if (lab_hash_file(h, frag) != 0) {
		g_free(lab_hash_finish(h, 1));
		goto out;
	}
	for (i = 0; patches[i]; i++) {
		char *label = lab_patch_label(patches[i]);

		lab_hash_str(h, label);
		g_free(label);
		if (lab_hash_file(h, patches[i]) != 0) {
			g_free(lab_hash_finish(h, 1));
			goto out;
		}
	}
	key = lab_hash_finish(h, LAB_KERNEL_KEY_LEN);
out:
	g_strfreev(patches);
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
	char **patches = lab_variant_patches(review, name);
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
	if (lab_tree_open(&t) != 0)
		goto out;
	phase = g_strdup_printf("series %s", name);
	lab_phase_begin(phase);
	g_free(phase);
	if (lab_tree_goto(&t, patches) != 0)
		goto out;
	if (lab_tree_configure(&t) != 0)
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
	int rc;

	if (!lab_tarball_present())
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

