/* run.c - `lab run`: run suite-map tests in the guests of the instance that
 * is up, through the guest agent, and judge each by the program's exit code,
 * the kernel's taint and the guest's own console (see console.c).
 *
 * Per test: mark BEGIN/END in the guest's /dev/kmsg so the console scanner
 * can pin a report to the test, read /proc/sys/kernel/tainted before and
 * after, run the program with a hard bound, and if the guest died or hung,
 * record that as the test's failure, restart the guest and go on. */
#include "run.h"
#include "agent.h"
#include "console.h"
#include "results.h"
#include "suite.h"
#include "util.h"
#include "virt.h"
#include "up.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RESTART_TIMEOUT_S 600
#define CONSOLE_SETTLE_US 1500000 /* serial -> virtlogd -> file */

struct guest {
	char *name;
	char *role;
	char *address; /* without the prefix length */
	char *console;
	char *kernel;
	int boots;
};

struct run_ctx {
	struct lab_run run;
	GPtrArray *guests;  /* struct guest * */
	const char *nfs_server;
	int duration_s;     /* LAB_DURATION for the tests, 0: their default */
};

static void guest_free(gpointer p)
{
	struct guest *g = p;

	g_free(g->name);
	g_free(g->role);
	g_free(g->address);
	g_free(g->console);
	g_free(g->kernel);
	g_free(g);
}

static GPtrArray *load_guests(GKeyFile *kf)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(guest_free);
	char **groups = g_key_file_get_groups(kf, NULL);
	int i;

	for (i = 0; groups[i]; i++) {
		struct guest *g;
		char *addr;

		if (!g_str_has_prefix(groups[i], "guest "))
			continue;
		g = g_new0(struct guest, 1);
		g->name = g_strdup(groups[i] + strlen("guest "));
		g->role = g_key_file_get_string(kf, groups[i], "role", NULL);
		g->console = g_key_file_get_string(kf, groups[i], "console", NULL);
		g->kernel = g_key_file_get_string(kf, groups[i], "kernel", NULL);
		addr = g_key_file_get_string(kf, groups[i], "address", NULL);
		g->address = addr ? g_strndup(addr, strcspn(addr, "/")) : NULL;
		g_free(addr);
		g->boots = 1;
		g_ptr_array_add(out, g);
	}
	g_strfreev(groups);
	return out;
}

static struct guest *guest_for(struct run_ctx *c, const struct lab_test *t)
{
	char **r;
	guint i;

