/* util.c - see util.h. */
#include "util/util.h"

#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t lab_interrupted;

static void on_signal(int sig)
{
	static const char msg[] = "\nlab: interrupted again: exiting now; "
				  "`lab down` removes what is left\n";

	(void)sig;
	if (lab_interrupted) { /* the user insists: no more unwinding */
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
			_exit(130);
		_exit(130);
	}
	lab_interrupted = 1;
}

/* A crash says where it happened before it ends lab as the signal would:
 * the backtrace goes to stderr (a job's log, CI's record), then the
 * default action (a spread job's parent sees the signal). */
static void on_crash(int sig)
{
	static const char msg[] = "\nlab: crashed; backtrace (`addr2line -f -e "
				  "lab OFFSET` names the +OFFSET frames):\n";
	void *frames[48];
	int n = backtrace(frames, 48);

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) > 0)
		backtrace_symbols_fd(frames, n, STDERR_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_signal(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void lab_install_signal_handlers(void)
{
	void *warm[1];

	/* No SA_RESTART: a blocking wait returns EINTR so we can unwind. */
	catch_signal(SIGINT, on_signal);
	catch_signal(SIGTERM, on_signal);
	catch_signal(SIGHUP, on_signal);
	/* backtrace() loads libgcc on its first call: not in a handler */
	backtrace(warm, 1);
	catch_signal(SIGSEGV, on_crash);
	catch_signal(SIGBUS, on_crash);
	catch_signal(SIGABRT, on_crash);
	/* `lab up | head -1` must not kill lab halfway through a bring-up:
	 * writes to a closed pipe fail with EPIPE instead, and are ignored. */
	signal(SIGPIPE, SIG_IGN);
}

static char *log_prefix;

void lab_log_prefix(const char *prefix)
{
	g_free(log_prefix);
	log_prefix = prefix ? g_strdup_printf("[%s] ", prefix) : NULL;
}

void lab_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("lab: error: ", stderr);
	if (log_prefix)
		fputs(log_prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void lab_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (log_prefix)
		fputs(log_prefix, stdout);
	vfprintf(stdout, fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	va_end(ap);
}

const char *lab_home(void)
{
	static char *home;
	const char *env = getenv("LAB_HOME");

	if (home)
		return home;
	if (env && *env)
		home = g_strdup(env);
	else if (geteuid() == 0)
		home = g_strdup("/var/lib/lab");
	else
		home = g_build_filename(g_get_user_cache_dir(), "lab", NULL);
	return home;
}

const char *lab_srcdir(void)
{
	static char *dir;
	const char *env = getenv("LAB_SRC");
	char exe[PATH_MAX];
	ssize_t n;

	if (dir)
		return dir;
	if (env && *env) {
		dir = g_strdup(env);
		return dir;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		dir = g_path_get_dirname(exe);
	} else {
		dir = g_strdup(".");
	}
	return dir;
}

char *lab_path(const char *rel)
{
	return g_build_filename(lab_home(), rel, NULL);
}

char *lab_src_path(const char *rel)
{
	return g_build_filename(lab_srcdir(), rel, NULL);
}

int lab_mkdir_p(const char *path)
{
	if (g_mkdir_with_parents(path, 0755) != 0) {
		lab_err("cannot create directory %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

char *lab_unique_dir(const char *root, const char *suffix, char **id)
{
	char stamp[32], *dir = NULL, *base;
	time_t now = time(NULL);

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	base = suffix ? g_strdup_printf("%s-%s", stamp, suffix) : g_strdup(stamp);
	if (lab_mkdir_p(root) != 0) {
		g_free(base);
		return NULL;
	}
	for (int n = 1; n < 100 && !dir; n++) {
		*id = n == 1 ? g_strdup(base) : g_strdup_printf("%s-%d", base, n);
		dir = g_build_filename(root, *id, NULL);
		if (mkdir(dir, 0755) != 0) {
			g_clear_pointer(&dir, g_free);
			g_clear_pointer(id, g_free);
		}
	}
	if (!dir)
		lab_err("cannot make a new directory %s-N under %s", base, root);
	g_free(base);
	return dir;
}

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (remove(p) != 0 && errno != ENOENT) {
		lab_err("cannot remove %s: %s", p, strerror(errno));
		return 0; /* go on: remove what can be removed */
	}
	(void)flag;
	return 0;
}

/* Natively, not through rm(1): it must work after Ctrl-C too, when no
 * child process may be started. Never follows symlinks. */
int lab_rm_rf(const char *path)
{
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT)
		return -1;
	return lab_exists(path) ? -1 : 0;
}

static goffset du_total;

static int du_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)p;
	(void)ftw;
	if (flag == FTW_F)
		du_total += (goffset)st->st_blocks * 512;
	return 0;
}

goffset lab_du(const char *path)
{
	du_total = 0;
	nftw(path, du_one, 16, FTW_PHYS);
	return du_total;
}

bool lab_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int lab_write_file(const char *path, const char *data, gssize len)
{
	GError *gerr = NULL;

	/* a temp file, fsynced, renamed; 0644 whatever the umask lets through
	 * (0666 by default): results are read by others, written by lab only */
	if (!g_file_set_contents_full(path, data, len,
				      G_FILE_SET_CONTENTS_CONSISTENT, 0644, &gerr)) {
		lab_err("cannot write %s: %s", path, gerr->message);
		g_error_free(gerr);
		return -1;
	}
	return 0;
}

static void child_redirect(const char *log_path, int out_fd)
{
	int fd;

	if (out_fd >= 0) {
		dup2(out_fd, STDOUT_FILENO);
		close(out_fd);
	}
	if (log_path) {
		fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0)
			_exit(127);
		if (out_fd < 0)
			dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0)
		dup2(fd, STDIN_FILENO);
}

static lab_tick_fn tick_fn;
static void *tick_arg;

void lab_run_set_tick(lab_tick_fn fn, void *arg)
{
	tick_fn = fn;
	tick_arg = arg;
}

/* Wait for pid; kill its process group on timeout or interrupt. */
static int wait_child(pid_t pid, int timeout_s, unsigned flags, int out_fd,
		      GString *out)
{
	double deadline = timeout_s > 0 ? lab_now() + timeout_s : 0;
	double next_tick = lab_now() + 1;
	int status = 0, killed = 0;
	char buf[4096];

	for (;;) {
		pid_t r;

		if (tick_fn && lab_now() >= next_tick) {
			tick_fn(tick_arg);
			next_tick = lab_now() + 1;
		}

		if (out_fd >= 0) {
			ssize_t n = read(out_fd, buf, sizeof(buf));

			if (n > 0) {
				g_string_append_len(out, buf, n);
				continue;
			}
		}
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -1;
		if (!killed && ((lab_interrupted && !(flags & LAB_RUN_UNINTERRUPTIBLE)) ||
				(deadline && lab_now() > deadline))) {
			killed = deadline && lab_now() > deadline ? 124 : 130;
			kill(-pid, SIGTERM);
			usleep(200000);
			kill(-pid, SIGKILL);
		}
		usleep(out_fd >= 0 ? 2000 : 20000);
	}
	if (out_fd >= 0) {
		ssize_t n;

		while ((n = read(out_fd, buf, sizeof(buf))) > 0)
			g_string_append_len(out, buf, n);
	}
	if (killed)
		return killed;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

static int run_common(char *const argv[], const char *cwd, const char *log,
		      int timeout_s, unsigned flags, char **out)
{
	int pipefd[2] = { -1, -1 };
	GString *buf = NULL;
	pid_t pid, parent;
	int rc;

	if (out) {
		if (pipe2(pipefd, O_CLOEXEC) < 0)
			return -1;
		fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
		buf = g_string_new(NULL);
	}
	parent = getpid();
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		setpgid(0, 0); /* own group: a timeout kills the whole tree */
		/* and a SIGKILLed lab takes its make, mmdebstrap, ... along */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		child_redirect(log, out ? pipefd[1] : -1);
		if (cwd && chdir(cwd) != 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "lab: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	if (out)
		close(pipefd[1]);
	rc = wait_child(pid, timeout_s, flags, out ? pipefd[0] : -1, buf);
	if (out) {
		close(pipefd[0]);
		*out = g_string_free(buf, FALSE);
	}
	return rc;
}

int lab_run(char *const argv[], const char *cwd, const char *log_path,
	    int timeout_s)
{
	return run_common(argv, cwd, log_path, timeout_s, 0, NULL);
}

int lab_run_capture(char *const argv[], const char *cwd, char **out,
		    int timeout_s)
{
	return run_common(argv, cwd, NULL, timeout_s, 0, out);
}

int lab_run_capture_flags(char *const argv[], const char *cwd, char **out,
			  int timeout_s, unsigned flags)
{
	return run_common(argv, cwd, NULL, timeout_s, flags, out);
}

int lab_parse_count(const char *s, long min, long max, int *out)
{
	char *end;
	long v;

	if (!s || !*s || !g_ascii_isdigit(*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

struct lab_hash {
	GChecksum *sum;
};

lab_hash *lab_hash_new(void)
{
	lab_hash *h = g_new0(lab_hash, 1);

	h->sum = g_checksum_new(G_CHECKSUM_SHA256);
	return h;
}

void lab_hash_str(lab_hash *h, const char *s)
{
	/* Length-prefix each item so "ab"+"c" differs from "a"+"bc". */
	char len[32];

	snprintf(len, sizeof(len), "%zu:", strlen(s));
	g_checksum_update(h->sum, (const guchar *)len, strlen(len));
	g_checksum_update(h->sum, (const guchar *)s, strlen(s));
}

int lab_hash_file(lab_hash *h, const char *path)
{
	gchar *data;
	gsize len;
	char hdr[64];

	if (!g_file_get_contents(path, &data, &len, NULL)) {
		lab_err("cannot read %s", path);
		return -1;
	}
	snprintf(hdr, sizeof(hdr), "file:%zu:", (size_t)len);
	g_checksum_update(h->sum, (const guchar *)hdr, strlen(hdr));
	g_checksum_update(h->sum, (const guchar *)data, len);
	g_free(data);
	return 0;
}

void lab_hash_dir(lab_hash *h, const char *dir)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	const char *n;
	guint i;

	while (d && (n = g_dir_read_name(d)))
		g_ptr_array_add(names, g_strdup(n));
	if (d)
		g_dir_close(d);
	g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
	for (i = 0; i < names->len; i++) {
		char *p = g_build_filename(dir, g_ptr_array_index(names, i), NULL);

		lab_hash_str(h, g_ptr_array_index(names, i));
		if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
			lab_hash_file(h, p);
		g_free(p);
	}
	g_ptr_array_free(names, TRUE);
}

char *lab_hash_finish(lab_hash *h, size_t hex_chars)
{
	char *hex = g_strndup(g_checksum_get_string(h->sum), hex_chars);

	g_checksum_free(h->sum);
	g_free(h);
	return hex;
}

double lab_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct phase {
	char *name;
	double secs;
};

static GArray *phases;
static char *cur_phase;
static double cur_start;

void lab_phase_begin(const char *name)
{
	if (cur_phase)
		lab_phase_end();
	cur_phase = g_strdup(name);
	cur_start = lab_now();
}

void lab_phase_forget(void)
{
	guint i;

	g_clear_pointer(&cur_phase, g_free);
	for (i = 0; phases && i < phases->len; i++)
		g_free(g_array_index(phases, struct phase, i).name);
	if (phases)
		g_array_set_size(phases, 0);
}

void lab_phase_end(void)
{
	struct phase p;

	if (!cur_phase)
		return;
	if (!phases)
		phases = g_array_new(FALSE, FALSE, sizeof(struct phase));
	p.name = cur_phase;
	p.secs = lab_now() - cur_start;
	g_array_append_val(phases, p);
	lab_info("phase %-24s %7.1f s", p.name, p.secs);
	cur_phase = NULL;
}

void lab_phase_summary(void)
{
	double total = 0;
	guint i;

	lab_phase_end();
	if (!phases || phases->len == 0)
		return;
	lab_info("# timing (seconds per phase)");
	for (i = 0; i < phases->len; i++) {
		struct phase *p = &g_array_index(phases, struct phase, i);

		lab_info("#   %-24s %7.1f", p->name, p->secs);
		total += p->secs;
	}
	lab_info("#   %-24s %7.1f", "total", total);
}

char *lab_phase_text(void)
{
	GString *s = g_string_new("");
	double total = 0;
	guint i;

	for (i = 0; phases && i < phases->len; i++) {
		struct phase *p = &g_array_index(phases, struct phase, i);

		g_string_append_printf(s, "%s%s %.0f s", s->len ? ", " : "", p->name, p->secs);
		total += p->secs;
	}
	g_string_append_printf(s, "%stotal %.0f s", s->len ? "; " : "", total);
	return g_string_free(s, FALSE);
}

char *lab_tail(const char *path, int n)
{
	gchar *data = NULL;
	gsize len = 0;
	const char *p;
	int lines = 0;
	char *res;

	if (!g_file_get_contents(path, &data, &len, NULL))
		return g_strdup("");
	p = data + len;
	while (p > data) {
		p--;
		if (*p == '\n' && p != data + len - 1 && ++lines >= n) {
			p++;
			break;
		}
	}
	res = g_strdup(p);
	g_free(data);
	return res;
}

size_t lab_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t *prev = g_new(size_t, lb + 1), *cur = g_new(size_t, lb + 1), *t, d;

	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);

			cur[j] = MIN(MIN(prev[j] + 1, cur[j - 1] + 1), sub);
		}
		t = prev;
		prev = cur;
		cur = t;
	}
	d = prev[lb];
	g_free(prev);
	g_free(cur);
	return d;
}

gint lab_strcmp_p(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *lab_html_esc(const char *s)
{
	char *ok = g_utf8_make_valid(s ? s : "", -1);
	char *e = g_markup_escape_text(ok, -1);

	g_free(ok);
	return e;
}
