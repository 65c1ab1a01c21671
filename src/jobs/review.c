/* review.c - the main job. `lab review` builds (or takes from cache) both
 * kernels and the image, runs the suite on the baseline kernel and then on
 * the patched kernel, each on fresh guests, and writes the report;
 * `lab report` re-renders one, `lab compare` compares any two runs. */
#include "jobs/review.h"
#include "build/kernel.h"
#include "build/image.h"
#include "core/report.h"
#include "core/results.h"
#include "core/suite.h"
#include "build/tests_disk.h"
#include "core/topology.h"
#include "util/util.h"
#include "virt/conn.h"
#include "jobs/isolate.h"
#include "core/hosts.h"
#include "core/owner.h"
#include "jobs/session.h"
#include "jobs/spread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define READY_TIMEOUT_S 900


/* Up, run, down on one kernel, on HOST (NULL: local). The run dir or
 * NULL; *host_lost when the host failed us (no guests came up there, or
 * its libvirtd stopped answering during the run). */
static char *one_kernel_on(const struct lab_review_opts *o, const char *kernel,
			   const char *host, bool *host_lost)
{
	struct lab_up_opts up = { .topology = o->topology, .kernel = kernel,
				  .accel = "auto", .tests_iso = o->iso,
				  .timeout_s = READY_TIMEOUT_S, .host = host,
				  .hosts_file = o->hosts_file };
	/* side by side, two KTAP streams would interleave: the report says it */
	struct lab_run_opts ro = { .duration_s = o->duration_s,
				   .quiet = o->hosts && o->hosts[1] };
	char *phase = g_strdup_printf("up (%s)", kernel);
	char *run_dir = NULL;

	lab_info("=== %s kernel%s%s ===", kernel, host ? " on host " : "",
		 host ? host : "");
	lab_phase_begin(phase);
	g_free(phase);
	if (ro.quiet)
		lab_phase_begin("run tests");
	lab_session_once(&up, &ro, false, &run_dir, host_lost);
	lab_phase_end();
	return run_dir;
}

static char *one_kernel(const struct lab_review_opts *o, const char *kernel)
{
	bool lost;
	const char *host = o->hosts ? o->hosts[0] : NULL;

	return one_kernel_on(o, kernel, host, &lost);
}

/* A spread review's child: the kernel is its job's argument. */
struct kernel_job {
	const struct lab_review_opts *o;
	const char *kernel;
};

static char *kernel_job_fn(void *arg, const char *host, bool *host_lost)
{
	struct kernel_job *k = arg;

	lab_phase_forget(); /* the parent's phases are not the child's */
	return one_kernel_on(k->o, k->kernel, host, host_lost);
}

/* Baseline and patched at the same time, one per host; a kernel whose
 * host dropped out runs again on the other. */
static int both_kernels_spread(const struct lab_review_opts *o, char **base,
			       char **patched)
{
	struct kernel_job kj[2] = { { o, "baseline" }, { o, "patched" } };
	char *inst[2] = { g_strdup_printf("%s-b", lab_instance()),
			  g_strdup_printf("%s-p", lab_instance()) };
	struct lab_spread_job jobs[2] = {
		{ .label = "baseline", .instance = inst[0], .fn = kernel_job_fn, .arg = &kj[0] },
		{ .label = "patched", .instance = inst[1], .fn = kernel_job_fn, .arg = &kj[1] },
	};
	int rc, i;

	for (i = 0; i < 2; i++)
		jobs[i].host = o->hosts[i];
	lab_phase_begin("baseline and patched, spread");
	rc = lab_spread_run(jobs, 2);
	lab_phase_end();
	*base = g_steal_pointer(&jobs[0].result);
	*patched = g_steal_pointer(&jobs[1].result);
	lab_spread_clear(jobs, 2);
	g_free(inst[0]);
	g_free(inst[1]);
	return rc;
}

static int prepare(void)
{
	if (lab_kernel_build_named(LAB_REVIEW_DEFAULT, "all") != 0 || lab_interrupted)
		return -1;
	return lab_image_build() == 0 && !lab_interrupted ? 0 : -1;
}

/* reviews/DATE, -2 ... when another instance's review ends this second */
static char *review_dir(void)
{
	char *root = lab_path("reviews"), *id = NULL, *dir;

	dir = lab_unique_dir(root, NULL, &id);
	g_free(root);
	g_free(id);
	return dir;
}

/* What `lab report DIR` needs to render the review again. */
static void write_info(const char *dir, const struct lab_review_info *info)
{
	GKeyFile *kf = g_key_file_new();
	char *p = g_build_filename(dir, "review.ini", NULL), *data;
	gsize len;

	g_key_file_set_string(kf, "review", "name", info->name);
	g_key_file_set_string(kf, "review", "topology", info->topology ? info->topology : "");
	g_key_file_set_string(kf, "review", "phases", info->phases ? info->phases : "");
	data = g_key_file_to_data(kf, &len, NULL);
	lab_write_file(p, data, (gssize)len);
	g_free(data);
	g_free(p);
	g_key_file_free(kf);
}

/* Merge single-bug runs into DIR/isolated: one results.json (each
 * result's dir under its seed) and a link per seed to its run. */
