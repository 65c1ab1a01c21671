/* run.c - `lab run`: run suite-map tests in the guests of the instance that
 * is up, through the guest agent, and judge each from what it showed
 * (verdict.h's one table): the program's exit code and own word, the
 * kernel's taint, and the guest's own console.
 *
 * Per test: mark BEGIN/END in the guest's /dev/kmsg so the console scanner
 * can pin a report to the test, read /proc/sys/kernel/tainted before and
 * after, run the program as its own process group under a hard bound (and
 * kill the group when the bound runs out), put knobs, netem and mounts back
 * whatever happened, and if the guest died, hung or spent its kernel,
 * restore it from the saved ready state (or reboot it) and go on.
 *
 * Tests of different guests run at the same time (schedule.h); KTAP lines
 * and results.json stay in plan order, not in order of finishing. */
#include "jobs/run.h"
#include "virt/agent.h"
#include "core/console.h"
#include "store/place.h"
#include "store/store.h"
#include "guests/instance.h"
#include "core/owner.h"
#include "core/results.h"
#include "core/schedule.h"
#include "core/suite.h"
#include "guests/up.h"
#include "util/util.h"
#include "core/verdict.h"
#include "virt/virt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#define RESTART_TIMEOUT_S 600
#define CONSOLE_SETTLE_US 1500000 /* serial -> virtlogd -> file */
#define AGENT_SLACK_S 30          /* the runner's bound over the program's */
#define NFS_DIR "/mnt/lab-nfs"

struct guest {
	char *name;
	char *role;
	char *address; /* without the prefix length */
	char *console;
	char *console_at; /* on another host: the log's volume (console is
			   * the local copy lab keeps up to date) */
	char *kernel;
	int boots;
	bool lost;     /* did not come back after a restart */
};

/* One test instance (a test, or a test at one NFS version). */
struct spec {
	const struct lab_test *t;
	const char *vers;     /* NFS version or NULL */
	struct guest *server; /* the NFS server it uses (servers=), or NULL */
	const char *group;    /* LAB_INTEROP_GROUP, or NULL */
	struct guest *g;      /* NULL: no guest has a role it needs */
	char *name;           /* "t009-nfs-umount-race:v4.1" */
	bool last_use;        /* nothing later in the plan uses its guest */
	struct lab_result *r; /* NULL until done, or dropped on Ctrl-C */
};

struct run_ctx {
	struct lab_run run;
	GPtrArray *guests;  /* struct guest * */
	GPtrArray *specs;   /* struct spec *, in plan order */
	uint64_t *uses;     /* per spec: bit per guest index */
	enum lab_sched_state *state;
	const char *nfs_server;
	const struct lab_run_opts *o;
	virConnectPtr conn;
	struct lab_place *place; /* the instance's host store, or NULL: local */
	GMutex lock;
	GCond changed;
	guint printed;      /* KTAP lines out so far, in plan order */
	guint bad;
};

struct job {
	struct run_ctx *c;
	struct spec *s;
};

static void guest_free(gpointer p)
{
	struct guest *g = p;

	g_free(g->name);
	g_free(g->role);
	g_free(g->address);
	g_free(g->console);
	g_free(g->console_at);
	g_free(g->kernel);
	g_free(g);
}

static GPtrArray *load_guests(GKeyFile *kf)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(guest_free);
	char **names = lab_inst_guests(kf);
	int i;

	for (i = 0; names[i]; i++) {
		char *grp = g_strdup_printf("guest %s", names[i]);
		struct guest *g = g_new0(struct guest, 1);
		char *addr = g_key_file_get_string(kf, grp, "address", NULL);

		g->name = g_strdup(names[i]);
		g->role = g_key_file_get_string(kf, grp, "role", NULL);
		g->console = g_key_file_get_string(kf, grp, "console", NULL);
		g->console_at = g_key_file_get_string(kf, grp, "console-at", NULL);
		g->kernel = g_key_file_get_string(kf, grp, "kernel", NULL);
		g->address = addr ? g_strndup(addr, strcspn(addr, "/")) : NULL;
		g->boots = 1;
		g_ptr_array_add(out, g);
		g_free(addr);
		g_free(grp);
	}
	g_strfreev(names);
	return out;
}

static struct guest *guest_with_role(GPtrArray *guests, char **roles)
{
	guint i;

	for (; roles && *roles; roles++) {
		for (i = 0; i < guests->len; i++) {
			struct guest *g = g_ptr_array_index(guests, i);

			if (g->role && strcmp(g->role, *roles) == 0)
				return g;
		}
	}
	return NULL;
}

static guint guest_index(GPtrArray *guests, const struct guest *g)
{
	guint i;

	for (i = 0; i < guests->len; i++)
		if (g_ptr_array_index(guests, i) == g)
			return i;
	return 0;
}

