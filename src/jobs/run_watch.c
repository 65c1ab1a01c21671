/* run_watch.c - the guest around a test: its console (a volume of the
 * store, followed into a local copy) scanned for reports pinned to the
 * test, an oops watched for while the program runs, the domain and agent
 * looked at afterwards, and a memory dump of a guest that died. */
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

/* The fix's own report (006's WARN), by its title, first line or the
 * WARN's own message only - not anywhere in its excerpt - and never one an
 * oops was folded into. */
static bool is_expected(const struct lab_report *rep, const char *want)
{
	return want && !rep->absorbed_crash &&
	       (strstr(rep->title, want) || strstr(rep->first_line, want) ||
		(rep->message && strstr(rep->message, want)));
}

/* The excerpts file: a part's guest adds to what the test's guest wrote. */
static void save_excerpts(const char *path, GString *ex, bool append)
{
	char *old = NULL;

	if (append && g_file_get_contents(path, &old, NULL, NULL))
		g_string_prepend(ex, old);
	lab_write_file(path, ex->str, (gssize)ex->len);
	g_free(old);
}

/* Sort the test's console reports: the fix's own expected report, reports
 * with the seed's signature, the others. Excerpts go to its directory. */
void lab_run_classify(struct run_ctx *c, const struct spec *s, struct lab_result *r,
		      const char *console, long from, const char *on_guest,
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
	mine = lab_console_reports_after(all, s->name, from);
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
		g_string_append_printf(ex, "=== %s%s (%s%sconsole line %ld)\n%s\n",
				       sig ? "this seed's signature: " : "another report: ",
				       rep->title, on_guest ? on_guest : "",
				       on_guest ? "'s " : "", rep->line, rep->excerpt);
	}
	p = g_build_filename(c->run.dir, r->dir, "console-reports.txt", NULL);
	if (ex->len)
		save_excerpts(p, ex, on_guest != NULL);
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

/* The console is a volume of the store: bring the local copy, which every
 * scan reads, up to date first (only the new bytes move). */
void lab_run_sync_console(struct run_ctx *c, const struct guest *g)
{
	if (g->console_vol)
		lab_store_follow(c->in->store, g->console_vol, g->console);
}

long lab_run_console_lines(struct run_ctx *c, const struct guest *g)
{
	char *text = NULL;
	gsize len = 0, i;
	long n = 0;

	lab_run_sync_console(c, g);
	if (!g_file_get_contents(g->console, &text, &len, NULL))
		return 0;
	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	g_free(text);
	return n;
}

char *lab_run_console_name(struct run_ctx *c, struct guest *g)
{
	char *d = g_build_filename(c->run.dir, "consoles", NULL);
	char *p;

	lab_mkdir_p(d);
	p = g_strdup_printf("%s/%s.boot%d.log", d, g->name, g->boots);
	g_free(d);
	return p;
}

/* After the program: is libvirtd there, is the domain, does its agent? */
void lab_run_observe(struct run_ctx *c, const struct spec *s,
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

/* While the program runs: has the kernel lab_run_oopsed inside it? A process the
 * oops left in D state never ends and no signal reaches it, so after an
 * oops pinned to the test (and a grace for the program to finish) the
 * runner stops waiting: that is no timeout, the console says why. */
#define OOPS_GRACE_S 10

bool lab_run_oopsed(void *arg)
{
	struct oops_watch *w = arg;
	GPtrArray *all, *mine;
	struct stat st;
	guint i;

	if (w->panicked)
		return true; /* panic=0: the guest waits for nobody */
	if (w->oops_at > 0)
		return lab_now() - w->oops_at > OOPS_GRACE_S;
	lab_run_sync_console(w->c, w->s->g);
	if (stat(w->s->g->console, &st) != 0 || st.st_size == w->seen)
		return false;
	w->seen = st.st_size;
	all = lab_console_scan_file(w->s->g->console, NULL);
	mine = all ? lab_console_reports_after(all, w->s->name, w->s->console_from) : NULL;
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

/* libvirtd writes the dump on the guests' host, into its store; it is
 * moved to PATH from there. */
static int dump_to(struct run_ctx *c, virDomainPtr d, const char *file,
		   const char *path)
{
	const unsigned fmt = VIR_DOMAIN_CORE_DUMP_FORMAT_KDUMP_ZLIB;
	char *at = lab_store_path(c->in->store, file);
	int rc = virDomainCoreDumpWithFormat(d, at, fmt, VIR_DUMP_MEMORY_ONLY);

	if (rc == 0)
		rc = lab_store_take(c->in->store, file, path);
	g_free(at);
	return rc;
}

/* A guest that died or hung, as it is now, before it is restored: a
 * kdump-compressed memory dump that crash(8) opens with the kernel's
 * vmlinux. Only when the caller asked for dumps (lab stress). */
char *lab_run_dump(struct run_ctx *c, const struct spec *s)
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

