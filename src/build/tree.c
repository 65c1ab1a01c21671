/* tree.c - the one kernel tree under $LAB_HOME/kernel, shared by every
 * kernel: extracted once from linux-source-6.1, the series pushed and
 * popped (only what differs between two kernels), configured with
 * merge_config.sh and built out of tree with ccache, under one lock.
 * Applied patches are copied into src/.lab-applied/ (like quilt's .pc/),
 * so a patch edited in the repository can still be popped. */
#include "build/tree.h"
#include "build/series.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUILD_TIMEOUT_S (90 * 60)
#define LOCK_WAIT_S (60 * 60)

char *lab_tarball_identity(void)
{
	struct stat st;

	if (stat(LAB_KERNEL_TARBALL, &st) != 0)
		return NULL;
	return g_strdup_printf("linux-source-6.1.tar.xz:%lld:%lld",
			       (long long)st.st_size, (long long)st.st_mtime);
}

bool lab_tarball_present(void)
{
	if (lab_exists(LAB_KERNEL_TARBALL))
		return true;
	lab_err("%s is missing: the kernel source is not installed.\n"
		"  install it with: apt-get install linux-source-6.1   (or: make deps)",
		LAB_KERNEL_TARBALL);
	return false;
}

char *lab_fragment_path(void)
{
	return lab_src_path("guests/kernel.config");
}


void lab_tree_init(struct lab_tree *t, const char *root, const char *applied,
		   const char *what)
{
	memset(t, 0, sizeof(*t));
	t->lock_fd = -1;
	t->root = g_strdup(root);
	t->src = g_build_filename(root, "src", NULL);
	t->obj = g_build_filename(root, "obj", NULL);
	t->applied = g_strdup(applied);
	t->log = g_build_filename(root, "build.log", NULL);
	t->what = g_strdup(what);
}

/* Another lab command (a build, the test modules, a series check) may
 * hold the tree: wait for it, as two commands on a cold cache do, until
 * Ctrl-C or LOCK_WAIT_S; 0 when the lock is ours. */
static int lock_wait(int fd, const char *root)
{
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return -1;
	lab_info("another lab command holds %s/.lock: waiting for it", root);
	for (int i = 0; i < LOCK_WAIT_S * 4 && !lab_interrupted; i++) {
		usleep(250 * 1000);
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
	}
	lab_err("another lab command still holds %s/.lock%s", root,
		lab_interrupted ? "" : " after an hour of waiting");
	return -1;
}

int lab_tree_lock(struct lab_tree *t)
{
	char *path = g_build_filename(t->root, ".lock", NULL);

	if (lab_mkdir_p(t->root) != 0) {
		g_free(path);
		return -1;
	}
	t->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	g_free(path);
	if (t->lock_fd < 0 || lock_wait(t->lock_fd, t->root) != 0)
		return -1;
	if (truncate(t->log, 0) != 0 && errno != ENOENT)
		return -1;
	return 0;
}

void lab_tree_free(struct lab_tree *t)
{
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	g_free(t->root);
	g_free(t->src);
	g_free(t->obj);
	g_free(t->applied);
	g_free(t->log);
	g_free(t->what);
	g_free(t->ident);
	if (t->stack)
		g_ptr_array_free(t->stack, TRUE);
}

static int stack_save(struct lab_tree *t)
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

static void stack_load(struct lab_tree *t)
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
static int lab_tree_extract(struct lab_tree *t, const char *ident)
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

int lab_tree_ready(struct lab_tree *t)
{
	if (lab_mkdir_p(t->applied) != 0 || lab_mkdir_p(t->obj) != 0)
		return -1;
	stack_load(t);
	return 0;
}

int lab_tree_open(struct lab_tree *t)
{
	char *ident = lab_tarball_identity();
	char *root = lab_path("kernel");
	char *applied = g_build_filename(root, "src", ".lab-applied", NULL);
	int rc = -1;

	lab_tree_init(t, root, applied, "linux-source-6.1");
	if (ident && lab_tree_lock(t) == 0 && lab_tree_extract(t, ident) == 0)
		rc = lab_tree_ready(t);
	g_free(ident);
	g_free(root);
	g_free(applied);
	return rc;
}

