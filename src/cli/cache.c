/* cache.c - `lab cache`: what lab keeps by content key - under $LAB_HOME
 * the build cache (kernels, images, tests disks, seeds), and in this
 * machine's store (host `local`) the saved ready states and the shared
 * volumes the guests use - with sizes, last use and users; `lab cache
 * prune [--keep N]` frees space. Nothing an instance that is up uses is
 * ever removed. */
#include "cli/cli.h"
#include "build/kernel.h"
#include "build/user_tree.h"
#include "core/hosts.h"
#include "guests/instance.h"
#include "store/saved.h"
#include "store/admin.h"
#include "store/store.h"
#include "util/util.h"
#include "virt/conn.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct item {
	const char *kind;
	char *path;   /* a cache entry's path, or a store volume's name */
	char *name;
	goffset bytes;
	gint64 used;  /* last use (or creation), seconds since the epoch */
	bool in_use;
	char *note;   /* why it stays: prune keeps it */
	char *label;  /* what it is (a kernel's names): prune may take it */
};

static void item_clear(gpointer p)
{
	struct item *it = p;

	g_free(it->path);
	g_free(it->name);
	g_free(it->note);
	g_free(it->label);
}

static gint64 mtime_of(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 ? (gint64)st.st_mtime : 0;
}

static void scan_kind(GArray *out, const char *kind, const char *sub)
{
	char *root = lab_path(sub);
	GDir *d = g_dir_open(root, 0, NULL);
	const char *n;

	while (d && (n = g_dir_read_name(d))) {
		struct item it = { kind, NULL, NULL, 0, 0, false, NULL, NULL };

		if (strstr(n, ".tmp"))
			continue;
		it.path = g_build_filename(root, n, NULL);
		it.name = g_strdup(n);
		it.bytes = lab_du(it.path);
		it.used = mtime_of(it.path);
		it.in_use = lab_inst_any_uses(it.path);
		if (!strcmp(kind, "old-saved"))
			it.note = g_strdup("saved by lab 0.1: not used any more (prune removes it)");
		g_array_append_val(out, it);
	}
	if (d)
		g_dir_close(d);
	g_free(root);
}

/* ---- the store ---- */

/* Content-named shared volumes: KIND-KEY... with their .ok marker. */
static const char *shared_kind(const char *name)
{
	static const char *const kinds[] = { "kernel-", "image-", "seed-" };
	guint i;

	for (i = 0; i < G_N_ELEMENTS(kinds); i++)
		if (g_str_has_prefix(name, kinds[i]) && !g_str_has_suffix(name, ".ok"))
			return kinds[i];
	return NULL;
}

static void scan_shared(GArray *out, struct lab_store *st)
{
	GPtrArray *vols = lab_store_list(st, "");
	guint i;

	for (i = 0; i < vols->len; i++) {
		const struct lab_store_vol *v = g_ptr_array_index(vols, i);
		const char *k = shared_kind(v->name);
		struct item it = { NULL, NULL, NULL, 0, 0, false, NULL, NULL };

		if (!k)
			continue;
		it.kind = k[0] == 'k' ? "store:kernel" : k[0] == 'i' ? "store:image"
								  : "store:seed";
		it.path = g_strdup(v->name);
		it.name = g_strdup(v->name);
		it.bytes = (goffset)v->bytes;
		it.used = v->mtime;
		it.in_use = lab_inst_any_uses(v->name);
		g_array_append_val(out, it);
	}
	g_ptr_array_free(vols, TRUE);
}

static void scan_saved(GArray *out, struct lab_store *st)
{
	GPtrArray *all = lab_saved_list(st, lab_inst_any_uses);
	guint i;

	for (i = 0; i < all->len; i++) {
		const struct lab_saved_entry *e = g_ptr_array_index(all, i);
		struct item it = { "store:saved", NULL, NULL, 0, 0, false, NULL, NULL };

		it.path = g_strdup(e->key);
		it.name = g_strdup(e->key);
		it.bytes = (goffset)e->bytes;
		it.used = e->used;
		it.in_use = e->in_use;
		if (!e->complete)
			it.note = g_strdup("being saved (no manifest yet)");
		g_array_append_val(out, it);
	}
	g_ptr_array_free(all, TRUE);
}

/* This machine's store, when it exists (no store is made to list it). */
static struct lab_store *local_store(virConnectPtr *c)
{
	struct lab_hosts *h = lab_hosts_open(NULL);
	const struct lab_host *x = h ? lab_hosts_find(h, "local") : NULL;
	struct lab_store *st = NULL;
	struct lab_store_info si;