static const char *kernel_of(GPtrArray *guests)
{
	const char *k = NULL;
	guint i;

	for (i = 0; i < guests->len; i++) {
		struct guest *g = g_ptr_array_index(guests, i);

		if (k && g->kernel && strcmp(k, g->kernel) != 0)
			return "mixed";
		k = g->kernel;
	}
	return k ? k : "unknown";
}

/* ---- one command in a guest ---- */

/* Run a shell command; *out gets stdout. -1 when the agent did not answer
 * (the guest may be dead), else the command's exit status. */
static int gsh(struct run_ctx *c, const char *guest, const char *cmd,
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

	if (gsh(c, guest, "cat /proc/sys/kernel/tainted", 30,
		LAB_AGENT_UNINTERRUPTIBLE, &out) == 0)
		v = strtol(out, NULL, 10);
	g_free(out);
	return v;
}

static void kmsg_marker(struct run_ctx *c, const char *guest, const char *text)
{
	/* <4>: still shown if someone lowers the console loglevel */
	char *cmd = g_strdup_printf("echo '<4>lab: %s' > /dev/kmsg", text);

	gsh(c, guest, cmd, 30, LAB_AGENT_UNINTERRUPTIBLE, NULL);
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

		gsh(c, s->g->name, cmd, 30, 0, &out);
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
		gsh(c, s->g->name, cmd->str, 60, LAB_AGENT_UNINTERRUPTIBLE, NULL);
	g_string_free(cmd, TRUE);
}

/* The script the test runs in: plumbing the suite map asks for (an NFS
 * mount at the version under test, a netem delay), then the program under
 * the guest's own timeout. A setup that fails is exit 3 (error), never a
 * verdict on the kernel. It runs as its own process group (setsid). */
static char *test_script(struct run_ctx *c, const struct spec *s)
{
	GString *cmd = g_string_new("cd /tmp || exit 3; ");
	const char *server = s->server ? s->server->address : c->nfs_server;

	if (c->o->inject_crash && s == g_ptr_array_index(c->specs, 0))
		g_string_append(cmd, "sleep 2; echo c > /proc/sysrq-trigger; sleep 60; ");

	if (s->t->nfs_mount && server)
		g_string_append_printf(cmd, "mkdir -p " NFS_DIR " && mount -t nfs -o "
				       "vers=%s,nosharecache %s:/srv/nfs " NFS_DIR
				       " || exit 3; ", s->vers ? s->vers : "3", server);
	if (s->t->netem)
		g_string_append_printf(cmd, "tc qdisc replace dev eth0 root netem "
				       "delay %s || exit 3; ", s->t->netem);
	g_string_append_printf(cmd, "exec env LAB_TEST='%s'", s->name);
	if (s->t->nfs_mount)
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
			       s->t->timeout_s, s->t->name);
	return g_string_free(cmd, FALSE);
}

/* Preconditions the runner checks itself: the tests disk is mounted, the
 * program is there (missing is an error, not a skip), the command line has
 * what the test needs. Returns a verdict to record, or -1 to go on. */
