/* kmod.c - the lab's test modules (tests/kmod: fault injection for 006,
 * the observer for 008), built against the shared tree. */
#include "build/kmod.h"
#include "build/tree.h"
#include "util/util.h"

#include <stdio.h>
#include <unistd.h>

static char *kmod_key(const char *from)
{
	char *frag = lab_fragment_path(), *ident = lab_tarball_identity();
	lab_hash *h = lab_hash_new();

	lab_hash_str(h, "lab-kmod-1");
	lab_hash_str(h, LAB_KERNEL_RECIPE);
	lab_hash_str(h, ident ? ident : "");
	lab_hash_file(h, frag);
	lab_hash_dir(h, from);
	g_free(frag);
	g_free(ident);
	return lab_hash_finish(h, LAB_KERNEL_KEY_LEN);
}

/* The cache keeps the .ko files: they are what goes on the tests disk. */
static void keep_only_modules(const char *dir)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *n;

	while (d && (n = g_dir_read_name(d))) {
		char *p = g_build_filename(dir, n, NULL);

		if (!g_str_has_suffix(n, ".ko"))
			lab_rm_rf(p);
		g_free(p);
	}
	if (d)
		g_dir_close(d);
}

static int kmod_build(struct lab_tree *t, const char *from, const char *tmp)
{
	char *cp = g_strdup_printf("%s/.", from);
	char *o = g_strdup_printf("O=%s", t->obj), *m = g_strdup_printf("M=%s", tmp);
	char *cpv[] = { "cp", "-r", cp, (char *)tmp, NULL };
	/* scripts/module.lds and friends: not made by `make bzImage` */
	char *prep[] = { "make", "-C", t->src, o, "modules_prepare", NULL };
	char *mk[] = { "make", "-C", t->src, o, m, "modules", NULL };
	int rc = lab_mkdir_p(tmp);

	if (rc == 0)
		rc = lab_run(cpv, NULL, NULL, 60);
	if (rc == 0)
		rc = lab_run(prep, NULL, t->log, 600);
	if (rc == 0)
		rc = lab_run(mk, NULL, t->log, 600);
	if (rc == 0)
		keep_only_modules(tmp);
	g_free(cp);
	g_free(o);
	g_free(m);
	return rc == 0 ? 0 : -1;
}

/* Both kernels share config, version and struct layouts (the series touch
 * only functions), so one build serves both. Built under the tree's lock,
 * cached by content in $LAB_HOME/kmod/KEY. */
char *lab_kmod_dir(void)
{
	char *from = lab_src_path("tests/kmod");
	char *key = kmod_key(from);
	char *rel = g_build_filename("kmod", key, NULL);
	char *dir = lab_path(rel), *tmp = NULL, *vmlinux = NULL;
	struct lab_tree t = { .lock_fd = -1 };

	if (lab_exists(dir))
		goto out;
	if (lab_tree_open(&t) != 0)
		goto fail;
	if (lab_exists(dir)) /* built while this command waited for the lock */
		goto out;
	vmlinux = g_build_filename(t.obj, "vmlinux", NULL);
	if (!lab_exists(vmlinux)) {
		lab_err("no built kernel tree in %s for the test modules: run `lab build all`",
			t.obj);
		goto fail;
	}
	tmp = g_strdup_printf("%s.tmp-%d", dir, (int)getpid());
	lab_rm_rf(tmp);
	if (kmod_build(&t, from, tmp) != 0 || rename(tmp, dir) != 0) {
		lab_err("building tests/kmod failed; see %s", t.log);
		lab_rm_rf(tmp);
		goto fail;
	}
	goto out;
fail:
	g_clear_pointer(&dir, g_free);
out:
	lab_tree_free(&t);
	g_free(from);
	g_free(key);
	g_free(rel);
	g_free(tmp);
	g_free(vmlinux);
	return dir;
}
