/* run.c - `lab run`: suite-map tests on the guests of the instance that
 * is up. This file plans the run (every test instance: per server, NFS
 * version and group) and schedules it; run_test.c runs one test in its
 * guest and judges it, run_watch.c reads the guest around it.
 *
 * Tests of different guests run at the same time (schedule.h); KTAP lines
 * and results.json stay in plan order, not in order of finishing. */
#include "jobs/run.h"
#include "jobs/run_ctx.h"
#include "core/owner.h"
#include "guests/instance.h"
#include "util/util.h"
#include "virt/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void guest_free(gpointer p)
{
	struct guest *g = p;

	g_free(g->name);
	g_free(g->role);
	g_free(g->address);
	g_free(g->console);
	g_free(g->console_vol);
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
		g->console_vol = g_key_file_get_string(kf, grp, "console-vol", NULL);
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

struct guest *lab_run_guest_with_role(GPtrArray *guests, char **roles)
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
		struct guest *pg = lab_run_guest_with_role(c->guests, one);

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
				s->g = lab_run_guest_with_role(c->guests, t->roles);
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
			lab_run_sync_console(c, g);
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
	struct lab_result *r = lab_run_spec(j->c, j->s);
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

	if (!c->o->quiet) {
		printf("KTAP version 1\n1..%u\n", c->specs->len);
		for (char **e = c->o->env; e && *e; e++)
			printf("# test setting: %s\n", *e);
	}
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
	if (lab_run_gsh(c, g->name, "uname -r", 30, 0, &out) == 0)
		c->run.kernel_release = g_strdup(g_strstrip(out));
	g_free(out);
	g_free(kdir);
	g_free(grp);
}

/* ---- the run ---- */

static char **default_names(struct lab_suite *s, GKeyFile *kf)
{
	char *topo = g_key_file_get_string(kf, "instance", "topology-name", NULL);
	char **names = g_new0(char *, 2);

	names[0] = topo && g_hash_table_contains(s->suites, topo)
		? g_strdup(topo) : g_strdup("review");
	g_free(topo);
	return names;
}

static const char *nfs_server_of(GPtrArray *guests)
{
	char *roles[] = { "nfs-server", NULL };
	struct guest *g = lab_run_guest_with_role(guests, roles);

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
	int rc = 1;

	if (!(*suite = lab_suite_load(path, &err))) {
		lab_err("bad suite map: %s", err);
		goto out;
	}
	if (names && names[0] && !(*tests = resolve(*suite, names, &err))) {
		lab_err("%s", err);
		rc = 2;
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
	c->in = in;
	c->conn = in->conn;
	rc = 0;
out:
	g_free(path);
	g_free(err);
	return rc;
}

int lab_run_with(struct lab_inst *in, const struct lab_run_opts *o, char **run_dir)
{
	struct run_ctx c = { 0 };
	struct lab_suite *suite = NULL;
	GPtrArray *tests = NULL;
	int rc;

	g_mutex_init(&c.lock);
	g_cond_init(&c.changed);
	c.o = o;
	rc = prepare(&c, in, o->names, &suite, &tests);
	if (rc != 0)
		goto out;
	rc = 1;
	c.nfs_server = nfs_server_of(c.guests);
	c.run.kernel = g_strdup(kernel_of(c.guests));
	c.run.topology = g_key_file_get_string(in->state, "instance", "topology-name", NULL);
	describe_kernel(&c, in->state);
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
	lab_suite_free(suite);
	return rc;
}