static int preflight(struct run_ctx *c, const struct spec *s, char **reason)
{
	char *cmd;
	int rc;

	/* flushbufs: a restored guest may hold blocks of the tests disk it saw
	 * before the save (udev's probe); the disk under it is today's. */
	rc = gsh(c, s->g->name, "mountpoint -q /lab || { mkdir -p /lab && "
		 "blockdev --flushbufs /dev/disk/by-label/LABTESTS && "
		 "mount -o ro /dev/disk/by-label/LABTESTS /lab; }", 60, 0, NULL);
	if (rc != 0) {
		*reason = g_strdup("cannot mount the tests disk (LABTESTS) at /lab");
		return LAB_ERROR;
	}
	cmd = g_strdup_printf("test -x '/lab/%s'", s->t->name);
	rc = gsh(c, s->g->name, cmd, 30, 0, NULL);
	g_free(cmd);
	if (rc != 0) {
		*reason = g_strdup_printf("test program /lab/%s is missing in guest %s",
					  s->t->name, s->g->name);
		return LAB_ERROR;
	}
	if (s->t->needs_cmdline) {
		cmd = g_strdup_printf("grep -qF -- '%s' /proc/cmdline",
				      s->t->needs_cmdline);
		rc = gsh(c, s->g->name, cmd, 30, 0, NULL);
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
static char *program_says(const char *out)
{
	const char *p = out ? g_strrstr(out, "# result: ") : NULL;

	if (!p)
		return NULL;
	p += strlen("# result: ");
	return g_strndup(p, strcspn(p, "\n"));
}

/* A test's own counters, "# counts: k=v ...", for the report. */
static char *counts_line(const char *out)
{
	const char *p = out ? g_strrstr(out, "# counts: ") : NULL;

	return p ? g_strndup(p + 10, strcspn(p + 10, "\n")) : NULL;
}

static long window_hits(const char *out)
{
	const char *p = out ? strstr(out, "# window_hits=") : NULL;

	return p ? strtol(p + strlen("# window_hits="), NULL, 10) : -1;
}

/* The fix's own report (006's WARN), by its title, first line or the
 * WARN's own message only - not anywhere in its excerpt - and never one an
 * oops was folded into. */
static bool is_expected(const struct lab_report *rep, const char *want)
{
	return want && !rep->absorbed_crash &&
	       (strstr(rep->title, want) || strstr(rep->first_line, want) ||
		(rep->message && strstr(rep->message, want)));
}

/* Sort the test's console reports: the fix's own expected report, reports
 * with the seed's signature, the others. Excerpts go to its directory. */
static void classify_reports(struct run_ctx *c, const struct spec *s,
			     struct lab_result *r, const char *console,
			     struct lab_obs *o)
{
	GPtrArray *all = lab_console_scan_file(console, NULL), *mine;
	GString *ex = g_string_new("");
	char *p;
	guint i;

	if (!all) {
		g_string_free(ex, TRUE);
		return;
	}
	mine = lab_console_reports_for(all, s->name);
	for (i = 0; i < mine->len; i++) {
		struct lab_report *rep = g_ptr_array_index(mine, i);
		bool sig = lab_signature_matches_report(s->t->signature, rep->type,
			rep->title, rep->first_line, rep->function, rep->excerpt);

		if (is_expected(rep, s->t->expected_report)) {
			o->expected_reports++;
			g_string_append_printf(ex, "=== expected by the suite map (the fix at work): %s (console line %ld)\n%s\n",
					       rep->title, rep->line, rep->excerpt);
			continue;
		}
		g_ptr_array_add(r->reports, lab_rreport_new(rep->type, rep->title,
			rep->first_line, rep->function, sig));
		if (sig && !o->sig_reports++)
			o->sig_title = rep->title;
		if (!sig && !o->other_reports++)
			o->other_title = rep->title;
		g_string_append_printf(ex, "=== %s%s (console line %ld)\n%s\n",
				       sig ? "this seed's signature: " : "another report: ",
				       rep->title, rep->line, rep->excerpt);
	}
	p = g_build_filename(c->run.dir, r->dir, "console-reports.txt", NULL);
	if (ex->len)
		lab_write_file(p, ex->str, (gssize)ex->len);
	/* titles outlive the scan: keep them in the result's reports */
	o->sig_title = o->other_title = NULL;
	for (i = 0; i < r->reports->len; i++) {
		struct lab_rreport *rr = g_ptr_array_index(r->reports, i);

		if (rr->signature && !o->sig_title)
			o->sig_title = rr->title;
		if (!rr->signature && !o->other_title)
			o->other_title = rr->title;
	}
	g_free(p);
	g_string_free(ex, TRUE);
	g_ptr_array_free(mine, TRUE);
	g_ptr_array_free(all, TRUE);
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

/* On another host the console is a volume: bring the local copy, which
 * every scan reads, up to date first. */
static void sync_console(struct run_ctx *c, const struct guest *g)
{
	if (c->place && g->console_at)
		lab_place_follow(c->place, g->console_at, g->console);
}

static char *saved_console_name(struct run_ctx *c, struct guest *g)
{
	char *d = g_build_filename(c->run.dir, "consoles", NULL);
	char *p;

	lab_mkdir_p(d);
	p = g_strdup_printf("%s/%s.boot%d.log", d, g->name, g->boots);
	g_free(d);
	return p;
}

/* After the program: is libvirtd there, is the domain, does its agent? */
static void observe_guest(struct run_ctx *c, const struct spec *s,
			  struct lab_obs *o)
{
	virDomainPtr d;
	char *dn;
	int state = -1, reason;

	if (lab_virt_lost(c->conn)) {
		o->libvirt_lost = true;
		return;
	}
	dn = lab_inst_name(s->g->name);
	d = virDomainLookupByName(c->conn, dn);
	g_free(dn);
	if (d)
		virDomainGetState(d, &state, &reason, 0);
	if (state != VIR_DOMAIN_RUNNING)
		o->domain_dead = true;
	else if (!lab_agent_ping(d, 10) && !lab_agent_ping(d, 10))
		o->agent_lost = true;
	if (d)
		virDomainFree(d);
}

/* While the program runs: has the kernel oopsed inside it? A process the
 * oops left in D state never ends and no signal reaches it, so after an
 * oops pinned to the test (and a grace for the program to finish) the
 * runner stops waiting: that is no timeout, the console says why. */
struct oops_watch {
	struct run_ctx *c;
	const struct spec *s;
	goffset seen;      /* console size at the last look */
	double oops_at;    /* when an oops of this test was first seen */
	bool panicked;     /* the kernel panicked: nothing will answer */
};

#define OOPS_GRACE_S 10

static bool oopsed(void *arg)
{
	struct oops_watch *w = arg;
	GPtrArray *all, *mine;
	struct stat st;
	guint i;

	if (w->panicked)
		return true; /* panic=0: the guest waits for nobody */
	if (w->oops_at > 0)
		return lab_now() - w->oops_at > OOPS_GRACE_S;
	sync_console(w->c, w->s->g);
	if (stat(w->s->g->console, &st) != 0 || st.st_size == w->seen)
		return false;
	w->seen = st.st_size;
	all = lab_console_scan_file(w->s->g->console, NULL);
	mine = all ? lab_console_reports_for(all, w->s->name) : NULL;
	for (i = 0; mine && i < mine->len; i++) {
		const struct lab_report *r = g_ptr_array_index(mine, i);

		if (!strcmp(r->type, "oops") || !strcmp(r->type, "bug") ||
		    !strcmp(r->type, "panic") || r->panic)
			w->oops_at = lab_now();
		w->panicked |= !strcmp(r->type, "panic") || r->panic;
	}
	if (mine)
		g_ptr_array_free(mine, TRUE);
	if (all)
		g_ptr_array_free(all, TRUE);
	return false;
}

/* libvirtd writes the dump on the guests' host: on another host into its
 * store, fetched to PATH and removed there. */
static int dump_to(struct run_ctx *c, virDomainPtr d, const char *file,
		   const char *path)
{
	const unsigned fmt = VIR_DOMAIN_CORE_DUMP_FORMAT_KDUMP_ZLIB;
	char *at;
	int rc;

	if (!c->place)
		return virDomainCoreDumpWithFormat(d, path, fmt, VIR_DUMP_MEMORY_ONLY);
	at = g_build_filename(c->place->dir, file, NULL);
	rc = virDomainCoreDumpWithFormat(d, at, fmt, VIR_DUMP_MEMORY_ONLY);
	if (rc == 0)
		rc = lab_place_fetch(c->place, at, path);
	lab_store_drop(c->place->pool, file);
	g_free(at);
	return rc;
}

/* A guest that died or hung, as it is now, before it is restored: a
 * kdump-compressed memory dump that crash(8) opens with the kernel's
 * vmlinux. Only when the caller asked for dumps (lab stress). */
static char *dump_guest(struct run_ctx *c, const struct spec *s)
{
	char *dn = lab_inst_name(s->g->name), *path = NULL;
	virDomainPtr d = virDomainLookupByName(c->conn, dn);
	int state = -1, reason;

	if (d)
		virDomainGetState(d, &state, &reason, 0);
	if (d && state != VIR_DOMAIN_SHUTOFF) {
		char *file = g_strdup_printf("%s-%s-%ld.kdump", s->g->name, s->name,
					     (long)time(NULL));

		g_strcanon(file, "abcdefghijklmnopqrstuvwxyz0123456789.-", '_');
		path = g_build_filename(c->o->dump_dir, file, NULL);
		lab_mkdir_p(c->o->dump_dir);
		if (dump_to(c, d, file, path) != 0) {
			lab_err("cannot dump guest %s: %s", s->g->name, lab_virt_error());
			g_clear_pointer(&path, g_free);
		} else {
			lab_info("# memory dump of %s: %s", s->g->name, path);
		}
		g_free(file);
	}
	if (d)
		virDomainFree(d);
	g_free(dn);
	return path;
}

/* Run the program; fills o (exit code, timeout) and *out. */
static void run_program(struct run_ctx *c, const struct spec *s,
			struct lab_obs *o, char **out)
{
	char *script = test_script(c, s);
	const char *argv[] = { "/usr/bin/setsid", "/bin/sh", "-c", script, NULL };
	virDomainPtr d = lab_virt_guest(c->conn, s->g->name);
	struct lab_exec_result res = { 0 };
	struct oops_watch w = { c, s, -1, 0, false };
	int how = d ? lab_agent_exec_watch(d, argv, s->t->timeout_s + AGENT_SLACK_S,
					   0, oopsed, &w, &res) : -1;

	o->exit_code = how == 0 ? res.exit_code : -1;
	o->domain_dead = w.panicked;
	if (!w.panicked && (how == 1 || (how < 0 && lab_interrupted && res.pid > 0))) {
		/* the program's own bound failed (a process in D state) or an
		 * oops stopped it: kill the whole group */
		o->timed_out = how == 1 && w.oops_at == 0;
		lab_agent_kill(d, res.pid, true);
		/* what it printed before the kill still says what it saw */
		if (lab_agent_exec_collect(d, res.pid, 10, &res) == 0)
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

	r->taint_before = read_taint(c, s->g->name);
	r->knob = knob_set(c, s);
	marker = g_strdup_printf("BEGIN %s", s->name);
	kmsg_marker(c, s->g->name, marker);
	g_free(marker);
	run_program(c, s, &o, &out);
	r->seconds = lab_now() - t0;
	if (!o.domain_dead)
		observe_guest(c, s, &o);
	alive = !o.libvirt_lost && !o.domain_dead && !o.agent_lost;
	if (alive) {
		marker = g_strdup_printf("END %s rc=%d", s->name, o.exit_code);
		kmsg_marker(c, s->g->name, marker);
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
			r->dump = dump_guest(c, s);
		/* the restart keeps the dead boot's console for the scan */
		saved = saved_console_name(c, s->g);
		if (lab_virt_restart(c->conn, s->g->name, saved, RESTART_TIMEOUT_S) != 0) {
			lab_err("guest %s did not come back; later tests on it will error",
				s->g->name);
			s->g->lost = true;
		}
		s->g->boots++;
	}
	if (!saved)
		sync_console(c, s->g);
	classify_reports(c, s, r, saved ? saved : s->g->console, &o);
	o.new_taint = lab_taint_bad_bits(r->taint_before, r->taint_after);
	/* the fix's expected WARNING taints W (bit 9): no complaint then */
	if (o.expected_reports && !r->reports->len)
		o.new_taint &= ~(1L << 9);
	said = program_says(out);
	o.said = said;
	o.program_sig = lab_signature_matches_program(s->t->signature_program, said);
	o.expects_report = s->t->expected_report != NULL;
	o.timeout_s = s->t->timeout_s;
	dec = lab_decide(&o);
	r->verdict = dec.verdict;
	r->evidence = dec.evidence;
	r->reason = r->knob && dec.verdict != LAB_PASS
		? g_strdup_printf("%s; %s", dec.reason, r->knob) : g_strdup(dec.reason);
	bring_back = alive && !s->last_use &&
		     ((s->t->consumes_boot && r->verdict == LAB_FAIL) ||
		      r->verdict == LAB_TIMEOUT);
	g_free(dec.reason);
	g_free(said);
	g_free(saved);
	g_free(out);
	return bring_back;
}

static struct lab_result *run_spec(struct run_ctx *c, struct spec *s)
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
		char *saved = saved_console_name(c, s->g);

		lab_info("# %s spent the kernel of %s: bringing it back", s->name,
			 s->g->name);
		if (lab_virt_restart(c->conn, s->g->name, saved, RESTART_TIMEOUT_S) != 0)
			s->g->lost = true;
		s->g->boots++;
		g_free(saved);
	}
	return r;
}

/* ---- the plan and its schedule ---- */

static void spec_free(gpointer p)
{
	struct spec *s = p;

	g_free(s->name);
	lab_result_free(s->r);
	g_free(s);
}

static uint64_t uses_of(struct run_ctx *c, const struct spec *s)
{
	uint64_t u = 0;
	char **peer;

	if (!s->g)
		return 0;
	u |= (uint64_t)1 << guest_index(c->guests, s->g);
	if (s->server)
		u |= (uint64_t)1 << guest_index(c->guests, s->server);
	for (peer = s->t->peers; peer && *peer; peer++) {
		char *one[] = { *peer, NULL };
		struct guest *pg = guest_with_role(c->guests, one);

		if (pg)
			u |= (uint64_t)1 << guest_index(c->guests, pg);
	}
	return u;
}

static GPtrArray *servers_of(struct run_ctx *c, const struct lab_test *t)
{
	GPtrArray *out = g_ptr_array_new();
	char **r;
	guint i;

	for (r = t->servers; r && *r; r++)
		for (i = 0; i < c->guests->len; i++) {
			struct guest *g = g_ptr_array_index(c->guests, i);

			if (g->role && !strcmp(g->role, *r))
				g_ptr_array_add(out, g);
		}
	if (!t->servers)
		g_ptr_array_add(out, NULL); /* the default server, as before */
	return out;
}

/* A filter (lab interop --servers/--vers/--groups) lets V through. */
static bool wanted(char **only, const char *v)
{
	return !only || !v || g_strv_contains((const char *const *)only, v);
}

/* Instances of a test: per server (servers=) x NFS version x group, named
 * "test:server:vVERS:group" with the parts that apply. */
static void add_instances(struct run_ctx *c, const struct lab_test *t)
{
	char *none[] = { NULL, NULL };
	GPtrArray *servers = servers_of(c, t);
	char **vers = t->nfs_versions ? t->nfs_versions : none;
	char **groups = t->groups ? t->groups : none;
	guint si;
	int vi, gi;

	for (si = 0; si < servers->len; si++)
		for (vi = 0; vi == 0 || vers[vi]; vi++)
			for (gi = 0; gi == 0 || groups[gi]; gi++) {
				struct guest *sv = g_ptr_array_index(servers, si);
				struct spec *s;
				GString *n;

				if (!wanted(c->o->only_servers, sv ? sv->name : NULL) ||
				    !wanted(c->o->only_vers, vers[vi]) ||
				    !wanted(c->o->only_groups, groups[gi]))
					continue;
				s = g_new0(struct spec, 1);
				n = g_string_new(t->name);

				s->t = t;
				s->server = g_ptr_array_index(servers, si);
				s->vers = vers[vi];
				s->group = groups[gi];
				s->g = guest_with_role(c->guests, t->roles);
				if (s->server)
					g_string_append_printf(n, ":%s", s->server->name);
				if (s->vers)
					g_string_append_printf(n, ":v%s", s->vers);
				if (s->group)
					g_string_append_printf(n, ":%s", s->group);
				s->name = g_string_free(n, FALSE);
				g_ptr_array_add(c->specs, s);
			}
	g_ptr_array_free(servers, TRUE);
}

static void plan(struct run_ctx *c, GPtrArray *tests)
{
	guint i;

	c->specs = g_ptr_array_new_with_free_func(spec_free);
	for (i = 0; i < tests->len; i++)
		add_instances(c, g_ptr_array_index(tests, i));
	c->uses = g_new0(uint64_t, c->specs->len);
	/* cppcheck-suppress AssignmentIntegerToAddress ; g_new0 is a macro */
	c->state = g_new0(enum lab_sched_state, c->specs->len);
	for (i = 0; i < c->specs->len; i++)
		c->uses[i] = uses_of(c, g_ptr_array_index(c->specs, i));
	for (i = 0; i < c->specs->len; i++) {
		struct spec *s = g_ptr_array_index(c->specs, i);

		s->last_use = !s->g || lab_sched_last_use(i, c->specs->len, c->uses,
					guest_index(c->guests, s->g));
	}
}

/* Copy the current console of every guest into the run (also on Ctrl-C). */
static void save_consoles(struct run_ctx *c)
{
	char *dir = g_build_filename(c->run.dir, "consoles", NULL);
	guint i;

	lab_mkdir_p(dir);
	g_free(dir);
	for (i = 0; i < c->guests->len; i++) {
		struct guest *g = g_ptr_array_index(c->guests, i);
		char *data = NULL, *p;
		gsize len = 0;

		if (g->console)
			sync_console(c, g);
		if (!g->console || !g_file_get_contents(g->console, &data, &len, NULL))
			continue;
		p = g_strdup_printf("%s/consoles/%s.log", c->run.dir, g->name);
		lab_write_file(p, data, (gssize)len);
		g_free(p);
		g_free(data);
	}
}

/* results.json and junit.xml hold the finished tests in plan order. */
static void write_results(struct run_ctx *c)
{
	guint i;

	g_ptr_array_set_size(c->run.results, 0);
	for (i = 0; i < c->specs->len; i++) {
		struct spec *s = g_ptr_array_index(c->specs, i);

		if (c->state[i] == LAB_SCHED_DONE && s->r)
			g_ptr_array_add(c->run.results, s->r);
	}
	lab_results_write(&c->run);
}

/* KTAP lines go out in plan order, as soon as every earlier test is done. */
static void print_ready(struct run_ctx *c)
{
	while (c->printed < c->specs->len && c->state[c->printed] == LAB_SCHED_DONE) {
		struct spec *s = g_ptr_array_index(c->specs, c->printed);
		char *line;

		c->printed++;
		if (!s->r || c->o->quiet)
			continue;
		line = lab_result_ktap_line(s->r, (int)c->printed);
		printf("%s\n", line);
		fflush(stdout);
		g_free(line);
	}
}

static gpointer job_thread(gpointer data)
{
	struct job *j = data;
	struct lab_result *r = run_spec(j->c, j->s);
	guint i;

	g_mutex_lock(&j->c->lock);
	if (lab_interrupted && r->verdict != LAB_SKIP) {
		lab_result_free(r); /* half a test is no result */
		r = NULL;
	}
	j->s->r = r;
	for (i = 0; i < j->c->specs->len; i++)
		if (g_ptr_array_index(j->c->specs, i) == j->s)
			j->c->state[i] = LAB_SCHED_DONE;
	if (r)
		j->c->bad += r->verdict == LAB_FAIL || r->verdict == LAB_ERROR ||
			     r->verdict == LAB_TIMEOUT;
	write_results(j->c);
	print_ready(j->c);
	g_cond_broadcast(&j->c->changed);
	g_mutex_unlock(&j->c->lock);
	g_free(j);
	return NULL;
}

static bool all_done(struct run_ctx *c, bool *running)
{
	guint i;
	bool done = true;

	*running = false;
	for (i = 0; i < c->specs->len; i++) {
		done &= c->state[i] == LAB_SCHED_DONE;
		*running |= c->state[i] == LAB_SCHED_RUNNING;
	}
	return done;
}

static void start(struct run_ctx *c, guint i)
{
	struct spec *s = g_ptr_array_index(c->specs, i);
	struct job *j = g_new0(struct job, 1);

	c->state[i] = LAB_SCHED_RUNNING;
	j->c = c;
	j->s = s;
	if (!c->o->quiet) {
		printf("# %s on %s (%s kernel)\n", s->name, s->g ? s->g->name : "-",
		       s->g && s->g->kernel ? s->g->kernel : "-");
		fflush(stdout);
	}
	g_thread_unref(g_thread_new("test", job_thread, j));
}

static int run_all(struct run_ctx *c)
{
	bool running;

	if (!c->o->quiet)
		printf("KTAP version 1\n1..%u\n", c->specs->len);
	g_mutex_lock(&c->lock);
	while (!all_done(c, &running)) {
		bool stop = lab_interrupted || lab_virt_lost(c->conn);
		int next = stop ? -1 : lab_sched_next(c->specs->len, c->uses, c->state);

		if (next >= 0) {
			start(c, (guint)next);
			continue;
		}
		if (stop && !running)
			break;
		/* woken by a finished test; the timeout notices Ctrl-C */
		g_cond_wait_until(&c->changed, &c->lock,
				  g_get_monotonic_time() + G_TIME_SPAN_SECOND / 2);
	}
	write_results(c);
	g_mutex_unlock(&c->lock);
	save_consoles(c);
	if (lab_interrupted) {
		lab_err("interrupted: %u results kept in %s", c->run.results->len,
			c->run.dir);
		return 130;
	}
	if (lab_virt_lost(c->conn)) {
		lab_err("libvirtd stopped answering: run stopped, %u results kept in %s",
			c->run.results->len, c->run.dir);
		return 3;
	}
	if (!c->o->quiet)
		printf("# results: %s\n", c->run.dir);
	return c->bad ? 1 : 0;
}

/* The run names the kernel it judged: its cache key and `uname -r`. */
static void describe_kernel(struct run_ctx *c, GKeyFile *state)
{
	struct guest *g = c->guests->len ? g_ptr_array_index(c->guests, 0) : NULL;
	char *grp, *kdir, *out = NULL;

	if (!g)
		return;
	grp = g_strdup_printf("guest %s", g->name);
	kdir = g_key_file_get_string(state, grp, "kernel-dir", NULL);
	c->run.kernel_key = kdir ? g_path_get_basename(kdir) : NULL;
	if (gsh(c, g->name, "uname -r", 30, 0, &out) == 0)
		c->run.kernel_release = g_strdup(g_strstrip(out));
	g_free(out);
	g_free(kdir);
	g_free(grp);
}

/* ---- the command ---- */

static const char run_usage[] =
	"usage: lab run [--duration SECONDS] [TEST|SUITE...]\n"
	"  Run tests from tests/suite.ini on the instance that is up (`lab up`).\n"
	"  Default: the suite named after the topology, else `review`.\n"
	"  Tests of different guests run at the same time, except where one uses\n"
	"  the other (peers= in the suite map); output stays in plan order.\n";

static char **default_names(struct lab_suite *s, GKeyFile *kf)
{
	char *topo = g_key_file_get_string(kf, "instance", "topology-name", NULL);
	char **names = g_new0(char *, 2);

	names[0] = topo && g_hash_table_contains(s->suites, topo)
		? g_strdup(topo) : g_strdup("review");
	g_free(topo);
	return names;
}

static int parse_args(int argc, char **argv, int *duration, GPtrArray *names)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--duration") && i + 1 < argc) {
			if (lab_parse_count(argv[++i], 1, 7 * 86400, duration) != 0) {
				lab_err("run: --duration needs a whole number of seconds, 1..604800");
				return 2;
			}
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(run_usage, stdout);
			return 0;
		} else if (argv[i][0] == '-') {
			lab_err("run: bad argument '%s'\n%s", argv[i], run_usage);
			return 2;
		} else {
			g_ptr_array_add(names, g_strdup(argv[i]));
		}
	}
	g_ptr_array_add(names, NULL);
	return -1;
}

