/* stress.c - `lab stress`: overnight loops. */
#include "cli/cli.h"
#include "build/kernel.h"
#include "core/stress_report.h"
#include "core/suite.h"
#include "jobs/stress.h"
#include "jobs/stress_spread.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static struct lab_stress_opts sopts;
static long duration_s;
static int nloops, steady, quarantine, inject, seed;
static bool until_fail, keep;
static char **hosts, **env;

static int show_status(const char *id)
{
	char *dir = lab_stress_dir(id), *p = g_build_filename(dir, "stress.json", NULL);
	char *err = NULL, *text;
	struct lab_stress *s = lab_stress_from_json(p, &err);

	if (!s) {
		lab_err("%s", err);
		g_free(err);
		g_free(dir);
		g_free(p);
		return 1;
	}
	text = lab_stress_text(s);
	fputs(text, stdout);
	g_free(text);
	lab_stress_free(s);
	g_free(dir);
	g_free(p);
	return 0;
}

/* Into INTO (emptied and refilled): the state of stress run ID. */
static struct lab_stress *resume(struct lab_stress *into, const char *id)
{
	char *dir = lab_stress_dir(id), *p = g_build_filename(dir, "stress.json", NULL);
	char *err = NULL;
	struct lab_stress *s = lab_stress_from_json(p, &err);

	if (!s) {
		lab_err("cannot resume: %s", err);
		g_free(err);
	} else {
		struct lab_stress tmp = *into;

		*into = *s;
		*s = tmp;
		lab_stress_free(s);
		s = into;
		s->dir = g_strdup(dir);
		g_clear_pointer(&s->stop_reason, g_free);
		lab_info("resuming stress %s at iteration %d (%ld tests so far)", id,
			 s->iteration, s->tests_run);
	}
	g_free(dir);
	g_free(p);
	return s;
}

/* ---- the command's work ---- */

static bool id_ok(const char *id)
{
	return id && *id && strspn(id, "0123456789-") == strlen(id);
}

/* --status, --resume, or a new run here or spread over --hosts; the
 * summary printed. */
static int stress_run(struct lab_stress *s, const struct lab_stress_opts *so_in)
{
	struct lab_stress_opts so = *so_in;
	bool lost = false;
	int rc = 0;

	if ((so.resume && !id_ok(so.resume)) || (so.status && !id_ok(so.status))) {
		lab_err("stress: an ID is the stress run's date, e.g. 20261204-083000");
		rc = 2;
		goto out;
	}
	if (so.status) {
		rc = show_status(so.status);
		goto out;
	}
	if (lab_stress_check_hosts(&so) != 0) {
		rc = 2;
		goto out;
	}
	if (so.resume) {
		long loops = s->loops, duration = s->duration_s;

		if (!(s = resume(s, so.resume))) {
			rc = 1;
			goto out;
		}
		/* a resumed run may be given more loops or time */
		if (loops)
			s->loops = loops;
		if (duration)
			s->duration_s = duration;
		so.topology = s->topology;
		so.kernel = s->kernel;
	} else {
		if (!s->names[0]) {
			g_free(s->names);
			s->names = g_new0(char *, 2);
			s->names[0] = g_strdup(strcmp(so.topology, "default") ? so.topology : "review");
		}
		if (!s->seed)
			s->seed = (guint64)time(NULL) % 100000;
		{
			char *root = lab_path("stress");

			/* unique even when another instance starts this second */
			s->dir = lab_unique_dir(root, NULL, &s->id);
			g_free(root);
		}
		if (!s->dir) {
			rc = 1;
			goto out;
		}
		s->topology = g_strdup(so.topology);
		s->kernel = g_strdup(so.kernel ? so.kernel : "patched");
		so.kernel = s->kernel;
		s->started = (gint64)time(NULL);
	}
	if (so.hosts)
		rc = lab_stress_spread(s, &so);
	else
		rc = lab_stress_here(s, &so, &lost);
	if (rc < 0) {
		rc = 1;
		goto out;
	}
	fputs("\n", stdout);
	{
		char *text = lab_stress_text(s);

		fputs(text, stdout);
		g_free(text);
	}
	printf("stress %s: %s (report: %s/report.html; disk used: %.0f MiB)\n", s->id,
	       s->stop_reason ? s->stop_reason : "stopped", s->dir,
	       (double)lab_du(s->dir) / (1 << 20));
out:
	return rc;
}

