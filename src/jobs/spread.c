/* spread.c - see spread.h. A child is a fork of lab itself: it inherits
 * the built kernels, image and tests disk the parent prepared, and opens
 * its own libvirt connection (the parent holds none while children run). */
#include "jobs/spread.h"
#include "util/util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void child(struct lab_spread_job *j, int out)
{
	bool lost = false;
	char *res;
	size_t len;

	setenv("LAB_INSTANCE", j->instance, 1);
	lab_log_prefix(j->label);
	res = j->fn(j->arg, j->host, &lost);
	len = res ? strlen(res) : 0;
	if (res && write(out, res, len) != (ssize_t)len)
		res = NULL;
	close(out);
	fflush(stdout);
	fflush(stderr);
	_exit(res ? 0 : lost ? LAB_SPREAD_HOST_LOST : 1);
}

static int spawn(struct lab_spread_job *j)
{
	int p[2];

	if (pipe(p) != 0) {
		lab_err("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	j->t0 = lab_now();
	j->pid = fork();
	if (j->pid < 0) {
		lab_err("fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (j->pid == 0) {
		close(p[0]);
		child(j, p[1]);
	}
	close(p[1]);
	j->fd = p[0];
	lab_info("%s: started on host %s (instance %s)", j->label,
		 j->host ? j->host : "local", j->instance);
	return 0;
}

/* A child that died by a signal could not tear down what it brought up:
 * `lab down` of its instance (a fresh lab, which reads the instance's
 * state and touches only what it owns) leaves nothing behind. */
static bool down_after_crash(const struct lab_spread_job *j)
{
	char *argv[] = { (char *)(j->down ? j->down : "/proc/self/exe"), "down", NULL };
	gchar **env = g_environ_setenv(g_get_environ(), "LAB_INSTANCE", j->instance, TRUE);
	GError *gerr = NULL;
	gint rc = 0;
	bool ok = g_spawn_sync(NULL, argv, env, G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL,
			       NULL, NULL, &rc, &gerr) && g_spawn_check_wait_status(rc, NULL);

	if (!ok)
		lab_err("%s: `LAB_INSTANCE=%s lab down` after the crash failed%s%s: run it "
			"by hand", j->label, j->instance, gerr ? ": " : "",
			gerr ? gerr->message : "");
	g_clear_error(&gerr);
	g_strfreev(env);
	return ok;
}

/* A crash of lab itself (seen: SIGSEGV inside libvirt's remote client),
 * not a signal someone sent to stop it. */
static bool crash_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT || sig == SIGILL ||
	       sig == SIGFPE;
}

/* The result is small (a path): it sits in the pipe until the child ends. */
static void reap(struct lab_spread_job *j, int status)
{
	GString *s = g_string_new("");
	char buf[512];
	ssize_t n;

	while ((n = read(j->fd, buf, sizeof(buf))) > 0)
		g_string_append_len(s, buf, n);
	close(j->fd);
	j->fd = -1;
	j->pid = 0;
	j->seconds = lab_now() - j->t0;
	j->ran_on = j->host;
	j->host_lost = WIFEXITED(status) && WEXITSTATUS(status) == LAB_SPREAD_HOST_LOST;
	g_free(j->result);
	j->result = WIFEXITED(status) && WEXITSTATUS(status) == 0 && s->len
		? g_string_free(s, FALSE) : (g_string_free(s, TRUE), NULL);
	j->crashed = false;
	if (WIFSIGNALED(status)) { /* a crash of the child is said, not a bare "failed" */
		lab_err("%s: lab's job on host %s was killed by signal %d (%s)",
			j->label, j->host ? j->host : "local", WTERMSIG(status),
			strsignal(WTERMSIG(status)));
		j->crashed = down_after_crash(j) && crash_signal(WTERMSIG(status));
	}
	lab_info("%s: %s on host %s after %.0f s", j->label,
		 j->result ? "done" : j->host_lost ? "its host dropped out" : "failed",
		 j->host ? j->host : "local", j->seconds);
}

/* Wait for every running child; a Ctrl-C of ours is passed on once (a
 * TERM from outside reaches only us). */
static void wait_all(struct lab_spread_job *jobs, guint n)
{
	bool passed = false;
	guint i, left = 0;

	for (i = 0; i < n; i++)
		left += jobs[i].pid > 0;
	while (left) {
		int status;
		pid_t pid = waitpid(-1, &status, 0);

		if (pid < 0 && errno == EINTR) {
			if (lab_interrupted && !passed) {
				for (i = 0; i < n; i++)
					if (jobs[i].pid > 0)
						kill(jobs[i].pid, SIGINT);
				passed = true;
			}
			continue;
		}
		if (pid < 0)
			break;
		for (i = 0; i < n; i++)
			if (jobs[i].pid == pid) {
				reap(&jobs[i], status);
				left--;
			}
	}
}

static const char *good_host(struct lab_spread_job *jobs, guint n, bool *any)
{
	guint i;

	for (i = 0; i < n; i++)
		if (jobs[i].result) {
			*any = true;
			return jobs[i].ran_on;
		}
	*any = false;
	return NULL;
}

int lab_spread_run(struct lab_spread_job *jobs, guint n)
{
	guint i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++)
		rc = spawn(&jobs[i]);
	wait_all(jobs, n);
	for (i = 0; i < n && !lab_interrupted; i++) {
		bool any;
		const char *to = good_host(jobs, n, &any);

		if (!jobs[i].host_lost || !any)
			continue;
		lab_err("host %s dropped out: %s goes to host %s",
			jobs[i].host ? jobs[i].host : "local", jobs[i].label,
			to ? to : "local");
		/* the instance of the job that finished there is down again */
		jobs[i].host = to;
		for (guint k = 0; k < n; k++)
			if (jobs[k].result && jobs[k].ran_on == to)
				jobs[i].instance = jobs[k].instance;
		if (spawn(&jobs[i]) == 0)
			wait_all(&jobs[i], 1);
	}
	/* a job lab itself crashed in runs once more where it was, from
	 * scratch (its instance is down): a second crash stays a failure */
	for (i = 0; i < n && !lab_interrupted; i++) {
		if (!jobs[i].crashed)
			continue;
		lab_err("%s: lab crashed in this job (its instance is down again): "
			"running it once more on host %s", jobs[i].label,
			jobs[i].host ? jobs[i].host : "local");
		if (spawn(&jobs[i]) == 0)
			wait_all(&jobs[i], 1);
		jobs[i].crashed = false;
	}
	if (lab_interrupted)
		return 130;
	for (i = 0; i < n; i++)
		if (!jobs[i].result)
			rc = 1;
	return rc;
}

void lab_spread_clear(struct lab_spread_job *jobs, guint n)
{
	guint i;

	for (i = 0; i < n; i++)
		g_clear_pointer(&jobs[i].result, g_free);
}
