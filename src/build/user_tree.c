/* user_tree.c - the lab's copies of the user's kernel trees (see
 * user_tree.h): imported with git (clone, fetch, or a snapshot commit),
 * checked out for a build. Every git command on the user's tree reads
 * only; safe.directory lets root read a tree another user owns. */
#include "build/user_tree.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TREES "trees"
#define GIT_TIMEOUT_S (30 * 60) /* a first clone of a big tree copies */

/* What a kernel tree has, and what lab's build needs of it. */
static const char *const kernel_files[] = {
	"Makefile", "Kconfig", "arch/x86/Kconfig", "scripts/kconfig/merge_config.sh", NULL
};

/* A Makefile's text sets the kernel's VERSION and PATCHLEVEL. */
static bool versioned(const char *makefile)
{
	return makefile && (g_str_has_prefix(makefile, "VERSION = ") ||
			    strstr(makefile, "\nVERSION = ")) &&
		strstr(makefile, "\nPATCHLEVEL = ");
}

char *lab_user_tree_not_kernel(const char *dir)
{
	gchar *mk = NULL;
	char *why = NULL;

	if (!g_file_test(dir, G_FILE_TEST_IS_DIR))
		return g_strdup_printf("%s: no such directory", dir);
	for (int i = 0; kernel_files[i] && !why; i++) {
		char *p = g_build_filename(dir, kernel_files[i], NULL);

		if (!lab_exists(p))
			why = g_strdup_printf("%s is not a kernel tree: it has no %s", dir,
					      kernel_files[i]);
		g_free(p);
	}
	if (!why) {
		char *p = g_build_filename(dir, "Makefile", NULL);

		g_file_get_contents(p, &mk, NULL, NULL);
		if (!versioned(mk))
			why = g_strdup_printf("%s is not a kernel tree: its Makefile sets no "
					      "VERSION and PATCHLEVEL", dir);
		g_free(p);
	}
	g_free(mk);
	return why;
}

char *lab_user_tree_root(const char *id)
{
	char *rel = g_build_filename(TREES, id, NULL), *root = lab_path(rel);

	g_free(rel);
	return root;
}

char *lab_user_tree_origin(const char *id)
{
	char *root = lab_user_tree_root(id), *p = g_build_filename(root, "origin", NULL);
	gchar *o = NULL;

	g_file_get_contents(p, &o, NULL, NULL);
	g_free(p);
	g_free(root);
	return o;
}

bool lab_user_tree_busy(const char *id)
{
	char *root = lab_user_tree_root(id), *p = g_build_filename(root, ".lock", NULL);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	bool busy = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0;

	if (fd >= 0)
		close(fd);
	g_free(p);
	g_free(root);
	return busy;
}

static char *copy_src(const char *id)
{
	char *root = lab_user_tree_root(id), *src = g_build_filename(root, "src", NULL);

	g_free(root);
	return src;
}

/* git's one-line answer, or NULL when it fails (quiet: -q where git has it). */
static char *git_line(char *const argv[], const char *cwd)
{
	char *out = NULL;

	if (lab_run_capture(argv, cwd, &out, 300) != 0 || !out || !*g_strstrip(out)) {
		g_free(out);
		return NULL;
	}
	return out;
}

static char *rev_parse(const char *gitdir_cwd, const char *rev, const char *kind)
{
	char *spec = g_strdup_printf("%s^{%s}", rev, kind);
	char *argv[] = { "git", "-c", "safe.directory=*", "rev-parse", "--verify", "-q",
			 spec, NULL };
	char *out = git_line(argv, gitdir_cwd);

	g_free(spec);
	return out;
}

char *lab_user_tree_resolve(const char *id, const char *rev)
{
	char *src = copy_src(id), *c = NULL;

	/* a name, not an option: git would take "-x" for one */
	if (rev && *rev && *rev != '-' && lab_exists(src))
		c = rev_parse(src, rev, "commit");
	g_free(src);
	return c;
}

char *lab_user_tree_content(const char *id, const char *commit)
{
	char *src = copy_src(id), *c = lab_exists(src) ? rev_parse(src, commit, "tree") : NULL;

	g_free(src);
	return c;
}

