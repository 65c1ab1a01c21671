/* spread.h - work spread over hosts: each job runs in a child process of
 * its own (its own LAB_INSTANCE, its own libvirt connection to its host,
 * every message prefixed with its label), all at the same time; a job
 * whose host dropped out is reported and run again on a host whose job
 * finished. */
#ifndef LAB_SPREAD_H
#define LAB_SPREAD_H

#include <glib.h>
#include <stdbool.h>
#include <sys/types.h>

/* What a job does in its child: on HOST (a hosts.ini name, NULL: the local
 * default), returns its result (a path, say) or NULL; sets *host_lost when
 * it failed because the host did (could not bring guests up there, or its
 * libvirtd stopped answering). */
typedef char *(*lab_spread_fn)(void *arg, const char *host, bool *host_lost);

struct lab_spread_job {
	const char *label;    /* "baseline" */
	const char *instance; /* LAB_INSTANCE of its child */
	const char *host;     /* where it runs first (NULL: the local default) */
	lab_spread_fn fn;
	void *arg;
	/* out */
	const char *ran_on;   /* the host it finished on */
	char *result;         /* fn's result, NULL when it failed */
	bool host_lost;       /* its last host dropped out */
	bool crashed;         /* lab itself died of a crash signal in it, and
			       * its instance was taken down after */
	const char *down;     /* the lab that takes a crashed job's instance
			       * down (NULL: /proc/self/exe) */
	double seconds;
	/* the child */
	pid_t pid;
	int fd;
	double t0;
};

/* Run every job at once, each in its child; then each job whose host
 * dropped out once more on a host that served a job to the end (one at a
 * time, in job order). Ctrl-C reaches the children (same process group)
 * and is waited out. 0 when every job has a result, 130 interrupted, else
 * 1. */
int lab_spread_run(struct lab_spread_job *jobs, guint n);
void lab_spread_clear(struct lab_spread_job *jobs, guint n);

/* The child's exit code when its host dropped out. */
#define LAB_SPREAD_HOST_LOST 3

#endif