	*c = x ? lab_virt_open(x->uri) : NULL;
	if (*c) {
		lab_store_info(*c, x->store, &si);
		if (si.exists)
			st = lab_store_open(*c, x->name, x->uri, x->store);
	}
	lab_hosts_free(h);
	return st;
}

static gint newest_first(gconstpointer a, gconstpointer b)
{
	const struct item *x = a, *y = b;
	int k = strcmp(x->kind, y->kind);

	if (k)
		return k;
	return (x->used < y->used) - (x->used > y->used);
}

/* The names whose key a built kernel has: the review's and the user's. */
static void label_kernels(GArray *all)
{
	char **mine = lab_user_kernel_names(), **names;
	GStrvBuilder *b = g_strv_builder_new();

	g_strv_builder_add(b, "baseline");
	g_strv_builder_add(b, "patched");
	for (int i = 0; mine[i]; i++) { /* and the steps of a bisection */
		struct lab_user_kernel *k = lab_user_kernel_load(mine[i]);

		g_strv_builder_add(b, mine[i]);
		for (guint n = 1; k && n < k->total; n++) {
			char *step = g_strdup_printf("%s@%u", mine[i], n);

			g_strv_builder_add(b, step);
			g_free(step);
		}
		lab_user_kernel_free(k);
	}
	names = g_strv_builder_end(b);
	g_strv_builder_unref(b);
	for (int i = 0; names[i]; i++) {
		char *key = lab_kernel_key(LAB_REVIEW_DEFAULT, names[i]);

		for (guint j = 0; key && j < all->len; j++) {
			struct item *it = &g_array_index(all, struct item, j);
			char *l;

			if (strcmp(it->kind, "kernel") || strcmp(it->name, key))
				continue;
			l = g_strdup_printf("%s%skernel %s", it->label ? it->label : "",
					    it->label ? ", " : "", names[i]);
			g_free(it->label);
			it->label = l;
		}
		g_free(key);
	}
	g_strfreev(names);
	g_strfreev(mine);
}

/* The lab's copies of the user's trees: which tree, and kept while a
 * build uses one. */
static void label_trees(GArray *all)
{
	for (guint j = 0; j < all->len; j++) {
		struct item *it = &g_array_index(all, struct item, j);
		char *o;

		if (strcmp(it->kind, "tree"))
			continue;
		o = lab_user_tree_origin(it->name);
		it->label = g_strdup_printf("the lab's copy of %s", o ? o : "a tree");
		if (lab_user_tree_busy(it->name))
			it->note = g_strdup("a build uses it now");
		g_free(o);
	}
}

static GArray *scan(struct lab_store *st)
{
	GArray *all = g_array_new(FALSE, FALSE, sizeof(struct item));

	g_array_set_clear_func(all, item_clear);
	scan_kind(all, "kernel", "kernels");
	label_kernels(all);
	scan_kind(all, "tree", "trees");
	label_trees(all);
	scan_kind(all, "image", "images");
	scan_kind(all, "tests", "tests");
	scan_kind(all, "seed", "seeds");
	/* saved states of lab 0.1 (format lab-saved-1) under $LAB_HOME/saved:
	 * no lab restores them now; prune takes them all */
	scan_kind(all, "old-saved", "saved");
	if (st) {
		scan_saved(all, st);
		scan_shared(all, st);
	}
	g_array_sort(all, newest_first);
	return all;
}

static char *human(goffset b)
{
	return g_format_size_full((guint64)b, G_FORMAT_SIZE_IEC_UNITS);
}

static char *age(gint64 t)
{
	gint64 s = (gint64)time(NULL) - t;

	if (s < 3600)
		return g_strdup_printf("%" G_GINT64_FORMAT " min", s / 60);
	if (s < 2 * 86400)
		return g_strdup_printf("%" G_GINT64_FORMAT " h", s / 3600);
	return g_strdup_printf("%" G_GINT64_FORMAT " d", s / 86400);
}

