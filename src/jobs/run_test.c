/* run_test.c - one test in its guest, through the guest agent: BEGIN/END
 * markers in /dev/kmsg, the taint before and after, knobs, netem and the
 * NFS mount set and put back whatever happens, the program as its own
 * process group under a hard bound, and the verdict from what it showed
 * (verdict.h's one table). A guest that died, hung or spent its kernel is
 * brought back before its next test. */
#include "jobs/run_ctx.h"
#include "jobs/run.h"
#include "core/console.h"
#include "core/owner.h"
#include "guests/instance.h"
#include "guests/restart.h"
#include "store/store.h"
#include "util/util.h"
#include "virt/agent.h"
#include "virt/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- one command in a guest ---- */

/* Run a shell command; *out gets stdout. -1 when the agent did not answer
 * (the guest may be dead), else the command's exit status. */
int lab_run_gsh(struct run_ctx *c, const char *guest, const char *cmd,
	       int timeout_s, unsigned flags, char **out)
{
	virDomainPtr d = lab_virt_guest(c->conn, guest);
	struct lab_exec_result r;
	int rc = -1;

	if (d && lab_agent_sh(d, cmd, timeout_s, flags, &r) == 0) {
		rc = r.exit_code;
		if (out)
			*out = g_strdup(r.out ? r.out : "");
		lab_exec_result_clear(&r);
	} else if (d) {
		if (r.timed_out)
			lab_agent_kill(d, r.pid, false);
		lab_exec_result_clear(&r);
	}
	if (d)
		virDomainFree(d);
	return rc;
}

static long read_taint(struct run_ctx *c, const char *guest)
{
	char *out = NULL;
	long v = -1;

	if (lab_run_gsh(c, guest, "cat /proc/sys/kernel/tainted", 30,
		LAB_AGENT_UNINTERRUPTIBLE, &out) == 0)
		v = strtol(out, NULL, 10);
	g_free(out);
	return v;
}

void lab_run_kmsg_marker(struct run_ctx *c, const char *guest, const char *text)
{
	/* <4>: still shown if someone lowers the console loglevel */
	char *cmd = g_strdup_printf("echo '<4>lab: %s' > /dev/kmsg", text);

	lab_run_gsh(c, guest, cmd, 30, LAB_AGENT_UNINTERRUPTIBLE, NULL);
	g_free(cmd);
}

/* ---- what the runner puts around a test ---- */

/* Each knob's old value goes to /run/lab-knob.N.old so cleanup can put it
 * back. The suite map's grammar (suite.c) keeps paths and values
 * shell-safe. */
static char *knob_set(struct run_ctx *c, const struct spec *s)
{
	GString *note = g_string_new("");
	int i;

	for (i = 0; s->t->amplifiers && s->t->amplifiers[i]; i++) {
		char **kv = g_strsplit(s->t->amplifiers[i], "=", 2);
		char *out = NULL;
		char *cmd = g_strdup_printf(
			"if [ -w '%s' ]; then cat '%s' > /run/lab-knob.%d.old && "
			"echo '%s' > '%s' && echo on; else echo absent; fi",
			kv[0], kv[0], i, kv[1] ? kv[1] : "", kv[0]);

		lab_run_gsh(c, s->g->name, cmd, 30, 0, &out);
		g_string_append_printf(note, "%srace knob %s: %s", note->len ? "; " : "",
				       s->t->amplifiers[i],
				       out && g_str_has_prefix(out, "on")
				       ? "on (lab test knob, both kernels: patches/*/support)"
				       : "absent in this kernel");
		g_free(out);
		g_free(cmd);
		g_strfreev(kv);
	}
	return g_string_free(note, note->len == 0);
}

/* Knob, netem and mount go back on every exit path: a test that passed,
 * failed, timed out or was interrupted leaves the guest as it found it. */
static void test_cleanup(struct run_ctx *c, const struct spec *s)
{
	GString *cmd = g_string_new("");
	int i;

	if (s->t->netem)
		g_string_append(cmd, "tc qdisc del dev eth0 root 2>/dev/null; ");
	if (s->t->nfs_mount)
		g_string_append(cmd, "umount -f -l " NFS_DIR " 2>/dev/null; ");
	for (i = 0; s->t->amplifiers && s->t->amplifiers[i]; i++) {
		char **kv = g_strsplit(s->t->amplifiers[i], "=", 2);

		g_string_append_printf(cmd, "if [ -w '%s' ] && [ -s /run/lab-knob.%d.old ]; then "
				       "cat /run/lab-knob.%d.old > '%s'; rm -f /run/lab-knob.%d.old; fi; ",
				       kv[0], i, i, kv[0], i);
		g_strfreev(kv);
	}
	if (cmd->len)
		lab_run_gsh(c, s->g->name, cmd->str, 60, LAB_AGENT_UNINTERRUPTIBLE, NULL);
	g_string_free(cmd, TRUE);
}