	for (r = t->roles; r && *r; r++) {
		for (i = 0; i < c->guests->len; i++) {
			struct guest *g = g_ptr_array_index(c->guests, i);

			if (g->role && strcmp(g->role, *r) == 0)
				return g;
		}
	}
	return NULL;
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
static int gsh(const char *guest, const char *cmd, int timeout_s, char **out,
	       bool *timed_out)
{
	virConnectPtr c = lab_virt_connect();
	virDomainPtr d = c ? lab_virt_guest(c, guest) : NULL;
	struct lab_exec_result r;
	int rc = -1;

	if (timed_out)
		*timed_out = false;
	if (d && lab_agent_sh(d, cmd, timeout_s, &r) == 0) {
		rc = r.exit_code;
		if (timed_out)
			*timed_out = r.timed_out;
		if (out)
			*out = g_strdup(r.out ? r.out : "");
		lab_exec_result_clear(&r);
	}
	if (d)
		virDomainFree(d);
	if (c)
		virConnectClose(c);
	return rc;
}

static long read_taint(const char *guest)
{
	char *out = NULL;
	long v = -1;

	if (gsh(guest, "cat /proc/sys/kernel/tainted", 30, &out, NULL) == 0)
		v = strtol(out, NULL, 10);
	g_free(out);
	return v;
}

static void kmsg_marker(const char *guest, const char *text)
{
	/* <4>: still shown if someone lowers the console loglevel */
	char *cmd = g_strdup_printf("echo '<4>lab: %s' > /dev/kmsg", text);

	gsh(guest, cmd, 30, NULL, NULL);
	g_free(cmd);
}

static bool guest_alive(const char *guest)
{
	virConnectPtr c = lab_virt_connect();
	virDomainPtr d = c ? lab_virt_guest(c, guest) : NULL;
	int state = -1, reason;
	bool alive = false;

	if (d) {
		virDomainGetState(d, &state, &reason, 0);
		alive = state == VIR_DOMAIN_RUNNING && lab_agent_ping(d, 10);
		virDomainFree(d);
	}
	if (c)
		virConnectClose(c);
	return alive;
}

/* ---- one test ---- */

struct instance_spec {
	const struct lab_test *t;
	const char *vers;   /* NFS version or NULL */
	struct guest *g;
	char *name;         /* "t009-nfs-umount-race:v4.1" */
	bool last_on_guest;
};

#define NFS_DIR "/mnt/lab-nfs"

/* Plumbing the suite map asks for around a test: an NFS mount of the
 * server's export at the version under test, a netem delay on eth0. A
 * setup that fails is exit 3 (error), never a verdict on the kernel. */
static void test_setup(struct run_ctx *c, const struct instance_spec *s,
		       GString *cmd)
{
	if (s->t->nfs_mount && c->nfs_server)
		g_string_append_printf(cmd, "mkdir -p " NFS_DIR " && mount -t nfs -o "
				       "vers=%s,nosharecache %s:/srv/nfs " NFS_DIR
				       " || exit 3; ", s->vers ? s->vers : "3",
				       c->nfs_server);
	if (s->t->netem)
		g_string_append_printf(cmd, "tc qdisc replace dev eth0 root netem "
				       "delay %s || exit 3; ", s->t->netem);
}

static void test_teardown(const struct instance_spec *s, GString *cmd)
{
	g_string_append(cmd, "; rc=$?; ");
	if (s->t->netem)
		g_string_append(cmd, "tc qdisc del dev eth0 root 2>/dev/null; ");
	if (s->t->nfs_mount)
		g_string_append(cmd, "umount -f " NFS_DIR " 2>/dev/null; ");
	g_string_append(cmd, "exit $rc");
}

static char *test_command(struct run_ctx *c, const struct instance_spec *s)
{
	GString *cmd = g_string_new("cd /tmp && ");

	test_setup(c, s, cmd);
	g_string_append(cmd, "env LAB_TEST=");
	g_string_append(cmd, s->name);
	if (s->t->nfs_mount)
		g_string_append(cmd, " LAB_NFS_DIR=" NFS_DIR);
	if (c->nfs_server)
		g_string_append_printf(cmd, " LAB_NFS_SERVER=%s LAB_NFS_EXPORT=/srv/nfs",
				       c->nfs_server);
	if (s->vers)
		g_string_append_printf(cmd, " LAB_NFS_VERS=%s", s->vers);
	if (c->duration_s > 0)
		g_string_append_printf(cmd, " LAB_DURATION=%d", c->duration_s);
	/* the runner's own bound, on top of the program's */
	g_string_append_printf(cmd, " timeout -s KILL %d /lab/%s 2>&1",
			       s->t->timeout_s, s->t->name);
	test_teardown(s, cmd);
	return g_string_free(cmd, FALSE);
}

/* Preconditions the runner checks itself: the tests disk is mounted, the
 * program is there (missing is an error, not a skip), the command line has
 * what the test needs. Returns a verdict to record, or -1 to go on. */
static int preflight(const struct instance_spec *s, char **reason)
{
	char *cmd;
	int rc;

	/* flushbufs: a restored guest may hold blocks of the tests disk it saw
	 * before the save (udev's probe); the disk under it is today's. */
	rc = gsh(s->g->name, "mountpoint -q /lab || { mkdir -p /lab && "
		 "blockdev --flushbufs /dev/disk/by-label/LABTESTS && "
		 "mount -o ro /dev/disk/by-label/LABTESTS /lab; }", 60, NULL, NULL);
	if (rc != 0) {
		*reason = g_strdup("cannot mount the tests disk (LABTESTS) at /lab");
		return LAB_ERROR;
	}
	cmd = g_strdup_printf("test -x /lab/%s", s->t->name);
	rc = gsh(s->g->name, cmd, 30, NULL, NULL);
	g_free(cmd);
	if (rc != 0) {
		*reason = g_strdup_printf("test program /lab/%s is missing in guest %s",
					  s->t->name, s->g->name);
		return LAB_ERROR;
	}
	if (s->t->needs_cmdline) {
		cmd = g_strdup_printf("grep -qF -- '%s' /proc/cmdline",
				      s->t->needs_cmdline);
		rc = gsh(s->g->name, cmd, 30, NULL, NULL);
		g_free(cmd);
		if (rc != 0) {
			*reason = g_strdup_printf("kernel command line of %s lacks '%s'",
						  s->g->name, s->t->needs_cmdline);
			return LAB_SKIP;
		}
	}
	return -1;
}

/* Write the amplifier if this kernel has it; returns a note for the log. */
static char *amplifier_set(const struct instance_spec *s)
{
	char **kv;
	char *cmd, *out = NULL, *note;

	if (!s->t->amplifier)
		return NULL;
	kv = g_strsplit(s->t->amplifier, "=", 2);
	/* keep the old value in /run so amplifier_reset can put it back */
	cmd = g_strdup_printf("if [ -w '%s' ]; then cat '%s' > /run/lab-knob.old && "
			      "echo '%s' > '%s' && echo on; else echo absent; fi",
			      kv[0], kv[0], kv[1] ? kv[1] : "", kv[0]);
	gsh(s->g->name, cmd, 30, &out, NULL);
	note = g_strdup_printf("race knob %s: %s", s->t->amplifier,
			       out && g_str_has_prefix(out, "on") ? "on (lab test knob, patches/*/support)"
								   : "absent in this kernel");
	g_free(out);
	g_free(cmd);
	g_strfreev(kv);
	return note;
}

/* The program's own last word, "# result: WORD: why", if it gave one. */
static char *program_says(const char *out)
{
	const char *p = out ? g_strrstr(out, "# result: ") : NULL;

	if (!p)
		return NULL;
	p += strlen("# result: ");
	return g_strndup(p, strcspn(p, "\n"));
}

/* A knob stays on only for its test: later tests see the kernel as booted. */
static void amplifier_reset(const struct instance_spec *s)
{
	char **kv;
	char *cmd;

	if (!s->t->amplifier)
		return;
	kv = g_strsplit(s->t->amplifier, "=", 2);
	cmd = g_strdup_printf("if [ -w '%s' ] && [ -s /run/lab-knob.old ]; then "
			      "cat /run/lab-knob.old > '%s'; rm -f /run/lab-knob.old; fi",
			      kv[0], kv[0]);
	gsh(s->g->name, cmd, 30, NULL, NULL);
	g_free(cmd);
	g_strfreev(kv);
}

static long window_hits(const char *out)
{
	const char *p = out ? strstr(out, "# window_hits=") : NULL;

	return p ? strtol(p + strlen("# window_hits="), NULL, 10) : -1;
}

static bool expected(const struct lab_report *rep, const char *want)
{
	return want && (strstr(rep->title, want) || strstr(rep->first_line, want) ||
			strstr(rep->excerpt, want));
}

/* Count the test's reports; one the suite map expects (the fix's own
 * WARNING, say) is kept in the excerpts but is not a complaint. Returns
 * how many were expected. */
static guint add_reports(struct lab_result *r, GPtrArray *mine,
			 GString *excerpts, const char *want)
{
	guint i, n_expected = 0;

	for (i = 0; i < mine->len; i++) {
		struct lab_report *rep = g_ptr_array_index(mine, i);

		if (expected(rep, want)) {
			n_expected++;
			g_string_append_printf(excerpts, "=== expected by the suite map: %s (console line %ld)\n%s\n",
					       rep->title, rep->line, rep->excerpt);
			continue;
		}

		g_ptr_array_add(r->reports,
				g_strdup_printf("%s|%s|%s", rep->type, rep->title,
						rep->first_line));
		g_string_append_printf(excerpts, "=== %s (console line %ld)\n%s\n",
				       rep->title, rep->line, rep->excerpt);
	}
	return n_expected;
}

static guint scan_console(struct run_ctx *c, const struct instance_spec *s,
			  struct lab_result *r, const char *saved)
{
	const char *path = saved ? saved : s->g->console;
	GPtrArray *all = lab_console_scan_file(path, NULL);
	GPtrArray *mine;
	GString *ex = g_string_new("");
	guint n_expected;
	char *p;