char **lab_user_tree_steps(const char *id, const char *good, const char *bad, char **why)
{
	char *src = copy_src(id), *range = g_strdup_printf("%s..%s", good, bad), *out = NULL;
	char *anc[] = { "git", "merge-base", "--is-ancestor", (char *)good, (char *)bad, NULL };
	char *list[] = { "git", "rev-list", "--reverse", "--first-parent", range, NULL };
	char **steps = NULL;

	*why = NULL;
	if (!strcmp(good, bad))
		*why = g_strdup_printf("good and bad are the same commit, %.12s", good);
	else if (lab_run(anc, src, "/dev/null", 300) != 0)
		*why = g_strdup_printf("%.12s is not an ancestor of %.12s", good, bad);
	else if (lab_run_capture(list, src, &out, 300) != 0 || !out)
		*why = g_strdup_printf("git rev-list %s failed in %s", range, src);
	else
		steps = g_strsplit(g_strstrip(out), "\n", -1);
	g_free(out);
	g_free(range);
	g_free(src);
	return steps;
}

char *lab_user_tree_title(const char *id, const char *commit)
{
	char *src = copy_src(id);
	char *argv[] = { "git", "log", "-1", "--abbrev=12", "--format=%h %s", (char *)commit,
			 NULL };
	char *t = git_line(argv, src);

	g_free(src);
	return t ? t : g_strndup(commit, 12);
}

/* The copy's repository, made once: a clone of a git tree (DIR's objects
 * hardlinked), else an empty one for snapshots. */
static int copy_make(struct lab_tree *t, const char *dir, bool git)
{
	char *dotgit = g_build_filename(t->src, ".git", NULL);
	char *clone[] = { "git", "-c", "safe.directory=*", "clone", "-q", "--no-checkout",
			  (char *)dir, t->src, NULL };
	char *init[] = { "git", "init", "-q", t->src, NULL };
	int rc = 0;

	if (!lab_exists(dotgit)) {
		lab_rm_rf(t->src);
		if (git)
			lab_info("copying the git objects of %s into %s (once)", dir, t->root);
		rc = lab_run(git ? clone : init, NULL, t->log, GIT_TIMEOUT_S) == 0 ? 0 : -1;
		if (rc != 0) {
			lab_err("cannot copy %s into %s; see %s", dir, t->src, t->log);
			lab_rm_rf(t->src);
		}
	}
	g_free(dotgit);
	return rc;
}

/* Keep COMMIT from git's garbage collection in the copy. */
static int keep(struct lab_tree *t, const char *commit)
{
	char *ref = g_strdup_printf("refs/lab/kept/%s", commit);
	char *argv[] = { "git", "update-ref", ref, (char *)commit, NULL };
	int rc = lab_run(argv, t->src, t->log, 300);

	g_free(ref);
	return rc == 0 ? 0 : -1;
}

/* A git tree's commit C (resolved in DIR), fetched into the copy. */
static int import_git(struct lab_tree *t, const char *dir, const char *c, char **commit)
{
	char *have = NULL;
	int rc = 1;

	if (copy_make(t, dir, true) != 0)
		goto out;
	if (!(have = rev_parse(t->src, c, "commit"))) {
		char *argv[] = { "git", "-c", "safe.directory=*", "fetch", "-q", "--no-tags",
				 (char *)dir, (char *)c, NULL };

		if (lab_run(argv, t->src, t->log, GIT_TIMEOUT_S) != 0) {
			lab_err("cannot fetch %.12s from %s; see %s", c, dir, t->log);
			goto out;
		}
	}
	if (keep(t, c) != 0)
		goto out;
	*commit = g_strdup(c);
	rc = 0;
out:
	g_free(have);
	return rc;
}

/* A directory that is not a git tree: every file (its .gitignore files
 * are no excuse: Debian's ignores the whole tree) into a commit whose id
 * depends on the content alone. */
