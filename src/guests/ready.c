/* ready.c - see ready.h. */
#include "guests/ready.h"
#include "core/boot_steps.h"
#include "guests/instance.h"
#include "store/store.h"
#include "util/util.h"
#include "virt/agent.h"
#include "virt/conn.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define RESTORED_ANSWER_S 30 /* a restored guest answers the agent at once */

/* The image's lab-seed unit writes the exit status of the seed's
 * user-data to this file when it is done (guests/image/lab-seed). */
#define SEED_STATUS "/run/lab-seed/status"

/* 1 ready, 0 not yet, LAB_READY_SEED_FAILED. Polled twice a second while
 * guests boot: read by the agent itself, no process in the guest. */
static int guest_ready(virDomainPtr d)
{
	char *status = lab_agent_read_small(d, SEED_STATUS, 2);
	int rc = 0;

	if (status && *status)
		rc = atoi(status) == 0 ? 1 : LAB_READY_SEED_FAILED;
	g_free(status);
	return rc;
}

int lab_ready_poll(virConnectPtr c, const char *domain)
{
	virDomainPtr d = virDomainLookupByName(c, domain);
	int state = -1, reason, rc;

	if (d)
		virDomainGetState(d, &state, &reason, 0);
	rc = state != VIR_DOMAIN_RUNNING ? -1 : guest_ready(d);
	if (d)
		virDomainFree(d);
	return rc;
}

char *lab_ready_boot_steps(virConnectPtr c, const char *domain)
{
	virDomainPtr d = virDomainLookupByName(c, domain);
	struct lab_exec_result r = { 0 }, init = { 0 };
	char *line = NULL;

	if (d && lab_agent_exec(d, lab_boot_steps_argv, 30, 0, &r) == 0 && r.exit_code == 0 &&
	    lab_agent_exec(d, lab_boot_steps_init_argv, 30, 0, &init) == 0) {
		char *uptime = lab_agent_read_small(d, "/proc/uptime", 10);
		char *lines = lab_boot_steps_lines(r.out, init.out, uptime);

		line = lab_boot_steps(lines);
		g_free(lines);
		g_free(uptime);
	}
	lab_exec_result_clear(&init);
	lab_exec_result_clear(&r);
	if (d)
		virDomainFree(d);
	return line;
}

int lab_ready_wait(virConnectPtr c, const char *domain, int timeout_s)
{
	double t0 = lab_now();

	while (lab_now() - t0 < timeout_s && !lab_interrupted) {
		int ready = lab_ready_poll(c, domain);

		if (ready != 0)
			return ready > 0 ? 0 : -1;
		usleep(1000000);
	}
	return -1;
}

int lab_ready_settle(virConnectPtr c, const char *guest, const char *domain)
{
	virDomainPtr d = virDomainLookupByName(c, domain);
	double t0 = lab_now();
	bool answered = false;
	int rc = -1;

	while (d && !answered && lab_now() - t0 < RESTORED_ANSWER_S &&
	       !lab_interrupted)
		answered = lab_agent_ping(d, 5);
	if (!answered) {
		lab_err("restored guest %s does not answer its agent", guest);
	} else {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		if (virDomainSetTime(d, now.tv_sec, (unsigned int)now.tv_nsec, 0) != 0)
			lab_err("cannot set the clock of restored guest %s: %s",
				guest, lab_virt_error());
		else
			rc = 0;
	}
	if (d)
		virDomainFree(d);
	return rc;
}

void lab_ready_show_tail(struct lab_inst *in, const char *guest)
{
	char *vol = lab_inst_guest_get(in, guest, "console-vol");
	char *local = lab_inst_guest_get(in, guest, "console");
	char *tail;

	if (vol && local && in->store)
		lab_store_follow(in->store, vol, local);
	tail = local ? lab_tail(local, 15) : g_strdup("");
	lab_err("last console lines of %s (%s):\n%s", guest, local ? local : "?", tail);
	g_free(tail);
	g_free(vol);
	g_free(local);
}
