/* agent.h - the qemu guest agent, through virDomainQemuAgentCommand. */
#ifndef LAB_AGENT_H
#define LAB_AGENT_H

#include <stdbool.h>
#include <libvirt/libvirt.h>

struct lab_exec_result {
	int exit_code;   /* -1 when the command did not finish */
	char *out;
	char *err;
	bool timed_out;  /* still running when the time was up */
	long pid;        /* its pid in the guest (guest-exec's) */
};

/* Go on after Ctrl-C: for cleanup (knobs, mounts, netem, kills). */
#define LAB_AGENT_UNINTERRUPTIBLE 1u

/* true when the agent answers guest-ping within timeout_s. */
bool lab_agent_ping(virDomainPtr dom, int timeout_s);

/* Run argv[0] with args in the guest (guest-exec), wait up to timeout_s for
 * it to exit, collect its output. 0: it exited (res->exit_code); 1: it
 * still runs after timeout_s (res->timed_out, res->pid: the caller kills
 * it); -1: the agent failed or we were interrupted (message printed). */
int lab_agent_exec(virDomainPtr dom, const char *const *argv, int timeout_s,
		   unsigned flags, struct lab_exec_result *res);
/* The same, and stop waiting (return 1, as for a timeout) as soon as
 * stop(arg) says so: the runner watches the console for an oops that left
 * the program stuck where no signal reaches it. */
int lab_agent_exec_watch(virDomainPtr dom, const char *const *argv,
			 int timeout_s, unsigned flags, bool (*stop)(void *),
			 void *arg, struct lab_exec_result *res);
/* Convenience: /bin/sh -c CMD. */
int lab_agent_sh(virDomainPtr dom, const char *cmd, int timeout_s,
		 unsigned flags, struct lab_exec_result *res);
/* Wait up to timeout_s more for a guest-exec'd PID to end and take what
 * it printed: 0 when it ended (res filled). FLAGS: 0 stops waiting at
 * Ctrl-C; LAB_AGENT_UNINTERRUPTIBLE (after a kill) does not. */
int lab_agent_exec_collect(virDomainPtr dom, long pid, int timeout_s, unsigned flags,
			   struct lab_exec_result *res);
/* SIGKILL PID in the guest, or its whole process group (a command
 * started under setsid leads a group of its own). */
int lab_agent_kill(virDomainPtr dom, long pid, bool group);
/* The first 4 KiB of a file in the guest, read by the agent itself
 * (guest-file-open/read/close: no process started there), or NULL when
 * it cannot be opened (absent, or no agent yet). */
char *lab_agent_read_small(virDomainPtr dom, const char *path, int timeout_s);
void lab_exec_result_clear(struct lab_exec_result *res);

/* Build the guest-exec JSON request (exposed for unit tests). */
char *lab_agent_exec_request(const char *const *argv);

#endif
