/* run_parts.c - a test's parts (suite.ini parts=ROLE:PROGRAM): programs
 * started on other guests when the test starts and collected when it ends,
 * so a test can cross guests (a server on one, clients on others). A part
 * that fails or does not finish decides the test as the program would. */
#include "jobs/run_ctx.h"
#include "guests/restart.h"
#include "util/util.h"
#include "virt/agent.h"
#include "virt/conn.h"

#include <string.h>

struct lab_part {
	char *role;
	char *program;
	struct guest *g;
	long pid;        /* guest-exec's, 0 when it did not start */
	int exit_code;   /* -1 when it did not finish */
	char *out;
	char *why;       /* set when it could not start */
	long console_from; /* its guest's console lines before the BEGIN marker */
	double started;    /* lab_now() when it started */
};

static void part_free(gpointer p)
{
	struct lab_part *x = p;

	g_free(x->role);
	g_free(x->program);
	g_free(x->out);
	g_free(x->why);
	g_free(x);
}

/* Start one part; it runs on while the test does. */
static void part_start(struct run_ctx *c, const struct spec *s, struct lab_part *x)
{
	char *one[] = { x->role, NULL }, *script;
	const char *argv[] = { "/usr/bin/setsid", "/bin/sh", "-c", NULL, NULL };
	struct lab_exec_result res = { 0 };
	virDomainPtr d;
	int how;

	x->exit_code = -1;
	x->g = lab_run_guest_with_role(c->guests, one);
	if (!x->g) {
		x->why = g_strdup_printf("no guest has role %s", x->role);
		return;
	}
	x->why = lab_run_program_there(c, x->g->name, x->program);
	if (x->why)
		return;
	/* the test's markers in this guest's log too: its reports are the test's */
	x->console_from = lab_run_console_lines(c, x->g);
	script = g_strdup_printf("BEGIN %s", s->name);
	lab_run_kmsg_marker(c, x->g->name, script);
	g_free(script);
	d = lab_virt_guest(c->conn, x->g->name);
	if (!d) {
		x->why = g_strdup_printf("guest %s is not there", x->g->name);
		return;
	}
	script = lab_run_script(c, s, x->program, x->role);
	argv[3] = script;
	x->started = lab_now();
	how = lab_agent_exec(d, argv, 0, 0, &res);	/* returns at once */
	if (how == 0) {		/* already over */
		x->exit_code = res.exit_code;
		x->out = g_strdup(res.out ? res.out : "");
	} else if (how == 1) {
		x->pid = res.pid;
	} else {
		x->why = g_strdup_printf("guest-exec failed in %s", x->g->name);
	}
	lab_exec_result_clear(&res);
	virDomainFree(d);
	g_free(script);
}

GPtrArray *lab_parts_start(struct run_ctx *c, const struct spec *s)
{
	GPtrArray *parts = g_ptr_array_new_with_free_func(part_free);
	char **v;

	for (v = s->t->parts; v && *v; v++) {
		struct lab_part *x = g_new0(struct lab_part, 1);
		size_t n = strcspn(*v, ":");

		x->role = g_strndup(*v, n);
		x->program = g_strdup(*v + n + 1);
		part_start(c, s, x);
		g_ptr_array_add(parts, x);
	}
	return parts;
}

/* Wait for a started part until the test's bound from its start (not from
 * now: parts are collected one after another), then kill its group. */
static void part_collect(struct run_ctx *c, const struct spec *s, struct lab_part *x)
{
	struct lab_exec_result res = { 0 };
	double left = s->t->timeout_s + AGENT_SLACK_S - (lab_now() - x->started);
	virDomainPtr d;

	if (!x->pid)
		return;
	d = lab_virt_guest(c->conn, x->g->name);
	if (!d)
		return;
	/* Ctrl-C ends the wait: the part is killed like one out of time */
	if (lab_agent_exec_collect(d, x->pid, left > 5 ? (int)left : 5, 0, &res) == 0) {
		x->exit_code = res.exit_code;
	} else {
		lab_agent_kill(d, x->pid, true);
		lab_exec_result_clear(&res);
		lab_agent_exec_collect(d, x->pid, 10, LAB_AGENT_UNINTERRUPTIBLE, &res);
		x->exit_code = -1;
	}
	x->out = g_strdup(res.out ? res.out : "");
	lab_exec_result_clear(&res);
	virDomainFree(d);
}