static void merge_isolated(const char *dir, GPtrArray *runs, GPtrArray *seeds)
{
	char *out = g_build_filename(dir, "isolated", NULL);
	struct lab_run merged = { 0 };
	guint i, j;

	lab_mkdir_p(out);
	merged.dir = out;
	merged.id = g_strdup("isolated");
	merged.kernel = g_strdup("isolate-NNN");
	merged.results = g_ptr_array_new_with_free_func((GDestroyNotify)lab_result_free);
	for (i = 0; i < runs->len; i++) {
		struct lab_run *r = lab_results_load_dir(g_ptr_array_index(runs, i));
		char *link = g_build_filename(out, g_ptr_array_index(seeds, i), NULL);

		unlink(link);
		if (symlink(g_ptr_array_index(runs, i), link) != 0)
			lab_err("cannot link %s", link);
		g_free(link);
		for (j = 0; r && j < r->results->len; j++) {
			struct lab_result *x = g_ptr_array_index(r->results, j);
			char *d = g_build_filename(g_ptr_array_index(seeds, i), x->dir, NULL);

			g_free(x->dir);
			x->dir = d;
		}
		while (r && r->results->len)
			g_ptr_array_add(merged.results, g_ptr_array_steal_index(r->results, 0));
		lab_run_free(r);
	}
	lab_results_write(&merged);
	g_ptr_array_free(merged.results, TRUE);
	g_free(merged.id);
	g_free(merged.kernel);
	g_free(out);
}

/*
 * Every row whose baseline showed its seed (verified, or a handled injected
 * fault), alone on its own kernel.
 */
static char *isolate_shown(const char *dir, const struct lab_review_opts *o,
			      const char *iso, const char *base, const char *patched)
{
	char *ini = lab_src_path("patches/" LAB_REVIEW_DEFAULT "/review.ini"), *err = NULL;
	struct lab_run *b = lab_results_load_dir(base), *p = lab_results_load_dir(patched);
	GPtrArray *rows = b && p ? lab_report_rows(ini, b, p, NULL, &err) : NULL;
	GPtrArray *runs = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *seeds = g_ptr_array_new_with_free_func(g_free);
	char *out = NULL;
	guint i;

	for (i = 0; rows && i < rows->len && !lab_interrupted; i++) {
		const struct lab_row *r = g_ptr_array_index(rows, i);
		char *run;

		if (r->conclusion != LAB_FIX_VERIFIED &&
		    r->conclusion != LAB_FAULT_HANDLED)
			continue;
		run = lab_isolate_seed(LAB_REVIEW_DEFAULT, o->topology, r->seed, iso);
		if (run) {
			g_ptr_array_add(runs, run);
			g_ptr_array_add(seeds, g_strdup(r->seed));
		}
	}
	if (runs->len) {
		merge_isolated(dir, runs, seeds);
		out = g_build_filename(dir, "isolated", NULL);
	}
	if (rows)
		g_ptr_array_free(rows, TRUE);
	g_ptr_array_free(runs, TRUE);
	g_ptr_array_free(seeds, TRUE);
	lab_run_free(b);
	lab_run_free(p);
	g_free(ini);
	g_free(err);
	return out;
}

int lab_review(struct lab_review_opts *o)
{
	char *iso = NULL, *base = NULL, *patched = NULL, *dir = NULL, *phases = NULL;
	char *isolated = NULL;
	struct lab_review_info info = { LAB_REVIEW_DEFAULT, NULL, NULL, NULL };
	double t0 = lab_now();
	struct lab_topology *t = lab_topology_open(o->topology);
	int rc = 1, short_rows;

	if (!t) /* checked before hours of building, not after */
		return 2;
	lab_topology_free(t);
	if (prepare() != 0)
		goto out;
	iso = lab_tests_iso();
	if (!iso)
		goto out;
	o->iso = iso;
	if (o->hosts && o->hosts[1]) {
		both_kernels_spread(o, &base, &patched);
		if (lab_interrupted || ((!base || !patched) && !o->keep_going))
			goto out;
	} else {
		base = one_kernel(o, "baseline");
		if (lab_interrupted || (!base && !o->keep_going))
			goto out;
		patched = one_kernel(o, "patched");
		if (lab_interrupted)
			goto out;
	}
	dir = review_dir();
	lab_phase_end();
	info.phases = phases = lab_phase_text();
	info.topology = o->topology;
	if (!dir) {
		rc = 1;
		goto out;
	}
	write_info(dir, &info);
	if (o->isolate && base && patched) {
		lab_phase_begin("isolate");
		isolated = isolate_shown(dir, o, iso, base, patched);
		lab_phase_end();
		g_free(phases);
		info.phases = phases = lab_phase_text();
		write_info(dir, &info);
	}
	short_rows = lab_report_write(dir, &info, base, patched, isolated);
	lab_info("review finished in %.0f s: %s", lab_now() - t0, dir);
	rc = short_rows == 0 ? 0 : 1;
	if (short_rows > 0)
		lab_err("%d row(s) fall short of 'fix verified' (named above)", short_rows);
out:
	if (lab_interrupted)
		lab_err("review interrupted; runs written so far are kept under %s/runs",
			lab_home());
	g_free(iso);
	g_free(base);
	g_free(patched);
	g_free(dir);
	g_free(phases);
	g_free(isolated);
	return lab_interrupted ? 130 : rc;
}

int lab_review_check_hosts(const struct lab_review_opts *o)
{
	guint n;

	if (!o->hosts)
		return 0;
	n = g_strv_length(o->hosts);
	if (n < 1 || n > 2 || (n == 2 && !strcmp(o->hosts[0], o->hosts[1]))) {
		lab_err("review: --hosts takes one host or two different ones (baseline,patched)");
		return -1;
	}
	if (n == 2 && strlen(lab_instance()) + 2 > LAB_INSTANCE_MAX) {
		lab_err("review: --hosts A,B runs instances %s-b and %s-p: LAB_INSTANCE may "
			"have at most %d characters then", lab_instance(), lab_instance(),
			LAB_INSTANCE_MAX - 2);
		return -1;
	}
	return lab_hosts_check_names(o->hosts_file, o->hosts, "review");
}