/* Run patch(1) on the tree. Without fuzz: a series must apply exactly. */
int lab_tree_patch(struct lab_tree *t, const char *file, bool reverse,
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
static char *applied_copy(struct lab_tree *t, const char *label)
{
	char *path = g_build_filename(t->applied, label, NULL);
	char *dir = g_path_get_dirname(path);

	g_mkdir_with_parents(dir, 0755);
	g_free(dir);
	return path;
}

static int lab_tree_pop(struct lab_tree *t)
{
	const char *label = g_ptr_array_index(t->stack, t->stack->len - 1);
	char *copy = applied_copy(t, label);
	char *out = NULL;
	int rc;

	rc = lab_tree_patch(t, copy, true, true, &out);
	if (rc == 0) {
		g_free(out);
		rc = lab_tree_patch(t, copy, true, false, &out);
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

/* What patch(1) says of FILE, hunk by hunk ("checking file F", "Hunk #2
 * FAILED at 120."): the dry run again, not silent. */
static char *patch_why(struct lab_tree *t, const char *file)
{
	char *argv[] = { "patch", "-p1", "-N", "-F0", "-r", "-", "--no-backup-if-mismatch",
			 "--dry-run", "-i", (char *)file, NULL };
	char *out = NULL;

	lab_run_capture_flags(argv, t->src, &out, 300, LAB_RUN_UNINTERRUPTIBLE);
	return out;
}

static int lab_tree_push(struct lab_tree *t, const char *file)
{
	char *label = lab_patch_label(file);
	char *copy = applied_copy(t, label);
	char *out = NULL, *data = NULL;
	gsize len;
	int rc = -1;

	if (lab_tree_patch(t, file, false, true, &out) != 0) {
		g_free(out);
		out = patch_why(t, file);
		lab_err("patch %s does not apply to %s with the patches before it "
			"(nothing was built):\n%s", label, t->what, out ? out : "");
		goto out;
	}
	g_free(out);
	out = NULL;
	if (!g_file_get_contents(file, &data, &len, NULL) ||
	    lab_write_file(copy, data, len) != 0)
		goto out;
	if (lab_tree_patch(t, file, false, false, &out) != 0) {
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
int lab_tree_goto(struct lab_tree *t, char **want)
{
	guint common = 0, start_len = t->stack->len, i;
	GPtrArray *popped = g_ptr_array_new_with_free_func(g_free);
	int pushed = 0, rc = 0;

	while (common < t->stack->len && want[common]) {
		char *label = lab_patch_label(want[common]);
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
		} else if (lab_tree_pop(t) != 0) {
			rc = -1;
		}
		g_ptr_array_add(popped, keep);
		g_free(copy);
		g_free(label);
		if (rc != 0)
			goto out;
	}
	for (i = common; want[i]; i++) {
		if (lab_interrupted || lab_tree_push(t, want[i]) != 0) {
			rc = -1;
			break;
		}
		pushed++;
	}
	if (rc != 0) {
		lab_info("restoring the tree to its previous state (%u patches)",
			 start_len);
		while (pushed-- > 0)
			lab_tree_pop(t);
		for (i = popped->len; i > 0; i--) {
			char *keep = g_ptr_array_index(popped, i - 1);
			char *orig = g_strndup(keep, strlen(keep) - strlen(".popped"));
			char *label = g_strdup(orig + strlen(t->applied) + 1);

			/* re-push from the saved copy */
			if (lab_tree_patch(t, keep, false, false, NULL) == 0 &&
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

static char *config_hash(const char *frag, char **extra, const char *ident)
{
	lab_hash *h = lab_hash_new();

	lab_hash_str(h, LAB_KERNEL_RECIPE);
	if (ident) /* another commit may have other Kconfig files */
		lab_hash_str(h, ident);
	if (lab_hash_file(h, frag) != 0)
		goto bad;
	for (; extra && *extra; extra++) {
		lab_hash_str(h, "fragment");
		if (lab_hash_file(h, *extra) != 0)
			goto bad;
	}
	return lab_hash_finish(h, LAB_KERNEL_KEY_LEN);
bad:
	g_free(lab_hash_finish(h, 1));
	return NULL;
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
 * serves, so a warm CI machine is warm for ccache too. Paths under
 * $LAB_HOME are hashed relative to the compiler's directory (ROOT/obj) and
 * that directory is not hashed: every tree (ROOT/src) shares the objects
 * (a -g object then names the first tree's directory, which `crash` does
 * not need). */
static void ccache_env(void)
{
	char *dir;

	if (!getenv("CCACHE_DIR")) {
		dir = g_build_filename(lab_home(), "ccache", NULL);
		setenv("CCACHE_DIR", dir, 1);
		setenv("CCACHE_MAXSIZE", "4G", 0);
		g_free(dir);
	}
	setenv("CCACHE_BASEDIR", lab_home(), 0);
	setenv("CCACHE_NOHASHDIR", "true", 0);
}

int lab_tree_run_make(struct lab_tree *t, const char *target, int timeout)
{
	char *obj = g_strdup_printf("O=%s", t->obj);
	char *jobs = g_strdup_printf("-j%ld", sysconf(_SC_NPROCESSORS_ONLN));
	/* ccache hands the compiler ../src/F (relative, see ccache_env):
	 * __FILE__ is still F, as the kernel's own map makes it */
	char *argv[] = { "make", "-C", t->src, obj, jobs, "CC=ccache gcc",
			 "KCFLAGS=-fmacro-prefix-map=../src/=", (char *)target, NULL };
	int rc;

	ccache_env();
	rc = lab_run(argv, NULL, t->log, timeout);
	g_free(obj);
	g_free(jobs);
	return rc;
}

/* The fragments' options all in .config as asked. */
static int verify_all(const char *frag, char **extra, const char *config)
{
	int rc = config_verify(frag, config);

	for (; rc == 0 && extra && *extra; extra++)
		rc = config_verify(*extra, config);
	return rc;
}

static int merge_fragments(struct lab_tree *t, const char *frag, char **extra,
			   const char *config)
{
	char *kc = g_strdup_printf("KCONFIG_CONFIG=%s", config);
	GPtrArray *merge = g_ptr_array_new();
	int rc;

	g_ptr_array_add(merge, "env");
	g_ptr_array_add(merge, kc);
	g_ptr_array_add(merge, "scripts/kconfig/merge_config.sh");
	g_ptr_array_add(merge, "-m");
	g_ptr_array_add(merge, "-O");
	g_ptr_array_add(merge, t->obj);
	g_ptr_array_add(merge, (char *)config);
	g_ptr_array_add(merge, (char *)frag);
	for (; extra && *extra; extra++) /* the user's last: it wins */
		g_ptr_array_add(merge, *extra);
	g_ptr_array_add(merge, NULL);
	rc = lab_tree_run_make(t, "tinyconfig", 600) != 0 ||
	     lab_run((char **)merge->pdata, t->src, t->log, 600) != 0 ||
	     lab_tree_run_make(t, "olddefconfig", 600) != 0 ? -1 : 0;
	if (rc != 0)
		lab_err("configuring the kernel failed; see %s", t->log);
	g_ptr_array_free(merge, TRUE);
	g_free(kc);
	return rc;
}

int lab_tree_configure(struct lab_tree *t, char **extra)
{
	char *frag = lab_fragment_path();
	char *hash = config_hash(frag, extra, t->ident);
	char *stamp = g_build_filename(t->obj, ".lab-config", NULL);
	char *config = g_build_filename(t->obj, ".config", NULL);
	char *have = NULL;
	int rc = -1;

	if (!hash)
		goto out;
	if (g_file_get_contents(stamp, &have, NULL, NULL) &&
	    strcmp(have, hash) == 0 && lab_exists(config)) {
		rc = verify_all(frag, extra, config);
		goto out;
	}
	lab_phase_begin("configure");
	unlink(stamp);
	if (merge_fragments(t, frag, extra, config) != 0 ||
	    verify_all(frag, extra, config) != 0)
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

int lab_tree_make(struct lab_tree *t, const char *what, const char *target)
{
	struct progress p = { t->log, what, lab_now(), isatty(STDOUT_FILENO), 0 };
	int rc;

	lab_run_set_tick(progress_tick, &p);
	rc = lab_tree_run_make(t, target, BUILD_TIMEOUT_S);
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