/* LAB_GUESTS='ROLE=ADDRESS;...' for the test's guest and every peer: a
 * test with parts finds its server and its other clients there. */
static void append_guests(struct run_ctx *c, const struct spec *s, GString *cmd)
{
	char **peer;

	g_string_append_printf(cmd, " LAB_GUESTS='%s=%s", s->g->role ? s->g->role : "",
			       s->g->address ? s->g->address : "");
	for (peer = s->t->peers; peer && *peer; peer++) {
		char *one[] = { *peer, NULL };
		struct guest *pg = lab_run_guest_with_role(c->guests, one);

		if (pg && pg != s->g)
			g_string_append_printf(cmd, ";%s=%s", *peer,
					       pg->address ? pg->address : "");
	}
	g_string_append_c(cmd, '\'');
}

/* The script the test runs in: plumbing the suite map asks for (an NFS
 * mount at the version under test, a netem delay), then the program under
 * the guest's own timeout. A setup that fails is exit 3 (error), never a
 * verdict on the kernel. It runs as its own process group (setsid). A
 * part (PART: its role) runs PROGRAM with none of the plumbing, which is
 * the test guest's. */
char *lab_run_script(struct run_ctx *c, const struct spec *s,
		     const char *program, const char *part)
{
	GString *cmd = g_string_new("cd /tmp || exit 3; ");
	const char *server = s->server ? s->server->address : c->nfs_server;

	if (!part && c->o->inject_crash && s == g_ptr_array_index(c->specs, 0))
		g_string_append(cmd, "sleep 2; echo c > /proc/sysrq-trigger; sleep 60; ");

	if (!part && s->t->nfs_mount && server)
		g_string_append_printf(cmd, "mkdir -p " NFS_DIR " && mount -t nfs -o "
				       "vers=%s,nosharecache %s:/srv/nfs " NFS_DIR
				       " || exit 3; ", s->vers ? s->vers : "3", server);
	if (!part && s->t->netem)
		g_string_append_printf(cmd, "tc qdisc replace dev eth0 root netem "
				       "delay %s || exit 3; ", s->t->netem);
	g_string_append(cmd, "exec env");
	/* first: the runner's own settings below are never overridden */
	for (char **e = c->o->env; e && *e; e++)
		g_string_append_printf(cmd, " %s", *e);
	g_string_append_printf(cmd, " LAB_TEST='%s'", s->name);
	if (part)
		g_string_append_printf(cmd, " LAB_PART='%s'", part);
	append_guests(c, s, cmd);
	if (!part && s->t->nfs_mount)
		g_string_append(cmd, " LAB_NFS_DIR=" NFS_DIR);
	if (server)
		g_string_append_printf(cmd, " LAB_NFS_SERVER=%s LAB_NFS_EXPORT=/srv/nfs",
				       server);
	if (s->server)
		g_string_append_printf(cmd, " LAB_INTEROP_SERVER=%s", s->server->name);
	if (s->group)
		g_string_append_printf(cmd, " LAB_INTEROP_GROUP=%s", s->group);
	if (s->vers)
		g_string_append_printf(cmd, " LAB_NFS_VERS=%s", s->vers);
	if (c->o->duration_s > 0)
		g_string_append_printf(cmd, " LAB_DURATION=%d", c->o->duration_s);
	if (s->t->min_hits > 0)
		g_string_append_printf(cmd, " LAB_MIN_HITS=%d", s->t->min_hits);
	g_string_append_printf(cmd, " timeout -s KILL %d /lab/%s 2>&1",
			       s->t->timeout_s, program);
	return g_string_free(cmd, FALSE);
}

/* The tests disk is mounted in GUEST and PROGRAM is on it: NULL, or why
 * not (an error, never a skip). */
char *lab_run_program_there(struct run_ctx *c, const char *guest, const char *program)
{
	char *cmd;
	int rc;

	/* flushbufs: a restored guest may hold blocks of the tests disk it saw
	 * before the save (udev's probe); the disk under it is today's. */
	rc = lab_run_gsh(c, guest, "mountpoint -q /lab || { mkdir -p /lab && "
		 "blockdev --flushbufs /dev/disk/by-label/LABTESTS && "
		 "mount -o ro /dev/disk/by-label/LABTESTS /lab; }", 60, 0, NULL);
	if (rc != 0)
		return g_strdup_printf("cannot mount the tests disk (LABTESTS) at /lab in %s",
				       guest);
	cmd = g_strdup_printf("test -x '/lab/%s'", program);
	rc = lab_run_gsh(c, guest, cmd, 30, 0, NULL);
	g_free(cmd);
	if (rc != 0)
		return g_strdup_printf("test program /lab/%s is missing in guest %s",
				       program, guest);
	return NULL;
}