static const char *nfs_server_of(GPtrArray *guests)
{
	char *roles[] = { "nfs-server", NULL };
	struct guest *g = guest_with_role(guests, roles);

	return g ? g->address : NULL;
}

/* Run directories are unique: a second run in the same second gets -2. */
static char *new_run_dir(const char *runs_root, const char *kernel, char **id)
{
	char *dir, *latest;
	char *root = runs_root ? g_strdup(runs_root) : lab_path("runs");

	dir = lab_unique_dir(root, kernel, id);
	if (!dir) {
		g_free(root);
		return NULL;
	}
	if (!runs_root) {
		latest = g_build_filename(root, "latest", NULL);
		unlink(latest);
		if (symlink(*id, latest) != 0)
			lab_err("cannot link %s", latest);
		g_free(latest);
	}
	g_free(root);
	return dir;
}

static void ctx_clear(struct run_ctx *c)
{
	if (c->specs)
		g_ptr_array_free(c->specs, TRUE);
	if (c->guests)
		g_ptr_array_free(c->guests, TRUE);
	if (c->run.results) {
		/* the results belong to the specs */
		g_ptr_array_set_free_func(c->run.results, NULL);
		g_ptr_array_free(c->run.results, TRUE);
	}
	g_free(c->uses);
	g_free(c->state);
	g_free(c->run.id);
	g_free(c->run.dir);
	g_free(c->run.kernel);
	g_free(c->run.kernel_key);
	g_free(c->run.kernel_release);
	g_free(c->run.topology);
	g_mutex_clear(&c->lock);
	g_cond_clear(&c->changed);
}