/* A part's exit code: 3 (error) when it did not start or finish. */
static int part_code(const struct lab_part *x)
{
	return x->why || x->exit_code < 0 ? 3 : x->exit_code;
}

/* What a part says for the test: its fail line, or why it has none. */
static char *part_words(const struct lab_part *x)
{
	char *r, *w;

	if (x->why)
		return g_strdup_printf("error: part %s (%s) did not start: %s",
				       x->role, x->program, x->why);
	if (x->exit_code < 0)
		return g_strdup_printf("error: part %s (%s) did not finish in time",
				       x->role, x->program);
	r = lab_run_program_says(x->out);
	w = r ? g_strdup(r) : g_strdup_printf("error: part %s (%s) exited %d",
					      x->role, x->program, x->exit_code);
	g_free(r);
	return w;
}

void lab_parts_finish(struct run_ctx *c, const struct spec *s, GPtrArray *parts,
		      int *exit_code, char **out, char **said)
{
	GString *all = g_string_new(*out ? *out : "");
	guint i;

	for (i = 0; i < parts->len; i++) {
		struct lab_part *x = g_ptr_array_index(parts, i);

		part_collect(c, s, x);
		if (x->g && !x->why) {
			char *marker = g_strdup_printf("END %s rc=%d", s->name, x->exit_code);

			lab_run_kmsg_marker(c, x->g->name, marker);
			g_free(marker);
		}
		g_string_append_printf(all, "# ---- part %s: %s on %s, exit %d%s%s ----\n%s",
				       x->role, x->program, x->g ? x->g->name : "-",
				       x->exit_code, x->why ? ": " : "", x->why ? x->why : "",
				       x->out ? x->out : "");
		/* a program that did not finish is a timeout: that stands */
		if (*exit_code >= 0) {
			char *words = part_words(x);

			if (lab_part_decides(s->t->signature_program, *exit_code, *said,
					     part_code(x), words)) {
				g_free(*said);
				*said = g_steal_pointer(&words);
				*exit_code = part_code(x);
			}
			g_free(words);
		}
	}
	g_free(*out);
	*out = g_string_free(all, FALSE);
}

void lab_parts_classify(struct run_ctx *c, const struct spec *s, GPtrArray *parts,
			struct lab_result *r, struct lab_obs *o)
{
	guint i;

	for (i = 0; i < parts->len; i++) {
		struct lab_part *x = g_ptr_array_index(parts, i);

		if (!x->g || x->why)
			continue;
		lab_run_sync_console(c, x->g);
		lab_run_classify(c, s, r, x->g->console, x->console_from, x->g->name, o);
	}
	g_ptr_array_free(parts, TRUE);
}

void lab_parts_restart(struct run_ctx *c, const struct spec *s)
{
	char **v;

	for (v = s->t->parts; v && *v; v++) {
		char *role = g_strndup(*v, strcspn(*v, ":")), *one[] = { role, NULL }, *saved;
		struct guest *g = lab_run_guest_with_role(c->guests, one);

		g_free(role);
		if (!g || g == s->g || g->lost)
			continue;
		lab_info("# %s spent the kernel of its part's guest %s: bringing it back",
			 s->name, g->name);
		saved = lab_run_console_name(c, g);
		if (lab_guest_restart(c->in, g->name, saved, RESTART_TIMEOUT_S) != 0)
			g->lost = true;
		g->boots++;
		g_free(saved);
	}
}