	if (!all) {
		g_string_free(ex, TRUE);
		return 0;
	}
	mine = lab_console_reports_for(all, s->name);
	n_expected = add_reports(r, mine, ex, s->t->expected_report);
	p = g_build_filename(c->run.dir, r->dir, "console-reports.txt", NULL);
	if (ex->len)
		lab_write_file(p, ex->str, (gssize)ex->len);
	g_free(p);
	g_string_free(ex, TRUE);
	g_ptr_array_free(mine, TRUE);
	g_ptr_array_free(all, TRUE);
	return n_expected;
}

static void save_output(struct run_ctx *c, struct lab_result *r,
			const char *out, const char *amp)
{
	char *p = g_build_filename(c->run.dir, r->dir, "output.txt", NULL);
	char *text = g_strdup_printf("%s%s%s", amp ? "# " : "", amp ? amp : "",
				     amp ? "\n" : "");
	char *all = g_strconcat(text, out ? out : "", NULL);

	lab_write_file(p, all, -1);
	g_free(p);
	g_free(text);
	g_free(all);
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

/* Execute one instance; fills r. Returns true when the guest must be
 * restarted before its next test. */
static bool execute(struct run_ctx *c, const struct instance_spec *s,
		    struct lab_result *r)
{
	char *cmd = test_command(c, s), *out = NULL, *amp, *why = NULL;
	char *marker;
	bool timed_out = false, crashed = false, restart;
	double t0 = lab_now();
	guint n_expected;
	long bad_taint;
	int rc;

	r->taint_before = read_taint(s->g->name);
	amp = amplifier_set(s);
	marker = g_strdup_printf("BEGIN %s", s->name);
	kmsg_marker(s->g->name, marker);
	g_free(marker);
	rc = gsh(s->g->name, cmd, s->t->timeout_s + 30, &out, &timed_out);
	r->seconds = lab_now() - t0;
	if (rc < 0 || timed_out)
		crashed = !guest_alive(s->g->name);
	if (!crashed) {
		marker = g_strdup_printf("END %s rc=%d", s->name, rc);
		kmsg_marker(s->g->name, marker);
		g_free(marker);
		r->taint_after = read_taint(s->g->name);
		amplifier_reset(s);
	}
	usleep(CONSOLE_SETTLE_US);
	r->exit_code = timed_out ? -1 : rc;
	r->window_hits = window_hits(out);
	save_output(c, r, out, amp);
	if (crashed) {
		char *saved = saved_console_name(c, s->g);

		/* the restart saves the dead boot's console for the scan */
		if (lab_virt_restart(s->g->name, saved, RESTART_TIMEOUT_S) != 0)
			lab_err("guest %s did not come back; later tests on it will error",
				s->g->name);
		s->g->boots++;
		n_expected = scan_console(c, s, r, saved);
		g_free(saved);
	} else {
		n_expected = scan_console(c, s, r, NULL);
	}
	bad_taint = lab_taint_bad_bits(r->taint_before, r->taint_after);
	/* an expected WARNING taints W (bit 9): that bit is then no complaint */
	if (n_expected && !r->reports->len)
		bad_taint &= ~(1L << 9);
	r->verdict = lab_verdict_decide(timed_out && !crashed ? 3 : rc, crashed,
					r->reports->len, bad_taint, &why);
	if (timed_out && !crashed) {
		g_free(why);
		why = g_strdup_printf("the program did not finish in %d s",
				      s->t->timeout_s);
	} else if (!crashed && !r->reports->len && !bad_taint) {
		char *said = program_says(out);

		if (said) {
			g_free(why);
			why = said;
		}
	}
	r->reason = amp && r->verdict != LAB_PASS
		? g_strdup_printf("%s; %s", why, amp) : g_strdup(why);
	restart = !crashed && s->t->consumes_boot && !s->last_on_guest &&
		  r->verdict == LAB_FAIL;
	g_free(why);
	g_free(amp);
	g_free(cmd);
	g_free(out);
	return restart;
}

static struct lab_result *run_instance(struct run_ctx *c,
				       const struct instance_spec *s)
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
	pre = preflight(s, &reason);
	if (pre >= 0) {
		r->verdict = (enum lab_verdict)pre;
		r->reason = reason;
		return r;
	}
	if (execute(c, s, r)) {
		char *saved = saved_console_name(c, s->g);

		lab_info("# %s spent the kernel of %s: restarting it", s->name,
			 s->g->name);
		lab_virt_restart(s->g->name, saved, RESTART_TIMEOUT_S);
		s->g->boots++;
		g_free(saved);
	}
	return r;
}

/* ---- the plan ---- */

static GPtrArray *plan(struct run_ctx *c, GPtrArray *tests)
{
	GPtrArray *p = g_ptr_array_new();
	guint i, j;

	for (i = 0; i < tests->len; i++) {
		const struct lab_test *t = g_ptr_array_index(tests, i);
		char *one[] = { NULL, NULL };
		char **v = t->nfs_versions ? t->nfs_versions : one;

		for (; v == one || *v; v++) {
			struct instance_spec *s = g_new0(struct instance_spec, 1);

			s->t = t;
			s->vers = *v;
			s->g = guest_for(c, t);
			s->name = *v ? g_strdup_printf("%s:v%s", t->name, *v)
				     : g_strdup(t->name);
			g_ptr_array_add(p, s);
			if (v == one)
				break;
		}
	}
	for (i = 0; i < p->len; i++) {
		struct instance_spec *s = g_ptr_array_index(p, i);

		s->last_on_guest = true;
		for (j = i + 1; j < p->len; j++)
			if (((struct instance_spec *)g_ptr_array_index(p, j))->g == s->g)
				s->last_on_guest = false;
	}
	return p;
}

static void spec_free(gpointer p)
{
	struct instance_spec *s = p;

	g_free(s->name);
	g_free(s);
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

		if (!g->console || !g_file_get_contents(g->console, &data, &len, NULL))
			continue;
		p = g_strdup_printf("%s/consoles/%s.log", c->run.dir, g->name);
		lab_write_file(p, data, (gssize)len);
		g_free(p);
		g_free(data);
	}
}

