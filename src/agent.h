/* agent.h - the qemu guest agent, through virDomainQemuAgentCommand. */
#ifndef LAB_AGENT_H
#define LAB_AGENT_H

#include <stdbool.h>
#include <libvirt/libvirt.h>

struct lab_exec_result {
	int exit_code;   /* -1 when the command did not finish */
	char *out;
	char *err;
	bool timed_out;
};

/* true when the agent answers guest-ping within timeout_s. */
bool lab_agent_ping(virDomainPtr dom, int timeout_s);

/* Run argv[0] with args in the guest (guest-exec), wait up to timeout_s for
 * it to exit, collect its output. Returns 0 when the agent ran it (see
 * res->exit_code), -1 when the agent failed (message printed). */
int lab_agent_exec(virDomainPtr dom, const char *const *argv, int timeout_s,
		   struct lab_exec_result *res);
/* Convenience: /bin/sh -c CMD. */
int lab_agent_sh(virDomainPtr dom, const char *cmd, int timeout_s,
		 struct lab_exec_result *res);
void lab_exec_result_clear(struct lab_exec_result *res);

/* Build the guest-exec JSON request (exposed for unit tests). */
char *lab_agent_exec_request(const char *const *argv);

#endif