/* Preconditions the runner checks itself: the tests disk is mounted, the
 * program is there (missing is an error, not a skip), the command line has
 * what the test needs. Returns a verdict to record, or -1 to go on. */
static int preflight(struct run_ctx *c, const struct spec *s, char **reason)
{
	char *cmd;
	int rc;

	*reason = lab_run_program_there(c, s->g->name, s->t->name);
	if (*reason)
		return LAB_ERROR;
	if (s->t->needs_cmdline) {
		cmd = g_strdup_printf("grep -qF -- '%s' /proc/cmdline",
				      s->t->needs_cmdline);
		rc = lab_run_gsh(c, s->g->name, cmd, 30, 0, NULL);
		g_free(cmd);
		if (rc != 0) {
			*reason = g_strdup_printf("kernel command line of %s lacks '%s'",
						  s->g->name, s->t->needs_cmdline);
			return LAB_SKIP;
		}
	}
	return -1;
}

/* ---- what the test showed ---- */

/* The program's own last word, "# result: WORD: why", if it gave one. */
char *lab_run_program_says(const char *out)
{
	const char *p = out ? g_strrstr(out, "# result: ") : NULL;

	if (!p)
		return NULL;
	p += strlen("# result: ");
	return g_strndup(p, strcspn(p, "\n"));
}

/* A test's own counters, "# counts: k=v ...", for the report: every
 * such line (its parts' too), joined by "; ". */
static char *counts_line(const char *out)
{
	GString *all = g_string_new("");
	const char *p = out ? out : "";

	while ((p = strstr(p, "# counts: ")) != NULL) {
		p += strlen("# counts: ");
		g_string_append_printf(all, "%s%.*s", all->len ? "; " : "",
				       (int)strcspn(p, "\n"), p);
	}
	return g_string_free(all, all->len == 0);
}

static long window_hits(const char *out)
{
	const char *p = out ? strstr(out, "# window_hits=") : NULL;

	return p ? strtol(p + strlen("# window_hits="), NULL, 10) : -1;
}

static void save_output(struct run_ctx *c, struct lab_result *r,
			const char *out)
{
	char *p = g_build_filename(c->run.dir, r->dir, "output.txt", NULL);
	char *text = g_strdup_printf("%s%s%s", r->knob ? "# " : "",
				     r->knob ? r->knob : "", r->knob ? "\n" : "");
	char *all = g_strconcat(text, out ? out : "", NULL);

	lab_write_file(p, all, -1);
	g_free(p);
	g_free(text);
	g_free(all);
}

/* While the program runs: a reset it asked for, an oops. */
static bool watch_step(void *arg)
{
	struct oops_watch *w = arg;

	lab_run_reset_poll(w->c, w->s, &w->reset_polled);
	return lab_run_oopsed(arg);
}

/* Run the program; fills o (exit code, timeout) and *out. */
static void run_program(struct run_ctx *c, const struct spec *s,
			struct lab_obs *o, char **out)
{
	char *script = lab_run_script(c, s, s->t->name, NULL);
	const char *argv[] = { "/usr/bin/setsid", "/bin/sh", "-c", script, NULL };
	virDomainPtr d = lab_virt_guest(c->conn, s->g->name);
	struct lab_exec_result res = { 0 };
	struct oops_watch w = { c, s, -1, 0, false, 0 };
	int how = d ? lab_agent_exec_watch(d, argv, s->t->timeout_s + AGENT_SLACK_S,
					   0, watch_step, &w, &res) : -1;

	o->exit_code = how == 0 ? res.exit_code : -1;
	o->domain_dead = w.panicked;
	if (!w.panicked && (how == 1 || (how < 0 && lab_interrupted && res.pid > 0))) {
		/* the program's own bound failed (a process in D state) or an
		 * oops stopped it: kill the whole group */
		o->timed_out = how == 1 && w.oops_at == 0;
		lab_agent_kill(d, res.pid, true);
		/* what it printed before the kill still says what it saw */
		if (lab_agent_exec_collect(d, res.pid, 10, LAB_AGENT_UNINTERRUPTIBLE, &res) == 0)
			o->exit_code = -1;
	}
	*out = g_strdup(res.out ? res.out : "");
	lab_exec_result_clear(&res);
	if (d)
		virDomainFree(d);
	g_free(script);
}

/* ---- one test ---- */

/* Execute one instance and decide; returns true when its guest must be
 * brought back (dead, silent, or its kernel spent) before the next use. */
