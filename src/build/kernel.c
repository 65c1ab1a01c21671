/* kernel.c - `lab build` and `lab check-series`.
 *
 * One source tree and one object directory under $LAB_HOME/kernel are
 * shared by both variants: switching baseline <-> patched pops or pushes
 * only the patches that differ, so make recompiles only the files they
 * touch. Applied patches are copied into src/.lab-applied/ (like quilt's
 * .pc/), so a patch edited in the repository can still be popped. Finished
 * kernels are stored under $LAB_HOME/kernels/KEY, KEY being a hash of the
 * tarball, the series and the config fragment.
 */
#include "build/kernel.h"
#include "build/image.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_LEN 16
#define BUILD_TIMEOUT_S (90 * 60)
#define RECIPE_VERSION "lab-kernel-3" /* bump when the build recipe changes */

/* "isolate-NNN": the seed, else NULL. */
static const char *isolated_seed(const char *name)
{
	const char *seed = name && g_str_has_prefix(name, "isolate-") ? name + 8 : NULL;

	if (!seed || strlen(seed) != 3 || strspn(seed, "0123456789") != 3)
		return NULL;
	return seed;
}

bool lab_kernel_name_valid(const char *name)
{
	return name && (!strcmp(name, "baseline") || !strcmp(name, "patched") ||
			!strcmp(name, "debian") || isolated_seed(name));
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
static char **review_series(const char *review, const char *name,
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
static char **variant_patches(const char *review, const char *name)
{
	const char *seed = isolated_seed(name);
	bool patched = name && !strcmp(name, "patched");
	char **support = review_series(review, "support", true);
	char **bugs = support ? review_series(review, "bugs", false) : NULL;
	char **fixes = bugs && patched ? review_series(review, "fixes", false) : NULL;
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
static char *patch_label(const char *path)
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

static char *tarball_identity(void)
{
	struct stat st;

	if (stat(LAB_KERNEL_TARBALL, &st) != 0)
		return NULL;
	return g_strdup_printf("linux-source-6.1.tar.xz:%lld:%lld",
			       (long long)st.st_size, (long long)st.st_mtime);
}

static bool tarball_present(void)
{
	if (lab_exists(LAB_KERNEL_TARBALL))
		return true;
	lab_err("%s is missing: the kernel source is not installed.\n"
		"  install it with: apt-get install linux-source-6.1   (or: make deps)",
		LAB_KERNEL_TARBALL);
	return false;
}

static char *fragment_path(void)
{
	return lab_src_path("guests/kernel.config");
}

char *lab_kernel_key(const char *review, const char *name)
{
	char **patches = variant_patches(review, name);
	char *frag = fragment_path();
	char *ident = tarball_identity();
	lab_hash *h;
	char *key = NULL;
	int i;

	if (!patches || !ident)
		goto out;
	h = lab_hash_new();
	lab_hash_str(h, RECIPE_VERSION);
	lab_hash_str(h, ident);
	if (lab_hash_file(h, frag) != 0) {
		g_free(lab_hash_finish(h, 1));
		goto out;
	}
	for (i = 0; patches[i]; i++) {
		char *label = patch_label(patches[i]);

		lab_hash_str(h, label);
		g_free(label);
		if (lab_hash_file(h, patches[i]) != 0) {
			g_free(lab_hash_finish(h, 1));
			goto out;
		}
	}
	key = lab_hash_finish(h, KEY_LEN);
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
		lab_err("the %s kernel for the current series is not built: run `lab build %s`",
			name, name);
		g_free(bz);
		g_free(dir);
		return NULL;
	}
	g_free(bz);
	return dir;
}

/* ---- the shared tree: extraction and series push/pop ---- */

struct tree {
	char *root;    /* $LAB_HOME/kernel */
	char *src;     /* root/src */
	char *obj;     /* root/obj */
	char *applied; /* src/.lab-applied: copies of pushed patches */
	char *log;     /* root/build.log */
	GPtrArray *stack; /* labels of applied patches, in order */
	int lock_fd;
};

static int tree_lock(struct tree *t)
{
	char *path = g_build_filename(t->root, ".lock", NULL);

	t->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	g_free(path);
	if (t->lock_fd < 0 || flock(t->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		lab_err("another `lab build` holds %s/.lock; wait for it to finish",
			t->root);
		return -1;
	}
	return 0;
}

static void tree_free(struct tree *t)
{
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	g_free(t->root);
	g_free(t->src);
	g_free(t->obj);
	g_free(t->applied);
	g_free(t->log);
	if (t->stack)
		g_ptr_array_free(t->stack, TRUE);
}

static int stack_save(struct tree *t)
{
	GString *s = g_string_new(NULL);
	char *path = g_build_filename(t->applied, "stack", NULL);
	guint i;
	int rc;

	for (i = 0; i < t->stack->len; i++)
		g_string_append_printf(s, "%s\n",
				       (char *)g_ptr_array_index(t->stack, i));
	rc = lab_write_file(path, s->str, s->len);
	g_string_free(s, TRUE);
	g_free(path);
	return rc;
}

static void stack_load(struct tree *t)
{
	char *path = g_build_filename(t->applied, "stack", NULL);
	gchar *data = NULL;
	gchar **lines;
	int i;

	t->stack = g_ptr_array_new_with_free_func(g_free);
	if (g_file_get_contents(path, &data, NULL, NULL)) {
		lines = g_strsplit(data, "\n", -1);
		for (i = 0; lines[i]; i++)
			if (*lines[i])
				g_ptr_array_add(t->stack, g_strdup(lines[i]));
		g_strfreev(lines);
	}
	g_free(data);
	g_free(path);
}

/* Extract the tarball when the tree is missing or from another version. */
static int tree_extract(struct tree *t, const char *ident)
{
	char *stamp = g_build_filename(t->src, ".lab-tarball", NULL);
	char *tmp = g_build_filename(t->root, "src.tmp", NULL);
	char *have = NULL;
	int rc = -1;

	if (g_file_get_contents(stamp, &have, NULL, NULL) &&
	    strcmp(have, ident) == 0) {
		rc = 0;
		goto out;
	}
	lab_phase_begin("extract source");
	lab_info("extracting %s (about 15 s)", LAB_KERNEL_TARBALL);
	lab_rm_rf(tmp);
	lab_rm_rf(t->src);
	lab_rm_rf(t->obj); /* objects of another tree are worthless */
	if (lab_mkdir_p(tmp) != 0)
		goto out;
	{
		char *argv[] = { "tar", "-xf", LAB_KERNEL_TARBALL,
				 "--strip-components=1", "-C", tmp, NULL };

		if (lab_run(argv, NULL, t->log, 600) != 0) {
			lab_err("extracting %s failed (disk full?); see %s",
				LAB_KERNEL_TARBALL, t->log);
			lab_rm_rf(tmp);
			goto out;
		}
	}
	if (rename(tmp, t->src) != 0) {
		lab_err("rename %s: %s", tmp, strerror(errno));
		goto out;
	}
	g_free(stamp);
	stamp = g_build_filename(t->src, ".lab-tarball", NULL);
	rc = lab_write_file(stamp, ident, -1);
	lab_phase_end();
out:
	g_free(have);
	g_free(stamp);
	g_free(tmp);
	return rc;
}

static int tree_open(struct tree *t)
{
	char *ident = tarball_identity();
	int rc = -1;

	memset(t, 0, sizeof(*t));
	t->lock_fd = -1;
	t->root = lab_path("kernel");
	t->src = g_build_filename(t->root, "src", NULL);
	t->obj = g_build_filename(t->root, "obj", NULL);
	t->applied = g_build_filename(t->src, ".lab-applied", NULL);
	t->log = g_build_filename(t->root, "build.log", NULL);
	if (!ident || lab_mkdir_p(t->root) != 0 || tree_lock(t) != 0)
		goto out;
	if (truncate(t->log, 0) != 0 && errno != ENOENT)
		goto out;
	if (tree_extract(t, ident) != 0 || lab_mkdir_p(t->applied) != 0 ||
	    lab_mkdir_p(t->obj) != 0)
		goto out;
	stack_load(t);
	rc = 0;
out:
	g_free(ident);
	return rc;
}

/* Run patch(1) on the tree. Without fuzz: a series must apply exactly. */
static int run_patch(struct tree *t, const char *file, bool reverse,
		     bool dry, char **out)
{
	char *argv[] = { "patch", "-p1", "-N", "-F0", "-s", "-r", "-",
			 "--no-backup-if-mismatch", "-i", (char *)file,
			 reverse ? "-R" : "-f", dry ? "--dry-run" : "-f",
			 NULL };

	/* never cut short: half a patch is a damaged tree */
	return lab_run_capture_flags(argv, t->src, out, 300, LAB_RUN_UNINTERRUPTIBLE);
}

/* Copy of an applied patch, kept under src/.lab-applied/LABEL. */
static char *applied_copy(struct tree *t, const char *label)
{
	char *path = g_build_filename(t->applied, label, NULL);
	char *dir = g_path_get_dirname(path);

	g_mkdir_with_parents(dir, 0755);
	g_free(dir);
	return path;
}

static int tree_pop(struct tree *t)
{
	const char *label = g_ptr_array_index(t->stack, t->stack->len - 1);
	char *copy = applied_copy(t, label);
	char *out = NULL;
	int rc;

	rc = run_patch(t, copy, true, true, &out);
	if (rc == 0) {
		g_free(out);
		rc = run_patch(t, copy, true, false, &out);
	}
	if (rc != 0) {
		lab_err("cannot pop %s from %s:\n%s\n  the tree is damaged; remove %s to re-extract",
			label, t->src, out ? out : "", t->src);
		g_free(out);
		g_free(copy);
		return -1;
	}
	unlink(copy);
	g_free(copy);
	g_free(out);
	g_ptr_array_remove_index(t->stack, t->stack->len - 1);
	return stack_save(t);
}

static int tree_push(struct tree *t, const char *file)
{
	char *label = patch_label(file);
	char *copy = applied_copy(t, label);
	char *out = NULL, *data = NULL;
	gsize len;
	int rc = -1;

	if (run_patch(t, file, false, true, &out) != 0) {
		lab_err("patch %s does not apply to linux-source-6.1 with the patches before it:\n%s",
			label, out ? out : "");
		goto out;
	}
	g_free(out);
	out = NULL;
	if (!g_file_get_contents(file, &data, &len, NULL) ||
	    lab_write_file(copy, data, len) != 0)
		goto out;
	if (run_patch(t, file, false, false, &out) != 0) {
		lab_err("patch %s failed after a clean dry run:\n%s", label,
			out ? out : "");
		goto out;
	}
	g_ptr_array_add(t->stack, label);
	label = NULL;
	rc = stack_save(t);
out:
	g_free(label);
	g_free(copy);
	g_free(out);
	g_free(data);
	return rc;
}

/* Pop to the longest common prefix with `want`, then push the rest. On a
 * failure, return the tree to the state it had before: never half-applied. */
static int tree_goto(struct tree *t, char **want)
{
	guint common = 0, start_len = t->stack->len, i;
	GPtrArray *popped = g_ptr_array_new_with_free_func(g_free);
	int pushed = 0, rc = 0;

	while (common < t->stack->len && want[common]) {
		char *label = patch_label(want[common]);
		char *copy = applied_copy(t, label);
		gchar *a = NULL, *b = NULL;
		bool same = strcmp(label, g_ptr_array_index(t->stack, common)) == 0 &&
			g_file_get_contents(copy, &a, NULL, NULL) &&
			g_file_get_contents(want[common], &b, NULL, NULL) &&
			strcmp(a, b) == 0;

		g_free(label);
		g_free(copy);
		g_free(a);
		g_free(b);
		if (!same)
			break;
		common++;
	}
	while (t->stack->len > common) {
		char *label = g_strdup(g_ptr_array_index(t->stack, t->stack->len - 1));
		char *copy = applied_copy(t, label);
		char *keep = g_strconcat(copy, ".popped", NULL);

		/* keep the popped copy so a failed push can restore it */
		if (link(copy, keep) != 0 && errno != EEXIST) {
			rc = -1;
		} else if (tree_pop(t) != 0) {
			rc = -1;
		}
		g_ptr_array_add(popped, keep);
		g_free(copy);
		g_free(label);
		if (rc != 0)
			goto out;
	}
	for (i = common; want[i]; i++) {
		if (lab_interrupted || tree_push(t, want[i]) != 0) {
			rc = -1;
			break;
		}
		pushed++;
	}
	if (rc != 0) {
		lab_info("restoring the tree to its previous state (%u patches)",
			 start_len);
		while (pushed-- > 0)
			tree_pop(t);
		for (i = popped->len; i > 0; i--) {
			char *keep = g_ptr_array_index(popped, i - 1);
			char *orig = g_strndup(keep, strlen(keep) - strlen(".popped"));
			char *label = g_strdup(orig + strlen(t->applied) + 1);

			/* re-push from the saved copy */
			if (run_patch(t, keep, false, false, NULL) == 0 &&
			    rename(keep, orig) == 0) {
				g_ptr_array_add(t->stack, label);
				label = NULL;
				stack_save(t);
			}
			g_free(label);
			g_free(orig);
		}
	}
out:
	for (i = 0; i < popped->len; i++)
		unlink(g_ptr_array_index(popped, i));
	g_ptr_array_free(popped, TRUE);
	return rc;
}

/* ---- config ---- */

static char *config_hash(const char *frag)
{
	lab_hash *h = lab_hash_new();

	lab_hash_str(h, RECIPE_VERSION);
	if (lab_hash_file(h, frag) != 0) {
		g_free(lab_hash_finish(h, 1));
		return NULL;
	}
	return lab_hash_finish(h, KEY_LEN);
}

/* Every option the fragment asks for must be in .config as asked. */
static int config_verify(const char *frag, const char *config)
{
	gchar *want = NULL, *have = NULL;
	gchar **lines;
	int i, dropped = 0;

	if (!g_file_get_contents(frag, &want, NULL, NULL) ||
	    !g_file_get_contents(config, &have, NULL, NULL)) {
		lab_err("cannot read %s or %s", frag, config);
		g_free(want);
		return -1;
	}
	lines = g_strsplit(want, "\n", -1);
	for (i = 0; lines[i]; i++) {
		char *l = g_strstrip(lines[i]);
		char *needle;

		if (!g_str_has_prefix(l, "CONFIG_") &&
		    !g_str_has_prefix(l, "# CONFIG_"))
			continue;
		needle = g_strdup_printf("\n%s\n", l);
		if (!strstr(have, needle)) {
			lab_err("Kconfig dropped %s (a dependency is missing from %s)",
				l, frag);
			dropped++;
		}
		g_free(needle);
	}
	g_strfreev(lines);
	g_free(want);
	g_free(have);
	return dropped ? -1 : 0;
}

/* Keep ccache's objects in the lab's cache directory, next to the trees it
 * serves, so a warm CI machine is warm for ccache too. */
static void ccache_env(void)
{
	char *dir;

	if (getenv("CCACHE_DIR"))
		return;
	dir = g_build_filename(lab_home(), "ccache", NULL);
	setenv("CCACHE_DIR", dir, 1);
	setenv("CCACHE_MAXSIZE", "4G", 0);
	g_free(dir);
}

static int make_in_tree(struct tree *t, const char *target, int timeout)
{
	char *obj = g_strdup_printf("O=%s", t->obj);
	char *jobs = g_strdup_printf("-j%ld", sysconf(_SC_NPROCESSORS_ONLN));
	char *argv[] = { "make", "-C", t->src, obj, jobs, "CC=ccache gcc",
			 (char *)target, NULL };
	int rc;

	ccache_env();
	rc = lab_run(argv, NULL, t->log, timeout);
	g_free(obj);
	g_free(jobs);
	return rc;
}

static int tree_configure(struct tree *t)
{
	char *frag = fragment_path();
	char *hash = config_hash(frag);
	char *stamp = g_build_filename(t->obj, ".lab-config", NULL);
	char *config = g_build_filename(t->obj, ".config", NULL);
	char *have = NULL;
	int rc = -1;

	if (!hash)
		goto out;
	if (g_file_get_contents(stamp, &have, NULL, NULL) &&
	    strcmp(have, hash) == 0 && lab_exists(config)) {
		rc = config_verify(frag, config);
		goto out;
	}
	lab_phase_begin("configure");
	unlink(stamp);
	{
		char *kc = g_strdup_printf("KCONFIG_CONFIG=%s", config);
		char *merge[] = { "env", kc, "scripts/kconfig/merge_config.sh",
				  "-m", "-O", t->obj, config, frag, NULL };

		if (make_in_tree(t, "tinyconfig", 600) != 0 ||
		    lab_run(merge, t->src, t->log, 600) != 0 ||
		    make_in_tree(t, "olddefconfig", 600) != 0) {
			lab_err("configuring the kernel failed; see %s", t->log);
			g_free(kc);
			goto out;
		}
		g_free(kc);
	}
	if (config_verify(frag, config) != 0)
		goto out;
	rc = lab_write_file(stamp, hash, -1);
out:
	g_free(frag);
	g_free(hash);
	g_free(stamp);
	g_free(config);
	g_free(have);
	return rc;
}

/* ---- build with progress ---- */

struct progress {
	const char *log;
	const char *what;
	double start;
	bool tty;
	double last_line;
};

static void progress_tick(void *arg)
{
	struct progress *p = arg;
	gchar *data = NULL;
	gsize len = 0;
	int objs = 0;
	char last[96] = "";
	const char *s, *nl;
	double el = lab_now() - p->start;

	if (!g_file_get_contents(p->log, &data, &len, NULL))
		return;
	for (s = data; (nl = memchr(s, '\n', len - (s - data))); s = nl + 1) {
		if (strncmp(s, "  CC ", 5) == 0 || strncmp(s, "  LD ", 5) == 0 ||
		    strncmp(s, "  AR ", 5) == 0) {
			objs++;
			snprintf(last, sizeof(last), "%.*s",
				 (int)MIN(nl - s, 90), s);
		}
	}
	g_free(data);
	if (p->tty) {
		fprintf(stdout, "\r\033[K[build %s] %3d:%02d  %d steps  %s",
			p->what, (int)el / 60, (int)el % 60, objs, g_strstrip(last));
		fflush(stdout);
	} else if (el - p->last_line >= 30) {
		lab_info("[build %s] %d:%02d  %d steps  %s", p->what,
			 (int)el / 60, (int)el % 60, objs, g_strstrip(last));
		p->last_line = el;
	}
}

static void show_build_errors(const char *log)
{
	char *tail = lab_tail(log, 25);

	lab_err("kernel build failed; last lines of %s:\n%s", log, tail);
	g_free(tail);
}

static int tree_make(struct tree *t, const char *what, const char *target)
{
	struct progress p = { t->log, what, lab_now(), isatty(STDOUT_FILENO), 0 };
	int rc;

	lab_run_set_tick(progress_tick, &p);
	rc = make_in_tree(t, target, BUILD_TIMEOUT_S);
	lab_run_set_tick(NULL, NULL);
	if (p.tty)
		fputs("\r\033[K", stdout);
	if (rc == 124)
		lab_err("kernel build timed out after %d s", BUILD_TIMEOUT_S);
	else if (rc == 130)
		lab_err("kernel build interrupted");
	else if (rc != 0)
		show_build_errors(t->log);
	return rc == 0 ? 0 : -1;
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
static int store_kernel(struct tree *t, const char *dir, char **patches)
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
		p = patch_label(patches[i]);
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
	char **patches = variant_patches(review, name);
	char *rel = NULL, *dir = NULL, *bz = NULL, *phase;
	struct tree t = { .lock_fd = -1 };
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
	if (tree_open(&t) != 0)
		goto out;
	phase = g_strdup_printf("series %s", name);
	lab_phase_begin(phase);
	g_free(phase);
	if (tree_goto(&t, patches) != 0)
		goto out;
	if (tree_configure(&t) != 0)
		goto out;
	phase = g_strdup_printf("make %s", name);
	lab_phase_begin(phase);
	g_free(phase);
	if (tree_make(&t, name, "bzImage") != 0)
		goto out;
	lab_phase_begin("store");
	if (store_kernel(&t, dir, patches) != 0)
		goto out;
	lab_phase_end();
	lab_info("%s kernel: %s", name, bz);
	rc = 0;
out:
	tree_free(&t);
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

static const char build_usage[] =
	"usage: lab build [--review NAME] baseline|patched|all|isolate-NNN\n"
	"  Build the kernel variant(s) from linux-source-6.1 + patches/NAME/.\n"
	"  baseline = support/ + bugs/; patched = support/ + bugs/ + fixes/;\n"
	"  isolate-NNN = support/ + bugs/NNN only\n"
	"  (support/: test knobs both kernels share, optional).\n";

int cmd_build(int argc, char **argv)
{
	const char *review = LAB_REVIEW_DEFAULT;
	int i, rc = 0;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--review") == 0 && i + 1 < argc) {
			review = argv[++i];
		} else if (strcmp(argv[i], "-h") == 0 ||
			   strcmp(argv[i], "--help") == 0) {
			fputs(build_usage, stdout);
			return 0;
		} else {
			lab_err("build: unknown option %s\n%s", argv[i], build_usage);
			return 2;
		}
	}
	if (i + 1 != argc) {
		lab_err("build: name one variant\n%s", build_usage);
		return 2;
	}
	if (strcmp(argv[i], "all") != 0 && !lab_kernel_name_valid(argv[i])) {
		lab_err("build: unknown variant '%s' (baseline, patched, all or isolate-NNN)",
			argv[i]);
		return 2;
	}
	if (!tarball_present())
		return 1;
	if (strcmp(argv[i], "all") == 0) {
		/* baseline first: patched is then a push of fixes/ only */
		rc = lab_kernel_build(review, "baseline");
		if (rc == 0)
			rc = lab_kernel_build(review, "patched");
	} else {
		rc = lab_kernel_build(review, argv[i]);
	}
	lab_phase_summary();
	return rc == 0 ? 0 : 1;
}

/* ---- check-series ---- */

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
	char **all = variant_patches(review, "patched");
	char **support = review_series(review, "support", true);
	int n_support = support ? (int)g_strv_length(support) : 0;
	struct tree t = { .lock_fd = -1 };
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
		label = patch_label(all[i]);

		if (run_patch(&t, all[i], false, false, &out) != 0) {
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
static int compile_touched(struct tree *t, const char *review,
			   const char *v, GHashTable *touched)
{
	char **patches = variant_patches(review, v);
	GHashTableIter it;
	gpointer f;
	int bad = 0;

	if (!patches || tree_goto(t, patches) != 0) {
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
		if (make_in_tree(t, obj, 1200) != 0) {
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

int cmd_check_series(int argc, char **argv)
{
	const char *review = LAB_REVIEW_DEFAULT;
	GHashTable *touched = g_hash_table_new_full(g_str_hash, g_str_equal,
						    g_free, NULL);
	char **all = NULL;
	struct tree t = { .lock_fd = -1 };
	int i, rc = 1;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--review") == 0 && i + 1 < argc) {
			review = argv[++i];
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: lab check-series [--review NAME]\n"
			       "  Apply support/, bugs/ and fixes/ to a pristine tree, check that\n"
			       "  bugs/ + fixes/ give back pristine + support/, and compile every\n"
			       "  touched file on both kernels.\n");
			return 0;
		} else {
			lab_err("usage: lab check-series [--review NAME]");
			rc = 2;
			goto out;
		}
	}
	if (!tarball_present())
		goto out;
	/* the files bugs/ and fixes/ touch (support/ stays, by design) */
	all = variant_patches(review, "patched");
	if (!all)
		goto out;
	{
		char **support = review_series(review, "support", true);

		for (i = support ? (int)g_strv_length(support) : 0; all[i]; i++)
			patch_files(all[i], touched);
		g_strfreev(support);
	}
	lab_phase_begin("check pristine");
	if (check_pristine(review, touched) != 0)
		goto out;
	lab_phase_begin("compile touched files");
	if (tree_open(&t) != 0 || tree_configure(&t) != 0 ||
	    compile_touched(&t, review, "baseline", touched) != 0 ||
	    compile_touched(&t, review, "patched", touched) != 0)
		goto out;
	rc = 0;
out:
	lab_phase_summary();
	tree_free(&t);
	g_strfreev(all);
	g_hash_table_destroy(touched);
	return rc;
}

/* ---- the lab's test modules (tests/kmod) ---- */

static char *kmod_key(const char *from)
{
	char *frag = fragment_path(), *ident = tarball_identity();
	lab_hash *h = lab_hash_new();

	lab_hash_str(h, "lab-kmod-1");
	lab_hash_str(h, RECIPE_VERSION);
	lab_hash_str(h, ident ? ident : "");
	lab_hash_file(h, frag);
	lab_hash_dir(h, from);
	g_free(frag);
	g_free(ident);
	return lab_hash_finish(h, KEY_LEN);
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

static int kmod_build(struct tree *t, const char *from, const char *tmp)
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
	struct tree t = { .lock_fd = -1 };

	if (lab_exists(dir))
		goto out;
	if (tree_open(&t) != 0)
		goto fail;
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
	tree_free(&t);
	g_free(from);
	g_free(key);
	g_free(rel);
	g_free(tmp);
	g_free(vmlinux);
	return dir;
}