static int prepare(struct run_ctx *c, struct lab_inst *in, char **names,
		   struct lab_suite **suite, GPtrArray **tests)
{
	GPtrArray *(*resolve)(const struct lab_suite *, char **, char **) =
		c->o->keep_order ? lab_suite_expand : lab_suite_resolve;
	char *path = lab_src_path("tests/suite.ini"), *err = NULL;
	int rc = 1, err_place = 0;

	if (!(*suite = lab_suite_load(path, &err))) {
		lab_err("bad suite map: %s", err);
		goto out;
	}
	if (names && names[0] && !(*tests = resolve(*suite, names, &err))) {
		lab_err("%s", err);
		rc = 2;
		goto out;
	}
	if (lab_inst_open(in, false) != 0)
		goto out;
	if (!lab_inst_is_up(in)) {
		lab_err("instance '%s' is not up: run `lab up`", lab_instance());
		goto out;
	}
	if (!*tests) {
		char **def = default_names(*suite, in->state);

		*tests = lab_suite_resolve(*suite, def, &err);
		g_strfreev(def);
	}
	c->guests = load_guests(in->state);
	if (c->guests->len > 64) {
		lab_err("more than 64 guests");
		goto out;
	}
	if (!(c->conn = lab_virt_connect()))
		goto out;
	in->conn = c->conn;
	/* kept in the instance: closing it frees the place with its pool */
	if (!(c->place = in->place = lab_place_of(in, &err_place)) && err_place)
		goto out;
	rc = 0;
out:
	g_free(path);
	g_free(err);
	return rc;
}