static bool execute(struct run_ctx *c, struct spec *s, struct lab_result *r)
{
	struct lab_obs o = { 0 };
	struct lab_decision dec;
	char *out = NULL, *marker, *said, *saved = NULL;
	double t0 = lab_now();
	bool bring_back, alive;
	GPtrArray *parts;

	r->taint_before = read_taint(c, s->g->name);
	r->knob = knob_set(c, s);
	s->console_from = lab_run_console_lines(c, s->g);
	marker = g_strdup_printf("BEGIN %s", s->name);
	lab_run_kmsg_marker(c, s->g->name, marker);
	g_free(marker);
	parts = lab_parts_start(c, s);
	run_program(c, s, &o, &out);
	said = lab_run_program_says(out);
	lab_parts_finish(c, s, parts, &o.exit_code, &out, &said);
	r->seconds = lab_now() - t0;
	r->ended = (gint64)time(NULL);
	if (!o.domain_dead)
		lab_run_observe(c, s, &o);
	alive = !o.libvirt_lost && !o.domain_dead && !o.agent_lost;
	if (alive) {
		marker = g_strdup_printf("END %s rc=%d", s->name, o.exit_code);
		lab_run_kmsg_marker(c, s->g->name, marker);
		g_free(marker);
		r->taint_after = read_taint(c, s->g->name);
		test_cleanup(c, s);
	}
	usleep(CONSOLE_SETTLE_US);
	r->exit_code = o.exit_code;
	r->window_hits = window_hits(out);
	r->counts = counts_line(out);
	save_output(c, r, out);
	if (!alive && !o.libvirt_lost) {
		if (c->o->dump_dir)
			r->dump = lab_run_dump(c, s);
		/* the restart keeps the dead boot's console for the scan */
		saved = lab_run_console_name(c, s->g);
		if (lab_guest_restart(c->in, s->g->name, saved, RESTART_TIMEOUT_S) != 0) {
			lab_err("guest %s did not come back; later tests on it will error",
				s->g->name);
			s->g->lost = true;
		}
		s->g->boots++;
	}
	if (!saved)
		lab_run_sync_console(c, s->g);
	lab_run_classify(c, s, r, saved ? saved : s->g->console, s->console_from, NULL, &o);
	lab_parts_classify(c, s, parts, r, &o);
	o.new_taint = lab_taint_bad_bits(r->taint_before, r->taint_after);
	/* the fix's expected WARNING taints W (bit 9): no complaint then */
	if (o.expected_reports && !r->reports->len)
		o.new_taint &= ~(1L << 9);
	o.said = said;
	o.program_sig = lab_signature_matches_program(s->t->signature_program, said);
	o.expects_report = s->t->expected_report != NULL;
	o.seedless = !s->t->seed;
	o.timeout_s = s->t->timeout_s;
	dec = lab_decide(&o);
	r->verdict = dec.verdict;
	r->evidence = dec.evidence;
	r->reason = r->knob && dec.verdict != LAB_PASS
		? g_strdup_printf("%s; %s", dec.reason, r->knob) : g_strdup(dec.reason);
	s->spent = alive && ((s->t->consumes_boot && r->verdict == LAB_FAIL) ||
			     r->verdict == LAB_TIMEOUT);
	bring_back = s->spent && !s->last_use;
	g_free(dec.reason);
	g_free(said);
	g_free(saved);
	g_free(out);
	return bring_back;
}

struct lab_result *lab_run_spec(struct run_ctx *c, struct spec *s)
{
	struct lab_result *r = lab_result_new(s->name, s->t->name);
	char *dir, *reason = NULL;
	int pre;

	r->seed = g_strdup(s->t->seed);
	r->guest = g_strdup(s->g ? s->g->name : "");
	r->kernel = g_strdup(s->g && s->g->kernel ? s->g->kernel : "");
	r->dir = g_strdup_printf("tests/%s", s->name);
	dir = g_build_filename(c->run.dir, r->dir, NULL);
	lab_mkdir_p(dir);
	g_free(dir);
	if (!s->g) {
		r->verdict = LAB_SKIP;
		r->reason = g_strdup("no guest in this topology has a role the test needs");
		return r;
	}
	if (s->g->lost) {
		r->verdict = LAB_ERROR;
		r->reason = g_strdup_printf("guest %s did not come back after a restart",
					    s->g->name);
		return r;
	}
	pre = preflight(c, s, &reason);
	if (pre >= 0) {
		r->verdict = (enum lab_verdict)pre;
		r->reason = reason;
		return r;
	}
	if (execute(c, s, r)) {
		char *saved = lab_run_console_name(c, s->g);

		lab_info("# %s spent the kernel of %s: bringing it back", s->name,
			 s->g->name);
		if (lab_guest_restart(c->in, s->g->name, saved, RESTART_TIMEOUT_S) != 0)
			s->g->lost = true;
		s->g->boots++;
		g_free(saved);
	}
	if (s->spent)
		lab_parts_restart(c, s);
	return r;
}