static char *new_run_dir(const char *kernel, char **id)
{
	char stamp[32];
	time_t now = time(NULL);
	char *dir, *latest;

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	*id = g_strdup_printf("%s-%s", stamp, kernel);
	dir = g_strdup_printf("%s/runs/%s", lab_home(), *id);
	if (lab_mkdir_p(dir) != 0) {
		g_free(dir);
		return NULL;
	}
	latest = g_strdup_printf("%s/runs/latest", lab_home());
	unlink(latest);
	if (symlink(*id, latest) != 0)
		lab_err("cannot link %s", latest);
	g_free(latest);
	return dir;
}

static int run_all(struct run_ctx *c, GPtrArray *specs)
{
	guint i, bad = 0;

	printf("KTAP version 1\n1..%u\n", specs->len);
	for (i = 0; i < specs->len && !lab_interrupted; i++) {
		struct instance_spec *s = g_ptr_array_index(specs, i);
		struct lab_result *r;
		char *line;

		printf("# %s on %s (%s kernel)\n", s->name,
		       s->g ? s->g->name : "-", s->g ? s->g->kernel : "-");
		r = run_instance(c, s);
		if (lab_interrupted && r->verdict != LAB_SKIP) {
			lab_result_free(r); /* half a test is no result */
			break;
		}
		g_ptr_array_add(c->run.results, r);
		line = lab_result_ktap_line(r, (int)i + 1);
		printf("%s\n", line);
		g_free(line);
		bad += r->verdict == LAB_FAIL || r->verdict == LAB_ERROR;
		lab_results_write(&c->run);
	}
	save_consoles(c);
	lab_results_write(&c->run);
	if (lab_interrupted) {
		lab_err("interrupted: %u results kept in %s", c->run.results->len,
			c->run.dir);
		return 130;
	}
	printf("# results: %s\n", c->run.dir);
	return bad ? 1 : 0;
}

