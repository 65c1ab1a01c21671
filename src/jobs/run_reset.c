/* run_reset.c - a test that may reset its NFS server (suite.ini
 * reset_server=true) asks by creating RESET_REQUEST in its guest; while
 * the program runs the runner looks once a second, resets the server hard
 * (guests/restart.c: memory gone, disks kept; not a restore, which would
 * roll its disk back) and answers in RESET_DONE: "ok", or why not. The
 * program then waits for the server itself, as an application would. */
#include "jobs/run_ctx.h"
#include "guests/restart.h"
#include "util/util.h"
#include "virt/agent.h"
#include "virt/conn.h"

#include <string.h>

#define RESET_REQUEST "/run/lab-reset-request"
#define RESET_DONE "/run/lab-reset-done"
#define POLL_S 1.0

void lab_run_reset_poll(struct run_ctx *c, const struct spec *s, double *polled)
{
	virDomainPtr d;
	char *req, *save, *cmd;
	double t0 = lab_now();
	int rc;

	if (!s->t->reset_server || !s->server || t0 - *polled < POLL_S)
		return;
	*polled = t0;
	d = lab_virt_guest(c->conn, s->g->name);
	req = d ? lab_agent_read_small(d, RESET_REQUEST, 5) : NULL;
	if (d)
		virDomainFree(d);
	if (!req)
		return;
	save = g_strdup_printf("%s/tests/%s", c->run.dir, s->name);
	lab_mkdir_p(save);
	g_free(save);
	save = g_strdup_printf("%s/tests/%s/console-%s-before-reset.log", c->run.dir, s->name,
			       s->server->name);
	lab_info("%s: resetting %s hard (the test asked)", s->name, s->server->name);
	rc = lab_guest_reset(c->in, s->server->name, save);
	lab_info("%s: %s reset in %.1f s: %s", s->name, s->server->name, lab_now() - t0,
		 rc == 0 ? "booting again" : "failed");
	/* whole or not at all: the program reads it as soon as it is there */
	cmd = g_strdup_printf("rm -f " RESET_REQUEST "; echo %s > " RESET_DONE ".new && "
			      "mv " RESET_DONE ".new " RESET_DONE,
			      rc == 0 ? "ok" : "'the runner could not reset the server'");
	lab_run_gsh(c, s->g->name, cmd, 30, 0, NULL);
	g_free(cmd);
	g_free(save);
	g_free(req);
}