static int import_snapshot(struct lab_tree *t, const char *dir, char **commit)
{
	char *index = g_build_filename(t->root, "snapshot.index", NULL);
	char *ienv = g_strdup_printf("GIT_INDEX_FILE=%s", index);
	char *gd = g_build_filename(t->src, ".git", NULL);
	char *gdir = g_strdup_printf("--git-dir=%s", gd);
	char *wt = g_strdup_printf("--work-tree=%s", dir);
	char *add[] = { "env", ienv, "git", gdir, wt, "add", "-A", "-f", NULL };
	char *write[] = { "env", ienv, "git", gdir, "write-tree", NULL };
	char *msg = g_strdup_printf("snapshot of %s", dir), *tree = NULL;
	int rc = 1;

	if (copy_make(t, dir, false) != 0)
		goto out;
	lab_info("recording %s in the lab's copy (a first time reads every file)", dir);
	if (lab_run(add, NULL, t->log, GIT_TIMEOUT_S) != 0 || !(tree = git_line(write, NULL))) {
		lab_err("cannot record %s; see %s", dir, t->log);
		goto out;
	}
	{
		char *ct[] = { "env", "GIT_AUTHOR_DATE=1970-01-01T00:00:00+0000",
			       "GIT_COMMITTER_DATE=1970-01-01T00:00:00+0000", "git", gdir,
			       "-c", "user.name=lab", "-c", "user.email=lab@localhost",
			       "commit-tree", tree, "-m", msg, NULL };

		*commit = git_line(ct, NULL);
	}
	rc = *commit && keep(t, *commit) == 0 ? 0 : 1;
out:
	g_free(tree);
	g_free(msg);
	g_free(wt);
	g_free(gdir);
	g_free(gd);
	g_free(ienv);
	g_free(index);
	return rc;
}

/* COMMIT of git tree DIR is a kernel tree (the files lab needs, a
 * versioned Makefile). */
static char *commit_not_kernel(const char *dir, const char *commit)
{
	char *why = NULL;

	for (int i = 0; kernel_files[i] && !why; i++) {
		char *spec = g_strdup_printf("%s:%s", commit, kernel_files[i]);
		char *argv[] = { "git", "-c", "safe.directory=*", "cat-file", "-e", spec, NULL };

		if (lab_run(argv, dir, "/dev/null", 300) != 0)
			why = g_strdup_printf("%s at %.12s is not a kernel tree: it has no %s",
					      dir, commit, kernel_files[i]);
		g_free(spec);
	}
	if (!why) {
		char *spec = g_strdup_printf("%s:Makefile", commit), *mk = NULL;
		char *argv[] = { "git", "-c", "safe.directory=*", "show", spec, NULL };

		if (lab_run_capture(argv, dir, &mk, 300) != 0 || !versioned(mk))
			why = g_strdup_printf("%s at %.12s is not a kernel tree: its Makefile "
					      "sets no VERSION and PATCHLEVEL", dir, commit);
		g_free(mk);
		g_free(spec);
	}
	return why;
}

/* A git tree's REV: its commit, checked to be a kernel tree; 2 (said)
 * when it is not. Read only. */
static int git_commit(const char *dir, const char *rev, char **commit)
{
	char *why;

	*commit = rev && *rev == '-' ? NULL : rev_parse(dir, rev ? rev : "HEAD", "commit");
	if (!*commit) {
		lab_err("build: --tree %s: %s is no commit there%s", dir, rev ? rev : "HEAD",
			rev ? "" : " (a git tree without a commit yet?)");
		return 2;
	}
	if (!rev) { /* plumbing: never writes DIR's index, as git status would */
		char *argv[] = { "git", "-c", "safe.directory=*", "diff-index", "--quiet", "HEAD",
				 "--", NULL };

		if (lab_run(argv, dir, "/dev/null", 300) != 0)
			lab_info("note: %s has changes not committed; lab builds its HEAD, %.12s, "
				 "as committed", dir, *commit);
	}
	if ((why = commit_not_kernel(dir, *commit))) {
		lab_err("build: --tree %s", why);
		g_free(why);
		g_free(*commit);
		*commit = NULL;
		return 2;
	}
	return 0;
}

/* DIR's real path and its copy's id (and a git tree's commit), checked
 * before anything is made; 2 (said) when DIR is unusable. */
