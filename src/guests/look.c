/* look.c - looking at the guests of the instance that is up: `lab status`,
 * `lab console`, `lab exec`. The console log is a volume of the store; the
 * local copy under the instance directory follows it (only new bytes). */
#include "guests/look.h"
#include "core/owner.h"
#include "guests/instance.h"
#include "store/store.h"
#include "util/util.h"
#include "virt/agent.h"
#include "virt/conn.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *state_word(int s)
{
	switch (s) {
	case VIR_DOMAIN_RUNNING: return "running";
	case VIR_DOMAIN_BLOCKED: return "blocked";
	case VIR_DOMAIN_PAUSED: return "paused";
	case VIR_DOMAIN_SHUTDOWN: return "shutting-down";
	case VIR_DOMAIN_SHUTOFF: return "shut-off";
	case VIR_DOMAIN_CRASHED: return "crashed";
	default: return "unknown";
	}
}

static void status_line(struct lab_inst *in, const char *guest)
{
	char *dom = lab_inst_guest_get(in, guest, "domain");
	char *role = lab_inst_guest_get(in, guest, "role");
	char *kern = lab_inst_guest_get(in, guest, "kernel");
	char *addr = lab_inst_guest_get(in, guest, "address");
	char *boot = lab_inst_guest_get(in, guest, "boot");
	char *grp = g_strdup_printf("guest %s", guest);
	long up = time(NULL) - g_key_file_get_int64(in->state, grp, "started", NULL);
	virDomainPtr d = dom ? virDomainLookupByName(in->conn, dom) : NULL;
	int s = -1, r;

	if (d) {
		virDomainGetState(d, &s, &r, 0);
		virDomainFree(d);
	}
	printf("%-12s %-10s %-9s %-8s %-18s %-9s ", guest, role ? role : "?",
	       d ? state_word(s) : "gone", kern ? kern : "?", addr ? addr : "?",
	       boot ? boot : "booted");
	if (d)
		printf("%ld s\n", up);
	else
		printf("-\n");
	g_free(dom);
	g_free(role);
	g_free(kern);
	g_free(addr);
	g_free(boot);
	g_free(grp);
}

int lab_status(struct lab_inst *in)
{
	char **guests = lab_inst_guests(in->state);
	char *host = g_key_file_get_string(in->state, "instance", "host", NULL);
	int i;

	printf("%-12s %-10s %-9s %-8s %-18s %-9s %s\n", "GUEST", "ROLE", "STATE",
	       "KERNEL", "ADDRESS", "BOOT", "UPTIME");
	for (i = 0; guests[i]; i++)
		status_line(in, guests[i]);
	if (host && in->store)
		printf("on host %s, store %s (%s)\n", host, in->store->dir,
		       in->store->here ? "on this machine" : "through libvirt");
	g_strfreev(guests);
	g_free(host);
	return 0;
}

int lab_console(struct lab_inst *in, const char *guest, bool follow)
{
	char *vol = lab_inst_guest_get(in, guest, "console-vol");
	char *path = lab_inst_guest_get(in, guest, "console");
	FILE *f = NULL;
	char buf[4096];
	int rc = 1;

	if (!vol || !path) {
		lab_err("no guest '%s' in instance '%s' (see `lab status`)", guest,
			lab_instance());
		goto out;
	}
	if (lab_store_follow(in->store, vol, path) != 0)
		goto out;
	if (!(f = fopen(path, "r"))) {
		lab_err("no console log for guest '%s' yet (%s)", guest, path);
		goto out;
	}
	rc = 0;
	while (!lab_interrupted) {
		size_t n = fread(buf, 1, sizeof(buf), f);

		if (n > 0) {
			fwrite(buf, 1, n, stdout);
			fflush(stdout);
			continue;
		}
		if (!follow)
			break;
		usleep(1000000);
		clearerr(f);
		/* a new boot starts the log again: the copy starts over too */
		if (lab_store_follow(in->store, vol, path) != 0)
			break;
	}
out:
	if (f)
		fclose(f);
	g_free(vol);
	g_free(path);
	return rc;
}

int lab_exec(struct lab_inst *in, const char *guest, char **argv, int timeout)
{
	struct lab_exec_result r;
	virDomainPtr d = lab_virt_guest(in->conn, guest);
	int how, rc;

	if (!d)
		return 1;
	how = lab_agent_exec(d, (const char *const *)argv, timeout, 0, &r);
	if (how == 1) {
		lab_err("%s: still running after %d s: killed", guest, timeout);
		lab_agent_kill(d, r.pid, false);
	}
	fputs(r.out ? r.out : "", stdout);
	fputs(r.err ? r.err : "", stderr);
	rc = how == 0 ? (r.exit_code < 0 ? 1 : r.exit_code) : how == 1 ? 124 : 1;
	lab_exec_result_clear(&r);
	virDomainFree(d);
	return rc;
}