static const struct lab_opt stress_opts[] = {
	{ "--topology", "-t", LAB_OPT_STR, "TOPOLOGY", "a name from topologies/ or a path",
	  &sopts.topology, 0, 0, NULL, "default" },
	{ "--kernel", NULL, LAB_OPT_STR, "KERNEL", "baseline, patched (default), isolate-NNN or yours",
	  &sopts.kernel, 0, 0, NULL, NULL },
	{ "--duration", NULL, LAB_OPT_DURATION, "TIME", "wall time: 8h, 30m, 90s or seconds",
	  &duration_s, 1, 30L * 86400, NULL, NULL },
	{ "--loops", NULL, LAB_OPT_INT, "N", "stop after N iterations", &nloops, 1, 1000000,
	  NULL, NULL },
	{ "--until-fail", NULL, LAB_OPT_FLAG, NULL, "stop at the first failure", &until_fail,
	  0, 0, NULL, NULL },
	{ "--steady", NULL, LAB_OPT_INT, "N", "stop after N clean iterations in a row",
	  &steady, 1, 100000, NULL, NULL },
	{ "--seed", NULL, LAB_OPT_INT, "S", "the shuffle's seed (replays an order)", &seed,
	  0, G_MAXINT32, NULL, NULL },
	{ "--quarantine", NULL, LAB_OPT_INT, "K",
	  "leave out a test that killed its guest K times in a row (3)", &quarantine, 1,
	  1000, NULL, NULL },
	{ "--keep", NULL, LAB_OPT_FLAG, NULL, "leave the instance up at the end", &keep,
	  0, 0, NULL, NULL },
	{ "--resume", NULL, LAB_OPT_STR, "ID", "go on with stress run ID", &sopts.resume, 0, 0,
	  NULL, NULL },
	{ "--status", NULL, LAB_OPT_STR, "ID", "print the summary of stress run ID", &sopts.status,
	  0, 0, NULL, NULL },
	{ "--hosts", "--host", LAB_OPT_LIST, "A,B,..",
	  "a part of the loop on every host at once (hosts.ini names)", &hosts, 0, 0,
	  NULL, NULL },
	{ "--hosts-file", NULL, LAB_OPT_STR, "FILE", "hosts.ini to read (default: $LAB_HOME/hosts.ini)",
	  &sopts.hosts_file, 0, 0, NULL, NULL },
	{ "--env", NULL, LAB_OPT_ENV, "LAB_X=V",
	  "a setting for every test program (e.g. LAB_NETNS=512); repeatable", &env,
	  0, 0, NULL, NULL },
	{ "--inject-crash", NULL, LAB_OPT_INT, "N", "panic the first guest in iteration N (CI)",
	  &inject, 1, 1000000, NULL, NULL },
	{ 0 },
};

/* Options that exclude each other, named before anything starts. */
static const char *conflict(char **names)
{
	if (until_fail && steady)
		return "--until-fail and --steady exclude each other";
	if (sopts.status && (names[0] || nloops || duration_s))
		return "--status takes nothing else";
	if ((sopts.resume || sopts.status) && hosts)
		return "a run spread with --hosts is not resumed (each host's part is kept under ID/hosts/)";
	if ((sopts.resume || sopts.status) && names[0])
		return "--resume and --status take no tests";
	if ((sopts.resume || sopts.status) && env)
		return "a resumed run keeps the --env it started with";
	if (sopts.kernel && !lab_kernel_known(sopts.kernel))
		return "--kernel takes baseline, patched, isolate-NNN or a kernel of yours (`lab kernels`)";
	return NULL;
}

/* Tests and suites named exist, before anything comes up. */
static int names_known(char **names)
{
	char *path = lab_src_path("tests/suite.ini"), *err = NULL;
	struct lab_suite *suite = lab_suite_load(path, &err);
	GPtrArray *tests = suite && names[0] ? lab_suite_expand(suite, names, &err) : NULL;
	int rc = suite && (!names[0] || tests) ? 0 : -1;

	if (rc)
		lab_err("stress: %s", err);
	if (tests)
		g_ptr_array_free(tests, TRUE);
	lab_suite_free(suite);
	g_free(err);
	g_free(path);
	return rc;
}

static int run_stress(struct lab_inst *in, char **args)
{
	const char *why = conflict(args);
	struct lab_stress *s;
	int rc;

	(void)in;
	if (why) {
		lab_err("stress: %s", why);
		return 2;
	}
	if (names_known(args) != 0)
		return 2;
	s = lab_stress_new();
	s->names = g_strdupv(args);
	s->env = g_strdupv(env);
	s->duration_s = duration_s;
	s->loops = nloops;
	s->steady = steady;
	s->until_fail = until_fail;
	s->seed = (guint64)seed;
	if (quarantine)
		s->quarantine_after = quarantine;
	sopts.inject_crash = inject;
	sopts.keep = keep;
	sopts.hosts = hosts;
	rc = stress_run(s, &sopts);
	lab_stress_free(s);
	return rc;
}

static const struct lab_cmd_spec stress_spec = {
	"stress", "[TEST|SUITE...]",
	"  Loop the tests (default: the topology's suite, else review) in a shuffled\n"
	"  order per iteration until the duration, the loop count, the first\n"
	"  failure (--until-fail) or N clean iterations in a row (--steady N).\n"
	"  Failures are filed by title with console excerpts; a guest that died is\n"
	"  dumped (crash(8)) and restored. State: $LAB_HOME/stress/ID/stress.json,\n"
	"  reports report.txt/json/html there. --hosts: --loops is split between\n"
	"  the hosts, --duration holds on each; a host that drops out is reported\n"
	"  and its part goes on on a host that finished.\n",
	stress_opts, 0, -1, false,
};

const struct lab_cmd lab_cmd_stress = {
	&stress_spec, "loop tests for hours: failure rates, crash titles, dumps",
	LAB_NEEDS_NOTHING, run_stress,
};
