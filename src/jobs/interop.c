/* interop.c - `lab interop`: the NFS interop matrix. Brings up a client
 * and the servers of the interop topology (knfsd on the lab's kernel, knfsd
 * on Debian's own kernel, NFS-Ganesha), runs t100 per server x version x
 * group (the suite map's servers= and groups=), and writes the matrix as
 * matrix.txt, matrix.json and a self-contained matrix.html beside a link to
 * the run (which `lab compare` compares with any other). Every cell that is
 * not a pass keeps its reason. */
#include "jobs/interop.h"
#include "core/matrix.h"
#include "core/suite.h"
#include "jobs/session.h"
#include "util/util.h"
#include "virt/agent.h"
#include "virt/conn.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define INTEROP_SUITE "interop" /* tests/suite.ini: t100, t101 */

/* interop/DATE, -2 ... when another instance's matrix ends this second */
static char *new_dir(void)
{
	char *root = lab_path("interop"), *id = NULL, *dir;

	dir = lab_unique_dir(root, NULL, &id);
	g_free(root);
	g_free(id);
	return dir;
}

/* Every name of ONLY is one of KNOWN; else -1 with a message naming the
 * option and what it takes (before anything comes up). */
static int check_names(const char *opt, char **only, const char *const *known)
{
	for (; only && *only; only++)
		if (!g_strv_contains(known, *only)) {
			char *list = g_strjoinv(", ", (char **)known);

			lab_err("interop: %s: '%s' is none of %s", opt, *only, list);
			g_free(list);
			return -1;
		}
	return 0;
}

/* The interop suite's groups, from the suite map (every test of [suite
 * interop], in order); *peer_groups: those of tests with parts (they need
 * the peer guest). NULL: message printed. */
static char **suite_groups(char ***peer_groups)
{
	char *path = lab_src_path("tests/suite.ini"), *err = NULL, *names[] = { INTEROP_SUITE, NULL };
	struct lab_suite *s = lab_suite_load(path, &err);
	GPtrArray *tests = s ? lab_suite_expand(s, names, &err) : NULL;
	GPtrArray *all = g_ptr_array_new(), *peer = g_ptr_array_new();
	char **out = NULL;

	for (guint i = 0; tests && i < tests->len; i++) {
		const struct lab_test *t = g_ptr_array_index(tests, i);

		for (char **g = t->groups; g && *g; g++) {
			g_ptr_array_add(all, g_strdup(*g));
			if (t->parts)
				g_ptr_array_add(peer, g_strdup(*g));
		}
	}
	g_ptr_array_add(all, NULL);
	g_ptr_array_add(peer, NULL);
	if (all->len > 1)
		out = (char **)g_ptr_array_free(all, FALSE);
	else
		g_strfreev((char **)g_ptr_array_free(all, FALSE));
	*peer_groups = (char **)g_ptr_array_free(peer, FALSE);
	if (!out)
		lab_err("interop: %s", err ? err : "the suite map's [suite interop] has no groups");
	if (tests)
		g_ptr_array_free(tests, TRUE);
	if (s)
		lab_suite_free(s);
	g_free(err);
	g_free(path);
	return out;
}

int lab_interop_check(const struct lab_interop_opts *o)
{
	char **peer = NULL, **groups = suite_groups(&peer);
	int rc = groups && check_names("--vers", o->vers, lab_matrix_versions) == 0 &&
			 check_names("--groups", o->groups, (const char *const *)groups) == 0
		 ? 0 : -1;

	g_strfreev(groups);
	g_strfreev(peer);
	return rc;
}

/* The peer guest is needed: a group of a test with parts will run. */
static bool wants_peer(const struct lab_interop_opts *o)
{
	char **peer = NULL, **groups = suite_groups(&peer);
	bool yes = false;

	for (char **g = peer; g && *g; g++)
		yes |= !o->groups || g_strv_contains((const char *const *)o->groups, *g);
	g_strfreev(groups);
	g_strfreev(peer);
	return yes;
}

/* What each server guest runs, for the matrix's header: its kernel and
 * which NFS server (asked through the agent; a guest that does not answer
 * is left out). */
static GHashTable *software_of(struct lab_session *se, char **servers)
{
	static const char *const ask =
		"printf 'kernel %s, ' \"$(uname -r)\"; "
		"if pgrep -x ganesha.nfsd >/dev/null; then "
		"printf 'NFS-Ganesha %s' \"$(dpkg-query -W -f='${Version}' nfs-ganesha)\"; "
		"else printf 'knfsd (nfs-kernel-server %s)' "
		"\"$(dpkg-query -W -f='${Version}' nfs-kernel-server)\"; fi";
	GHashTable *sw = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);

	for (char **s = servers; s && *s; s++) {
		virDomainPtr d = lab_virt_guest(se->in.conn, *s);
		struct lab_exec_result r = { 0 };

		if (d && lab_agent_sh(d, ask, 30, 0, &r) == 0 && r.exit_code == 0 && r.out)
			g_hash_table_insert(sw, g_strdup(*s), g_strdup(g_strstrip(r.out)));
		lab_exec_result_clear(&r);
		if (d)
			virDomainFree(d);
	}
	return sw;
}

int lab_interop(const struct lab_interop_opts *o)
{
	struct lab_up_opts up = { .topology = o->topology, .accel = "auto",
				  .timeout_s = 900 };
	char *names[] = { INTEROP_SUITE, NULL };
	struct lab_run_opts ro = { .names = names, .only_servers = o->servers,
				   .only_vers = o->vers, .only_groups = o->groups };
	char *servers = o->servers ? g_strjoinv(",", o->servers)
				   : g_strdup("knfsd,knfsd-debian,ganesha");
	bool peer = wants_peer(o);
	char *list = g_strdup_printf("%s,%s%s%s", servers, o->client, peer ? "," : "",
				     peer ? o->peer : "");
	char **only = g_strsplit(list, ",", -1), *run_dir = NULL, *dir = NULL;
	char **server_names = g_strsplit(servers, ",", -1);
	char *client[] = { (char *)o->client, NULL };
	GHashTable *sw = NULL;
	struct lab_session se;
	bool lost;
	int rc;

	up.only = only;
	up.kernel = o->kernel;
	up.kernel_guests = client;
	rc = lab_session_up(&se, &up, false, &lost);
	if (rc == 0) {
		rc = lab_session_run(&se, &ro, &run_dir);
		rc = rc == 130 ? 130 : rc == 0 ? 0 : 1; /* a cell that is not a pass fails */
		if (run_dir) {
			sw = software_of(&se, server_names);
			dir = new_dir();
			if (!dir || lab_matrix_write(dir, run_dir, sw) != 0)
				rc = rc == 130 ? 130 : 1;
		}
	}
	lab_session_end(&se, o->keep);
	if (sw)
		g_hash_table_destroy(sw);
	g_strfreev(only);
	g_strfreev(server_names);
	g_free(list);
	g_free(servers);
	g_free(run_dir);
	g_free(dir);
	return rc;
}
