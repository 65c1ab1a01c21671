/* stress_spread.c - `lab stress --hosts A,B,...`: a part of the loop per
 * host, all at once (spread.h), each a stress run of its own under
 * ID/hosts/HOST (own instance INST-hN, own seed, its share of --loops, the
 * whole --duration); then the parts' counts and titles are merged into
 * ID/stress.json. A part whose host dropped out goes on, from its own
 * stress.json, on a host whose part finished. */
#include "jobs/stress_spread.h"
#include "core/stress_report.h"
#include "core/hosts.h"
#include "core/owner.h"
#include "jobs/spread.h"
#include "util/util.h"

#include <string.h>
#include <time.h>

#define MAX_HOSTS 9 /* INST-h1 .. INST-h9 */

int lab_stress_check_hosts(const struct lab_stress_opts *so)
{
	guint n, i, k;

	if (!so->hosts)
		return 0;
	n = g_strv_length(so->hosts);
	if (n < 1 || n > MAX_HOSTS || strlen(lab_instance()) + 3 > LAB_INSTANCE_MAX) {
		lab_err("stress: --hosts takes 1 to %d hosts, and LAB_INSTANCE at most %d "
			"characters (parts run as INSTANCE-hN)", MAX_HOSTS, LAB_INSTANCE_MAX - 3);
		return -1;
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < i; k++)
			if (!strcmp(so->hosts[i], so->hosts[k])) {
				lab_err("stress: host '%s' is named twice in --hosts", so->hosts[i]);
				return -1;
			}
	return lab_hosts_check_names(so->hosts_file, so->hosts, "stress");
}

struct part {
	const struct lab_stress *all;
	const struct lab_stress_opts *so;
	guint index, n;
	const char *host; /* the host it was given first: its directory's name */
	char *dir;
};

/* A part's share of --loops (0: no count limit). */
static long share(const struct part *p)
{
	long l = p->all->loops;

	return l ? l / p->n + ((long)p->index < l % p->n) : 0;
}

static struct lab_stress *part_new(const struct part *p)
{
	const struct lab_stress *a = p->all;
	struct lab_stress *s = lab_stress_new();

	s->id = g_strdup_printf("%s/%s", a->id, p->host);
	s->topology = g_strdup(a->topology);
	s->kernel = g_strdup(a->kernel);
	s->names = g_strdupv(a->names);
	s->env = g_strdupv(a->env);
	s->seed = a->seed + p->index; /* each host its own orders */
	s->duration_s = a->duration_s;
	s->loops = share(p);
	s->until_fail = a->until_fail;
	s->steady = a->steady;
	s->quarantine_after = a->quarantine_after;
	s->started = (gint64)time(NULL);
	return s;
}

/* The part's state: new, or what it did before its host dropped out. */
static struct lab_stress *part_state(const struct part *p)
{
	char *json = g_build_filename(p->dir, "stress.json", NULL), *err = NULL;
	struct lab_stress *s = NULL;

	if (lab_exists(json)) {
		if (!(s = lab_stress_from_json(json, &err))) {
			lab_err("%s", err);
			g_free(err);
		} else {
			g_clear_pointer(&s->stop_reason, g_free);
			lab_info("going on with the part at iteration %d", s->iteration);
		}
	} else {
		s = part_new(p);
	}
	if (s) {
		g_free(s->dir);
		s->dir = g_strdup(p->dir);
	}
	g_free(json);
	return s;
}

static char *part_fn(void *arg, const char *host, bool *host_lost)
{
	struct part *p = arg;
	struct lab_stress_opts so = *p->so;
	struct lab_stress *s;
	char *out = NULL;
	int rc;

	lab_phase_forget();
	so.host = host;
	so.hosts = NULL;
	so.inject_crash = p->index == 0 ? so.inject_crash : 0;
	lab_mkdir_p(p->dir);
	if (!(s = part_state(p)))
		return NULL;
	rc = lab_stress_here(s, &so, host_lost);
	if (rc == 0)
		out = g_strdup(s->dir);
	lab_stress_free(s);
	return out;
}

/* Merge every part that left a state (also one that failed: what it ran
 * counts) and say why each stopped. */
static void merge_parts(struct lab_stress *s, struct part *parts,
			struct lab_spread_job *jobs, guint n)
{
	GString *why = g_string_new("");
	guint i;

	for (i = 0; i < n; i++) {
		char *json = g_build_filename(parts[i].dir, "stress.json", NULL);
		char *rel = g_build_filename("hosts", parts[i].host, NULL), *err = NULL;
		struct lab_stress *p = lab_exists(json) ? lab_stress_from_json(json, &err) : NULL;

		if (p) {
			lab_stress_merge(s, p, rel);
			if (!s->kernel_dir)
				s->kernel_dir = g_strdup(p->kernel_dir);
		}
		if (err) /* a part lab wrote but cannot read back is said, not hidden */
			lab_err("stress: %s", err);
		g_string_append_printf(why, "%s%s: %s%s%s", i ? "; " : "", parts[i].host,
				       p && p->stop_reason ? p->stop_reason
				       : err ? "its state is unreadable" : "did not run",
				       jobs[i].ran_on != parts[i].host ? ", finished on " : "",
				       jobs[i].ran_on != parts[i].host
				       ? (jobs[i].ran_on ? jobs[i].ran_on : "?") : "");
		lab_stress_free(p);
		g_free(err);
		g_free(json);
		g_free(rel);
	}
	g_free(s->stop_reason);
	s->stop_reason = g_string_free(why, FALSE);
}

int lab_stress_spread(struct lab_stress *s, const struct lab_stress_opts *so)
{
	guint n = g_strv_length(so->hosts), i, m = 0;
	struct part *parts = g_new0(struct part, n);
	struct lab_spread_job *jobs = g_new0(struct lab_spread_job, n);
	char **inst = g_new0(char *, n + 1), *json, *path;
	int rc;

	lab_info("stress %s: spread over %u host%s, state %s/stress.json", s->id, n,
		 n == 1 ? "" : "s", s->dir);
	for (i = 0; i < n; i++) {
		struct part *p = &parts[m];

		*p = (struct part){ s, so, i, n, so->hosts[i], NULL };
		if (s->loops && !share(p))
			continue; /* more hosts than loops */
		p->dir = g_build_filename(s->dir, "hosts", so->hosts[i], NULL);
		inst[m] = g_strdup_printf("%s-h%u", lab_instance(), i + 1);
		jobs[m] = (struct lab_spread_job){ .label = so->hosts[i], .instance = inst[m],
						   .host = so->hosts[i], .fn = part_fn, .arg = p };
		m++;
	}
	rc = lab_spread_run(jobs, m);
	merge_parts(s, parts, jobs, m);
	json = lab_stress_to_json(s);
	path = g_build_filename(s->dir, "stress.json", NULL);
	lab_write_file(path, json, -1);
	lab_stress_write_reports(s);
	g_free(json);
	g_free(path);
	for (i = 0; i < m; i++)
		g_free(parts[i].dir);
	lab_spread_clear(jobs, m);
	g_strfreev(inst);
	g_free(parts);
	g_free(jobs);
	return rc == 130 ? 130 : 0;
}