static int place(const char *dir, const char *rev, char **real, char **id, char **commit)
{
	char buf[PATH_MAX], *dotgit, *why = NULL;
	bool git;
	lab_hash *h;

	if (!realpath(dir, buf) || !g_file_test(buf, G_FILE_TEST_IS_DIR)) {
		lab_err("build: --tree %s: no such directory", dir);
		return 2;
	}
	dotgit = g_build_filename(buf, ".git", NULL);
	git = lab_exists(dotgit);
	g_free(dotgit);
	if (git && git_commit(buf, rev, commit) != 0)
		return 2;
	if (!git && rev) {
		lab_err("build: --rev %s: %s is not a git tree (it has no .git)", rev, buf);
		return 2;
	}
	if (!git && (why = lab_user_tree_not_kernel(buf))) {
		lab_err("build: --tree %s", why);
		g_free(why);
		return 2;
	}
	for (const char *const *p = (const char *const[]){ ".config", "include/config", NULL };
	     !git && *p; p++) {
		char *f = g_build_filename(buf, *p, NULL);
		bool built = lab_exists(f);

		g_free(f);
		if (built) { /* kbuild refuses an O= build of a configured tree */
			lab_err("build: --tree %s was configured or built in place (it has "
				"%s): run `make mrproper` in it, or give a clean copy", buf, *p);
			return 2;
		}
	}
	*real = g_strdup(buf);
	h = lab_hash_new();
	lab_hash_str(h, buf);
	*id = lab_hash_finish(h, 12);
	return 0;
}

int lab_user_tree_import(const char *dir, const char *rev, char **id, char **commit)
{
	struct lab_tree t;
	char *real = NULL, *root = NULL, *applied = NULL, *c = NULL;
	int rc;

	*commit = NULL;
	*id = NULL;
	if ((rc = place(dir, rev, &real, id, &c)) != 0) {
		g_free(c);
		return rc;
	}
	root = lab_user_tree_root(*id);
	applied = g_build_filename(root, "applied", NULL);
	lab_tree_init(&t, root, applied, real);
	rc = 1;
	if (lab_tree_lock(&t) != 0)
		goto out;
	lab_phase_begin("import the tree");
	rc = c ? import_git(&t, real, c, commit) : import_snapshot(&t, real, commit);
	lab_phase_end();
	if (rc == 0) {
		char *origin = g_build_filename(root, "origin", NULL);

		rc = lab_write_file(origin, real, -1) == 0 ? 0 : 1;
		g_free(origin);
	}
out:
	if (rc != 0) {
		g_free(*commit);
		*commit = NULL;
	}
	lab_tree_free(&t);
	g_free(c);
	g_free(real);
	g_free(root);
	g_free(applied);
	return rc;
}

/* The work tree at COMMIT: patches pushed on another commit popped, then
 * a checkout (only the files that differ change, so make rebuilds only
 * what they touch). A stamp says which commit is out. */
static int checkout(struct lab_tree *t, const char *commit)
{
	char *stamp = g_build_filename(t->root, "checked-out", NULL), *have = NULL;
	char *none[] = { NULL };
	char *argv[] = { "git", "checkout", "-q", "-f", "--detach", (char *)commit, NULL };
	int rc = 0;

	if (g_file_get_contents(stamp, &have, NULL, NULL) && !strcmp(have, commit))
		goto out;
	rc = -1;
	if (lab_tree_goto(t, none) != 0)
		goto out;
	unlink(stamp);
	lab_phase_begin("checkout");
	if (lab_run(argv, t->src, t->log, GIT_TIMEOUT_S) != 0) {
		lab_err("cannot check out %.12s in %s; see %s", commit, t->src, t->log);
		goto out;
	}
	rc = lab_write_file(stamp, commit, -1);
out:
	g_free(have);
	g_free(stamp);
	return rc;
}

int lab_user_tree_open(struct lab_tree *t, const char *id, const char *commit,
		       const char *what)
{
	char *root = lab_user_tree_root(id);
	char *applied = g_build_filename(root, "applied", NULL);
	char *dotgit = NULL;
	int rc = -1;

	lab_tree_init(t, root, applied, what);
	t->ident = g_strdup(commit);
	if (lab_tree_lock(t) != 0)
		goto out;
	dotgit = g_build_filename(t->src, ".git", NULL);
	if (!lab_exists(dotgit)) {
		lab_err("the lab's copy of %s is gone (%s): define the kernel again with "
			"`lab build NAME --tree DIR`", what, t->src);
		goto out;
	}
	if (lab_tree_ready(t) == 0)
		rc = checkout(t, commit);
out:
	g_free(dotgit);
	g_free(root);
	g_free(applied);
	return rc;
}