/* Run the named tests/suites (NULL: the topology's default suite) on the
 * instance that is up, holding its lock. */
int lab_run_with(const struct lab_run_opts *o, char **run_dir)
{
	struct run_ctx c = { 0 };
	struct lab_inst in = { .lock_fd = -1 };
	struct lab_suite *suite = NULL;
	GPtrArray *tests = NULL;
	int rc;

	g_mutex_init(&c.lock);
	g_cond_init(&c.changed);
	c.o = o;
	rc = prepare(&c, &in, o->names, &suite, &tests);
	if (rc != 0)
		goto out;
	rc = 1;
	c.nfs_server = nfs_server_of(c.guests);
	c.run.kernel = g_strdup(kernel_of(c.guests));
	c.run.topology = g_key_file_get_string(in.state, "instance", "topology-name", NULL);
	describe_kernel(&c, in.state);
	c.run.results = g_ptr_array_new();
	c.run.started = (double)time(NULL);
	if (!tests || !(c.run.dir = new_run_dir(o->runs_root, c.run.kernel, &c.run.id)))
		goto out;
	plan(&c, tests);
	if (!o->quiet)
		lab_phase_begin("run tests");
	rc = run_all(&c);
	if (!o->quiet)
		lab_phase_end();
	if (run_dir)
		*run_dir = g_strdup(c.run.dir);
out:
	if (tests)
		g_ptr_array_free(tests, TRUE);
	ctx_clear(&c);
	lab_inst_close(&in); /* closes the connection too */
	lab_suite_free(suite);
	return rc;
}

int lab_run_tests(char **names, int duration_s, char **run_dir)
{
	struct lab_run_opts o = { .names = names, .duration_s = duration_s };

	return lab_run_with(&o, run_dir);
}

int cmd_run(int argc, char **argv)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	int duration = 0, rc = parse_args(argc, argv, &duration, names);

	if (rc < 0) {
		rc = lab_run_tests((char **)names->pdata, duration, NULL);
		lab_phase_summary();
	}
	g_ptr_array_free(names, TRUE);
	return rc;
}