static const char run_usage[] =
	"usage: lab run [--duration SECONDS] [TEST|SUITE...]\n"
	"  Run tests from tests/suite.ini on the instance that is up (`lab up`).\n"
	"  Default: the suite named after the topology, else `review`.\n";

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
			*duration = atoi(argv[++i]);
			if (*duration <= 0) {
				lab_err("run: --duration needs a positive number of seconds");
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
	guint i;

	for (i = 0; i < guests->len; i++) {
		struct guest *g = g_ptr_array_index(guests, i);

		if (g->role && strcmp(g->role, "nfs-server") == 0)
			return g->address;
	}
	return NULL;
}

/* Run the named tests/suites (NULL: the topology's default suite) on the
 * instance that is up. *run_dir gets the run directory. Returns 0 when no
 * test failed or errored, 1 otherwise, 2 for unknown names, 130 on Ctrl-C. */
int lab_run_tests(char **names, int duration_s, char **run_dir)
{
	struct run_ctx c = { 0 };
	struct lab_suite *suite = NULL;
	GPtrArray *tests = NULL, *specs = NULL;
	char *path = lab_src_path("tests/suite.ini"), *err = NULL;
	GKeyFile *kf = NULL;
	int rc = 1;

	c.duration_s = duration_s;
	if (!(suite = lab_suite_load(path, &err))) {
		lab_err("bad suite map: %s", err);
		goto out;
	}
	if (names && names[0] && !(tests = lab_suite_resolve(suite, names, &err))) {
		lab_err("%s", err);
		rc = 2;
		goto out;
	}
	if (!(kf = lab_virt_state()))
		goto out;
	if (!tests) {
		char **def = default_names(suite, kf);

		tests = lab_suite_resolve(suite, def, &err);
		g_strfreev(def);
	}
	c.guests = load_guests(kf);
	c.nfs_server = nfs_server_of(c.guests);
	c.run.kernel = g_strdup(kernel_of(c.guests));
	c.run.topology = g_key_file_get_string(kf, "instance", "topology-name", NULL);
	c.run.results = g_ptr_array_new_with_free_func((GDestroyNotify)lab_result_free);
	c.run.started = (double)time(NULL);
	if (!tests || !(c.run.dir = new_run_dir(c.run.kernel, &c.run.id)))
		goto out;
	specs = plan(&c, tests);
	g_ptr_array_set_free_func(specs, spec_free);
	lab_phase_begin("run tests");
	rc = run_all(&c, specs);
	lab_phase_end();
	if (run_dir)
		*run_dir = g_strdup(c.run.dir);
out:
	if (specs)
		g_ptr_array_free(specs, TRUE);
	if (tests)
		g_ptr_array_free(tests, TRUE);
	if (c.guests)
		g_ptr_array_free(c.guests, TRUE);
	if (c.run.results)
		g_ptr_array_free(c.run.results, TRUE);
	g_free(c.run.id);
	g_free(c.run.dir);
	g_free(c.run.kernel);
	g_free(c.run.topology);
	if (kf)
		g_key_file_free(kf);
	lab_suite_free(suite);
	g_free(path);
	g_free(err);
	return rc;
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
