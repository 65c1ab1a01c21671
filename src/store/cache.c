/* cache.c - `lab cache`: what $LAB_HOME holds by content key (kernels,
 * images, saved ready states, tests disks), with sizes and ages, and
 * `lab cache prune [--keep N]` to free space. Nothing an instance that is
 * up still uses is ever removed. */
#include "store/cache.h"
#include "guests/instance.h"
#include "store/saved.h"
#include "util/util.h"

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
	char *path;
	char *name;
	goffset bytes;
	gint64 used;  /* last use (or creation), seconds since the epoch */
	bool in_use;
};

static void item_clear(gpointer p)
{
	struct item *it = p;

	g_free(it->path);
	g_free(it->name);
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
		struct item it = { kind, NULL, NULL, 0, 0, false };
		char *used;

		if (strstr(n, ".tmp"))
			continue;
		it.path = g_build_filename(root, n, NULL);
		it.name = g_strdup(n);
		it.bytes = lab_du(it.path);
		used = g_build_filename(it.path, "last-used", NULL);
		it.used = lab_exists(used) ? mtime_of(used) : mtime_of(it.path);
		g_free(used);
		it.in_use = strcmp(kind, "saved") == 0 ? lab_saved_in_use(it.path)
						       : lab_inst_any_uses(it.path);
		g_array_append_val(out, it);
	}
	if (d)
		g_dir_close(d);
	g_free(root);
}

static gint newest_first(gconstpointer a, gconstpointer b)
{
	const struct item *x = a, *y = b;
	int k = strcmp(x->kind, y->kind);

	if (k)
		return k;
	return (x->used < y->used) - (x->used > y->used);
}

static GArray *scan(void)
{
	GArray *all = g_array_new(FALSE, FALSE, sizeof(struct item));

	g_array_set_clear_func(all, item_clear);
	scan_kind(all, "kernel", "kernels");
	scan_kind(all, "image", "images");
	scan_kind(all, "saved", "saved");
	scan_kind(all, "tests", "tests");
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

static char *saved_note(const struct item *it)
{
	char *m = g_build_filename(it->path, "manifest.ini", NULL);
	GKeyFile *kf = g_key_file_new();
	char *note = NULL;

	if (g_key_file_load_from_file(kf, m, G_KEY_FILE_NONE, NULL)) {
		char *topo = g_key_file_get_string(kf, "saved", "topology", NULL);
		gsize n = 0;
		gchar **groups = g_key_file_get_groups(kf, &n);

		note = g_strdup_printf("topology %s, %u guest%s", topo ? topo : "?",
				       (unsigned)(n ? n - 1 : 0), n == 2 ? "" : "s");
		g_free(topo);
		g_strfreev(groups);
	}
	g_key_file_free(kf);
	g_free(m);
	return note;
}

static void list(GArray *all)
{
	goffset total = 0;
	guint i;
	char *t;

	printf("%-7s %-28s %10s %8s  %s\n", "KIND", "KEY", "SIZE", "USED", "NOTE");
	for (i = 0; i < all->len; i++) {
		struct item *it = &g_array_index(all, struct item, i);
		char *sz = human(it->bytes), *ag = age(it->used);
		char *note = strcmp(it->kind, "saved") == 0 ? saved_note(it) : NULL;

		printf("%-7s %-28s %10s %8s  %s%s%s\n", it->kind, it->name, sz, ag,
		       note ? note : "", note && it->in_use ? "; " : "",
		       it->in_use ? "in use by an instance" : "");
		total += it->bytes;
		g_free(sz);
		g_free(ag);
		g_free(note);
	}
	t = human(total);
	printf("total %s under %s (saved states capped at %ld MiB: LAB_SAVED_MAX_MB)\n",
	       t, lab_home(), lab_saved_cap_mib());
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

static int prune(GArray *all, int keep)
{
	const char *kind = NULL;
	goffset freed = 0;
	int seen = 0;
	guint i;
	char *f;

	prune_stale_tmp("saved");
	for (i = 0; i < all->len; i++) {
		struct item *it = &g_array_index(all, struct item, i);

		if (!kind || strcmp(kind, it->kind) != 0) {
			kind = it->kind;
			seen = 0;
		}
		if (seen++ < keep || it->in_use)
			continue;
		lab_info("removing %s %s", it->kind, it->path);
		freed += it->bytes;
		lab_rm_rf(it->path);
	}
	f = human(freed);
	lab_info("freed %s", f);
	g_free(f);
	return 0;
}

static const char cache_usage[] =
	"usage: lab cache [list]\n"
	"       lab cache prune [--keep N]\n"
	"  list: kernels, images, saved ready states and tests disks under\n"
	"        $LAB_HOME, with size, last use and what uses them.\n"
	"  prune: keep the N most recently used of each kind (default 1), and\n"
	"        never anything an instance that is up uses.\n";

int cmd_cache(int argc, char **argv)
{
	GArray *all;
	int keep = 1, rc = 0;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(cache_usage, stdout);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "list") && strcmp(argv[1], "prune")) {
		lab_err("cache: unknown action '%s'\n%s", argv[1], cache_usage);
		return 2;
	}
	if (argc > 1 && !strcmp(argv[1], "prune")) {
		if (argc == 4 && !strcmp(argv[2], "--keep") &&
		    lab_parse_count(argv[3], 0, 1000, &keep) == 0) {
			/* parsed */
		} else if (argc != 2) {
			lab_err("cache prune: --keep takes a number 0..1000\n%s", cache_usage);
			return 2;
		}
	} else if (argc > 2) {
		fputs(cache_usage, stderr);
		return 2;
	}
	all = scan();
	if (argc > 1 && !strcmp(argv[1], "prune"))
		rc = prune(all, keep);
	else
		list(all);
	g_array_free(all, TRUE);
	return rc;
}