static void list(GArray *all, struct lab_store *st)
{
	goffset total = 0;
	guint i;
	char *t;

	printf("%-12s %-40s %10s %8s  %s\n", "KIND", "KEY", "SIZE", "USED", "NOTE");
	for (i = 0; i < all->len; i++) {
		struct item *it = &g_array_index(all, struct item, i);
		char *sz = human(it->bytes), *ag = age(it->used);

		printf("%-12s %-40s %10s %8s  %s%s%s%s%s\n", it->kind, it->name, sz, ag,
		       it->label ? it->label : "", it->label && (it->note || it->in_use) ? "; " : "",
		       it->note ? it->note : "", it->note && it->in_use ? "; " : "",
		       it->in_use ? "in use by an instance" : "");
		total += it->bytes;
		g_free(sz);
		g_free(ag);
	}
	t = human(total);
	printf("total %s: the build cache under %s and %s (store volumes that are "
	       "hard links share their blocks with the build cache); saved states "
	       "capped at %ld MiB (LAB_SAVED_MAX_MB)\n", t, lab_home(),
	       st ? st->dir : "no store on this machine yet", lab_saved_cap_mib());
	g_free(t);
}

/* Half-written entries (NAME.tmp-PID) whose writer is gone. */
static void prune_stale_tmp(const char *sub)
{
	char *root = lab_path(sub);
	GDir *d = g_dir_open(root, 0, NULL);
	const char *n;

	while (d && (n = g_dir_read_name(d))) {
		const char *t = strstr(n, ".tmp-");
		long pid = t ? strtol(t + 5, NULL, 10) : 0;

		if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
			char *p = g_build_filename(root, n, NULL);

			lab_info("removing %s (its writer, pid %ld, is gone)", p, pid);
			lab_rm_rf(p);
			g_free(p);
		}
	}
	if (d)
		g_dir_close(d);
	g_free(root);
}

static void remove_item(const struct item *it, struct lab_store *st)
{
	char *ok;

	lab_info("removing %s %s", it->kind, it->name);
	if (!g_str_has_prefix(it->kind, "store:")) {
		lab_rm_rf(it->path);
	} else if (!strcmp(it->kind, "store:saved")) {
		lab_saved_discard(st, it->path, "lab cache prune");
	} else {
		ok = g_strconcat(it->path, ".ok", NULL);
		lab_store_drop(st, ok); /* first: a half-removed volume is absent */
		lab_store_drop(st, it->path);
		g_free(ok);
	}
}

static int prune(GArray *all, struct lab_store *st, int keep)
{
	const char *kind = NULL;
	goffset freed = 0;
	int seen = 0;
	guint i;
	char *f;

	prune_stale_tmp("kernels");
	prune_stale_tmp("seeds");
	prune_stale_tmp("tests");
	for (i = 0; i < all->len; i++) {
		struct item *it = &g_array_index(all, struct item, i);

		if (!kind || strcmp(kind, it->kind) != 0) {
			kind = it->kind;
			seen = 0;
		}
		if (!strcmp(it->kind, "old-saved")) {
			/* every one: this lab cannot use them */
		} else if (seen++ < keep || it->in_use || it->note) {
			continue;
		}
		freed += it->bytes;
		remove_item(it, st);
	}
	f = human(freed);
	lab_info("freed %s", f);
	g_free(f);
	return 0;
}

static int keep;

static const struct lab_opt cache_opts[] = {
	{ "--keep", NULL, LAB_OPT_INT, "N", "prune: keep the N most recent of each kind (1)",
	  &keep, 0, 1000, NULL, "1" },
	{ 0 },
};

static int run_cache(struct lab_inst *in, char **args)
{
	bool do_prune = args[0] && !strcmp(args[0], "prune");
	virConnectPtr c = NULL;
	struct lab_store *st;
	GArray *all;
	int rc = 0;

	(void)in;
	if (args[0] && strcmp(args[0], "list") && !do_prune) {
		lab_err("cache: unknown action '%s' (list or prune)", args[0]);
		return 2;
	}
	st = local_store(&c);
	all = scan(st);
	if (do_prune)
		rc = prune(all, st, keep);
	else
		list(all, st);
	g_array_free(all, TRUE);
	lab_store_close(st);
	if (c)
		virConnectClose(c);
	return rc;
}

static const struct lab_cmd_spec cache_spec = {
	"cache", "[list | prune]",
	"  list: the build cache under $LAB_HOME (kernels, images, tests disks,\n"
	"        seeds) and this machine's store (saved ready states, the shared\n"
	"        volumes guests use), with size, last use and what uses them.\n"
	"  prune: keep the N most recently used of each kind (default 1), and\n"
	"        never anything an instance that is up uses.\n",
	cache_opts, 0, 1, false,
};

const struct lab_cmd lab_cmd_cache = {
	&cache_spec, "list or prune kernels, images, saved states, tests disks",
	LAB_NEEDS_NOTHING, run_cache,
};
