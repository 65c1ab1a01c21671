/* up.c - `lab up`: a topology's guests on the lab's kernels, on an
 * isolated network, on one host (this machine unless --host says another)
 * with every file in that host's store. Restored from the saved ready
 * state when one matches everything that shaped it (store/saved.h); else
 * booted, waited for, and then saved at the moment all are ready, so the
 * next `lab up` and every restart during `lab run` take seconds. */
#include "guests/up.h"
#include "build/image.h"
#include "build/kernel.h"
#include "build/tests_disk.h"
#include "core/hosts.h"
#include "core/owner.h"
#include "core/topology.h"
#include "guests/instance.h"
#include "guests/plan.h"
#include "guests/ready.h"
#include "store/saved.h"
#include "store/store.h"
#include "util/util.h"
#include "virt/conn.h"
#include "virt/domxml.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct up {
	struct lab_inst *in;
	const struct lab_topology *t;
	const struct lab_up_opts *o;
	struct lab_up_plan plan;
	bool no_save; /* another instance runs on (or saves) the state */
};

/* ---- what goes into state.ini ---- */

/* ROOT and DISKS: the volumes it runs on (its own, or the saved state's
 * while it boots to be saved), for a restart. */
static void record_guest(struct lab_inst *in, const struct lab_plan *p,
			 const char *boot, const char *root, char *const *disks)
{
	char *grp = g_strdup_printf("guest %s", p->g->name);

	g_key_file_set_string(in->state, grp, "domain", p->domain);
	g_key_file_set_string(in->state, grp, "kernel", p->g->kernel);
	g_key_file_set_string(in->state, grp, "kernel-dir", p->kernel_dir);
	/* the shared volumes it uses: `lab cache prune` leaves them */
	g_key_file_set_string(in->state, grp, "kernel-at", p->kernel);
	if (p->initrd)
		g_key_file_set_string(in->state, grp, "initrd-at", p->initrd);
	g_key_file_set_string(in->state, grp, "seed-at", p->seed);
	g_key_file_set_string(in->state, grp, "address", p->g->address);
	g_key_file_set_string(in->state, grp, "role", p->g->role);
	g_key_file_set_string(in->state, grp, "console", p->console);
	g_key_file_set_string(in->state, grp, "console-vol", p->console_vol);
	g_key_file_set_string(in->state, grp, "root", root);
	g_key_file_set_string_list(in->state, grp, "disks", (const char *const *)disks,
				   g_strv_length((char **)disks));
	g_key_file_set_string(in->state, grp, "boot", boot);
	g_key_file_set_int64(in->state, grp, "started", (gint64)time(NULL));
	g_free(grp);
}

/* The domain XML (with the owner tag) is kept so `lab run` can restart a
 * guest from it. */
static int keep_xml(struct lab_inst *in, const struct lab_plan *p, const char *xml)
{
	char *base = g_strdup_printf("%s.xml", p->g->name);
	char *path = lab_inst_file(in, base);
	int rc = lab_write_file(path, xml, -1);

	g_free(base);
	g_free(path);
	return rc;
}

/* The guest's own volumes, recorded before anything creates them; the
 * local copy of its console starts again. */
static int own_volumes(struct lab_inst *in, const struct lab_plan *p,
		       const char *root, char *const *disks)
{
	char *consoles = g_path_get_dirname(p->console);
	GPtrArray *names = g_ptr_array_new();
	int rc = 0;
	guint i;

	lab_mkdir_p(consoles);
	g_free(consoles);
	unlink(p->console);
	g_ptr_array_add(names, p->console_vol);
	g_ptr_array_add(names, p->copy);
	g_ptr_array_add(names, (char *)root);
	for (i = 0; disks[i]; i++)
		g_ptr_array_add(names, disks[i]);
	for (i = 0; rc == 0 && i < names->len; i++) {
		char *path = lab_inst_own(in, g_ptr_array_index(names, i));

		rc = path ? 0 : -1;
		g_free(path);
	}
	g_ptr_array_free(names, TRUE);
	return rc;
}

/* ---- network ---- */

static int create_network(struct lab_inst *in, const char *net)
{
	char *name = lab_inst_name(net);
	char *bridge = lab_bridge_for(name);
	char *owner = lab_owner_xml();
	char *xml = lab_network_xml(name, bridge, owner);
	char *grp = g_strdup_printf("network %s", net);
	virNetworkPtr n;
	int rc = -1;

	/* record first: if lab dies after the create, down still finds it */
	g_key_file_set_string(in->state, grp, "libvirt-network", name);
	g_key_file_set_string(in->state, grp, "bridge", bridge);
	if (lab_inst_save(in) != 0)
		goto out;
	n = virNetworkCreateXML(in->conn, xml);
	if (!n) {
		lab_err("cannot create network %s: %s", name, lab_virt_error());
		goto out;
	}
	virNetworkFree(n);
	rc = 0;
out:
	g_free(name);
	g_free(bridge);
	g_free(xml);
	g_free(owner);
	g_free(grp);
	return rc;
}

/* ---- boot ---- */

/* The disks a guest boots on: its own, or the saved state's while it
 * boots to be saved (NULL-terminated names, g_strfreev). */
static char **boot_disks(struct up *u, const struct lab_plan *p, bool save,
			 char **root)
{
	guint n = g_strv_length(p->disks), i;
	char **d = g_new0(char *, n + 1);

	*root = save ? lab_saved_name(u->plan.key, p->g->name, "-root.qcow2")
		     : g_strdup(p->root);
	for (i = 0; i < n; i++) {
		char *suffix = g_strdup_printf("-disk%u.qcow2", i);

		d[i] = save ? lab_saved_name(u->plan.key, p->g->name, suffix)
			    : g_strdup(p->disks[i]);
		g_free(suffix);
	}
	return d;
}

static int boot_guest(struct up *u, struct lab_plan *p, bool save)
{
	struct lab_inst *in = u->in;
	char *root, **disks = boot_disks(u, p, save, &root);
	char *owner = lab_owner_xml();
	char *xml = lab_plan_xml(in, &u->plan, p, owner, root, disks);
	virDomainPtr d;
	int rc = -1, i;

	record_guest(in, p, "booted", root, disks);
	if (own_volumes(in, p, root, disks) != 0 || keep_xml(in, p, xml) != 0 ||
	    lab_store_qcow2(in->store, root, u->plan.image, 0) != 0)
		goto out;
	for (i = 0; disks[i]; i++)
		if (lab_store_qcow2(in->store, disks[i], NULL, p->g->disks_mib[i]) != 0)
			goto out;
	d = virDomainCreateXML(in->conn, xml, VIR_DOMAIN_NONE);
	if (!d) {
		lab_err("cannot start guest %s: %s", p->g->name, lab_virt_error());
		goto out;
	}
	virDomainFree(d);
	rc = 0;
out:
	g_free(owner);
	g_free(xml);
	g_free(root);
	g_strfreev(disks);
	return rc;
}

/* The last line the guest printed (its console followed from the store),
 * cut to fit a status line. */
static char *last_console_line(struct up *u, const struct lab_plan *p)
{
	char *tail, *line;

	/* Not from another host: libvirt 9.0's client crashed (SIGSEGV in
	 * g_main_loop_quit under virNetClientIOEventLoop) finishing this
	 * download over qemu+libssh while the guest booted, in 2 of 6 remote
	 * first boots here; `lab console` follows it on demand. */
	if (!u->in->store->here)
		return g_strdup("(its console: lab console)");
	lab_store_follow(u->in->store, p->console_vol, p->console);
	tail = lab_tail(p->console, 1);
	line = g_strndup(g_strstrip(tail), 50);
	g_strcanon(line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		   "0123456789 .,:;-_/()[]=+'\"<>@#%", '?');
	g_free(tail);
	return line;
}

/* A first boot takes minutes under TCG: say how it goes, on a terminal
 * every few seconds (one line), elsewhere once a minute. */
static void boot_progress(struct up *u, double t0, guint done)
{
	static double last;
	bool tty = isatty(STDOUT_FILENO);
	double now = lab_now();
	guint i;

	if (now - last < (tty ? 5 : 60))
		return;
	last = now;
	/* the first guest that boots and is not ready yet */
	for (i = 0; i < u->plan.n && (u->plan.ps[i].ready_s > 0 || u->plan.ps[i].started == 0); i++)
		;
	if (i < u->plan.n) {
		char *line = last_console_line(u, &u->plan.ps[i]);

		printf("%sbooting %u guest%s: %.0f s, %u ready; %s: %s%s", tty ? "\r\033[K" : "",
		       u->plan.n, u->plan.n == 1 ? "" : "s", now - t0, done,
		       u->plan.ps[i].g->name, line, tty ? "" : "\n");
		fflush(stdout);
		g_free(line);
	}
}

/* "booted in", and where the time went on the guest's clock (the issue
 * of every first-boot speed-up: kernel, init, agent, first-boot script). */
static void report_booted(struct up *u, const struct lab_plan *p)
{
	char *steps = lab_ready_boot_steps(u->in->conn, p->domain);

	lab_info("guest %-12s booted in %6.1f s%s%s", p->g->name, p->ready_s,
		 steps ? "; guest clock: " : "", steps ? steps : "");
	g_free(steps);
}

/* How many vCPUs may boot at once: the host's CPUs. Under TCG a first boot
 * is CPU-bound, and guests beyond the cores slow every boot more than they
 * overlap: measured on 2 cores, the default topology's 4 guests side by side
 * took 89 s; two at a time, a guest started as soon as another is ready,
 * takes less (README, bench). One guest always boots, however many vCPUs. */
static unsigned boot_slots(virConnectPtr c)
{
	virNodeInfo ni;

	return virNodeGetInfo(c, &ni) == 0 && ni.cpus > 0 ? ni.cpus : 1;
}

/* Start the guests not started yet, in the topology's order, while their
 * vCPUs fit in the free slots. */
static int start_booting(struct up *u, bool save, unsigned slots, unsigned *busy)
{
	guint i;

	for (i = 0; i < u->plan.n && !lab_interrupted; i++) {
		struct lab_plan *p = &u->plan.ps[i];
		unsigned v = (unsigned)p->g->vcpus;

		if (p->started > 0)
			continue;
		if (*busy > 0 && *busy + v > slots)
			return 0;
		if (boot_guest(u, p, save) != 0)
			return -1;
		p->started = lab_now();
		*busy += v;
	}
	return lab_interrupted ? -1 : 0;
}

/* 1 when P is ready now, 0 not yet, -1 failed (said why). */
static int poll_booting(struct up *u, struct lab_plan *p)
{
	int r = lab_ready_poll(u->in->conn, p->domain);

	if (r > 0) {
		p->ready_s = lab_now() - p->started;
		if (isatty(STDOUT_FILENO))
			printf("\r\033[K");
		report_booted(u, p);
		return 1;
	}
	if (r == 0 && lab_now() - p->started <= u->o->timeout_s)
		return 0;
	lab_err(r == LAB_READY_SEED_FAILED
			? "guest %s: its first-boot script (guests/seed/) failed"
		: r < 0 ? "guest %s stopped while booting (panic or crash?)"
			: "guest %s not ready in time (agent or first-boot script)",
		p->g->name);
	lab_ready_show_tail(u->in, p->g->name);
	return -1;
}

static int boot_and_wait(struct up *u, bool save, double t0)
{
	unsigned slots = boot_slots(u->in->conn), busy = 0;
	guint done = 0, i;

	if (start_booting(u, save, slots, &busy) != 0)
		return -1;
	while (done < u->plan.n) {
		if (lab_interrupted) {
			lab_err("interrupted; tearing down");
			return -1;
		}
		for (i = 0; i < u->plan.n; i++) {
			struct lab_plan *p = &u->plan.ps[i];
			int r;

			if (p->ready_s > 0 || p->started == 0)
				continue;
			r = poll_booting(u, p);
			if (r < 0)
				return -1;
			if (r > 0) {
				done++;
				busy -= (unsigned)p->g->vcpus;
				if (start_booting(u, save, slots, &busy) != 0)
					return -1;
			}
		}
		if (done < u->plan.n) {
			boot_progress(u, t0, done);
			usleep(500000);
		}
	}
	return 0;
}

/* ---- restore ---- */

/* One guest's restore, run in a thread of its own: restores read their
 * state files and start QEMU side by side, and each guest's agent is
 * answered (and its clock set) while the others still restore. */
struct restore_job {
	struct up *u;
	struct lab_plan *p;
	struct lab_saved_guest sg;
	char *xml;
	double t0;
	int rc;
};

static gpointer restore_thread(gpointer data)
{
	struct restore_job *j = data;
	struct lab_inst *in = j->u->in;

	j->rc = -1;
	if (lab_saved_restore(in->store, in->conn, j->u->plan.key, &j->sg) != 0)
		return NULL;
	j->p->ready_s = lab_now() - j->t0;
	if (lab_ready_settle(in->conn, j->p->g->name, j->p->domain) != 0)
		return NULL;
	j->p->restored = true;
	j->rc = 0;
	lab_info("guest %-12s restored in %5.1f s, answering after %.1f s",
		 j->p->g->name, j->p->ready_s, lab_now() - j->t0);
	return NULL;
}

static int restore_record(struct up *u, struct restore_job *j, struct lab_plan *p)
{
	char *owner = lab_owner_xml();
	int rc;

	j->u = u;
	j->p = p;
	j->xml = lab_plan_xml(u->in, &u->plan, p, owner, p->root, p->disks);
	j->sg = (struct lab_saved_guest){ p->g->name, p->domain, j->xml, p->root,
					  p->disks, p->copy, p->ready_s };
	record_guest(u->in, p, "restored", p->root, p->disks);
	rc = own_volumes(u->in, p, p->root, p->disks) == 0 &&
	     keep_xml(u->in, p, j->xml) == 0 ? 0 : -1;
	g_free(owner);
	return rc;
}

/* Record every guest first (state.ini and its XML: `lab down` must find
 * them whatever happens next), then restore them all at once. */
static int restore_all(struct up *u)
{
	guint n = u->plan.n, i;
	struct restore_job *jobs = g_new0(struct restore_job, n);
	GThread **threads = g_new0(GThread *, n);
	int rc = 0;

	/* restarts find the state by it, and the cap leaves it alone
	 * (lab_saved_use_text) */
	g_key_file_set_string(u->in->state, "instance", "saved", u->plan.key);
	for (i = 0; i < n && rc == 0; i++)
		rc = restore_record(u, &jobs[i], &u->plan.ps[i]);
	if (rc == 0 && lab_inst_save(u->in) != 0)
		rc = -1;
	for (i = 0; i < n && rc == 0 && !lab_interrupted; i++) {
		jobs[i].t0 = lab_now();
		threads[i] = g_thread_new("restore", restore_thread, &jobs[i]);
	}
	for (i = 0; i < n; i++) {
		if (threads[i])
			g_thread_join(threads[i]);
		else
			jobs[i].rc = -1;
		if (jobs[i].rc != 0)
			rc = -1;
		g_free(jobs[i].xml);
	}
	if (rc == 0)
		lab_saved_touch(u->in->store, u->plan.key);
	g_free(jobs);
	g_free(threads);
	return lab_interrupted ? -1 : rc;
}

/* Stop whatever of the topology runs, keep the network: for a fresh boot
 * after a restore that failed. */
static void stop_guests(struct up *u)
{
	guint i;

	for (i = 0; i < u->plan.n; i++)
		lab_inst_destroy_domain(u->in->conn, u->plan.ps[i].domain);
	g_key_file_remove_key(u->in->state, "instance", "saved", NULL);
}

/* ---- save ---- */

/* After the save the state's volumes are shared, no longer the instance's:
 * `lab down` leaves them. */
static int disown_saved(struct up *u, const struct lab_plan *p)
{
	char *root, **disks = boot_disks(u, p, true, &root);
	char *claim = lab_saved_name(u->plan.key, NULL, "-claim");
	int rc = lab_inst_disown(u->in, root), i;

	if (rc == 0)
		rc = lab_inst_disown(u->in, claim);
	g_free(claim);

	for (i = 0; rc == 0 && disks[i]; i++)
		rc = lab_inst_disown(u->in, disks[i]);
	g_free(root);
	g_strfreev(disks);
	return rc;
}

static int save_all(struct up *u)
{
	guint n = u->plan.n, i;
	struct lab_saved_guest *sg = g_new0(struct lab_saved_guest, n);
	char **roots = g_new0(char *, n + 1), ***disks = g_new0(char **, n);
	double t0 = lab_now();
	int rc;

	for (i = 0; i < n; i++) {
		struct lab_plan *p = &u->plan.ps[i];

		disks[i] = boot_disks(u, p, true, &roots[i]);
		sg[i] = (struct lab_saved_guest){ p->g->name, p->domain, NULL, roots[i],
						  disks[i], NULL, p->ready_s };
	}
	rc = lab_saved_save(u->in->store, u->in->conn, u->plan.key, u->t->name, sg, n);
	for (i = 0; rc == 0 && i < n; i++)
		rc = disown_saved(u, &u->plan.ps[i]);
	if (rc == 0) {
		lab_info("saved the ready state of %u guest%s in %.1f s on host %s",
			 n, n == 1 ? "" : "s", lab_now() - t0, u->in->store->host);
		lab_saved_enforce_cap(u->in->store, u->plan.key, lab_inst_any_uses);
	}
	for (i = 0; i < n; i++)
		g_strfreev(disks[i]);
	g_strfreev(roots);
	g_free(disks);
	g_free(sg);
	return rc;
}

/* ---- the whole bring-up ---- */

/* KERNEL for the guests named in ONLY (NULL: every guest). */
static void set_kernel(struct lab_topology *t, const char *kernel, char **only)
{
	if (!only) {
		lab_topology_set_kernel(t, kernel);
		return;
	}
	for (guint i = 0; i < t->guests->len; i++) {
		struct lab_guest *g = g_ptr_array_index(t->guests, i);

		if (g_strv_contains((const char *const *)only, g->name)) {
			g_free(g->kernel);
			g->kernel = g_strdup(kernel);
		}
	}
}

/* Discard the saved state for WHY unless another instance runs on it;
 * then it stays and this bring-up does not save. */
static void discard_unless_used(struct up *u, const char *why)
{
	char *text = lab_saved_use_text(u->plan.key);

	if (lab_inst_any_uses(text)) {
		lab_info("the saved ready state (%s) is in use by another instance: kept; "
			 "booting without saving", why);
		u->no_save = true;
	} else {
		lab_saved_discard(u->in->store, u->plan.key, why);
	}
	g_free(text);
}

/* Whether a saved state can be restored: false when none, refused
 * (--fresh) or stale (then removed). */
static bool usable_saved(struct up *u)
{
	char **names = g_new0(char *, u->plan.n + 1);
	bool absent;
	char *why;
	guint i;

	if (u->o->fresh) {
		discard_unless_used(u, "lab up --fresh");
		g_free(names);
		return false;
	}
	for (i = 0; i < u->plan.n; i++)
		names[i] = (char *)u->plan.ps[i].g->name;
	why = lab_saved_check(u->in->store, u->plan.key, names, &absent);
	if (why && !absent)
		discard_unless_used(u, why);
	g_free(names);
	g_free(why);
	return why == NULL;
}

/* Whether this bring-up may boot to save: it holds the state's claim
 * (store/saved.h). Another instance booting to save the same state keeps
 * its claim and this one boots without saving; a claim no instance names
 * is what a killed bring-up left, and goes with its volumes. */
static bool claim_save(struct up *u)
{
	char *claim = lab_saved_name(u->plan.key, NULL, "-claim");
	char *at = NULL;
	bool ok = false;

	if (lab_store_has(u->in->store, claim)) {
		if (lab_inst_any_uses(claim)) {
			lab_info("another instance boots to save this ready state; "
				 "booting without saving");
			goto out;
		}
		lab_saved_discard(u->in->store, u->plan.key,
				  "a bring-up that never finished left it");
	}
	if (!(at = lab_inst_own(u->in, claim)))
		goto out;
	if (lab_store_claim(u->in->store, claim) == 0)
		ok = true;
	else
		lab_inst_disown(u->in, claim); /* another instance was first */
out:
	g_free(at);
	g_free(claim);
	return ok;
}

static int boot_all(struct up *u, bool save)
{
	double t0 = lab_now();
	guint i;

	save = save && !u->no_save && lab_saved_cap_mib() != 0 && claim_save(u);
	lab_phase_begin("boot guests");
	for (i = 0; i < u->plan.n; i++)
		u->plan.ps[i].started = u->plan.ps[i].ready_s = 0;
	if (boot_and_wait(u, save, t0) != 0)
		return -1;
	if (!save)
		return 0;
	lab_phase_begin("save ready state");
	if (save_all(u) != 0) {
		lab_err("could not save the ready state; the guests run on as booted");
		return lab_interrupted ? -1 : 0;
	}
	/* saving stopped the guests: they go on from what was just saved */
	lab_phase_begin("restore ready state");
	if (restore_all(u) == 0)
		return 0;
	if (lab_interrupted)
		return -1;
	lab_err("restoring what was just saved failed; booting once more without saving");
	lab_saved_discard(u->in->store, u->plan.key, "its first restore failed");
	stop_guests(u);
	return boot_all(u, false);
}

static void record_instance(struct up *u, const char *tests_iso)
{
	GKeyFile *st = u->in->state;

	g_key_file_set_string(st, "instance", "topology", u->t->path);
	g_key_file_set_string(st, "instance", "topology-name", u->t->name);
	g_key_file_set_string(st, "instance", "domain-type", u->plan.type);
	g_key_file_set_string(st, "instance", "image", u->plan.image);
	g_key_file_set_string(st, "instance", "saved-key", u->plan.key);
	if (tests_iso)
		g_key_file_set_string(st, "instance", "tests-iso", tests_iso);
	g_key_file_set_int64(st, "instance", "started", (gint64)time(NULL));
}

static int bring_up(struct up *u)
{
	guint i;

	lab_info("bringing up topology %s: %u guests on host %s, domain type %s%s",
		 u->t->name, u->plan.n, u->in->store->host, u->plan.type,
		 strcmp(u->plan.type, "qemu") == 0 ? " (TCG: no hardware KVM here)" : "");
	lab_phase_begin("network");
	for (i = 0; i < u->t->networks->len; i++) {
		struct lab_network *net = g_ptr_array_index(u->t->networks, i);

		if (lab_interrupted || create_network(u->in, net->name) != 0)
			return -1;
	}
	if (usable_saved(u)) {
		lab_phase_begin("restore ready state");
		if (restore_all(u) == 0)
			return 0;
		if (lab_interrupted)
			return -1;
		lab_saved_discard(u->in->store, u->plan.key, "restoring it failed (see above)");
		lab_info("booting fresh instead");
		stop_guests(u);
	}
	return boot_all(u, true);
}

static int up_instance(struct up *u, const struct lab_host *host,
		       const char *image, const char *tests_iso)
{
	struct lab_inst *in = u->in;

	if (lab_inst_open(in, true) != 0)
		return 1;
	if (lab_inst_is_up(in)) {
		lab_err("instance '%s' is already up (%s): run `lab down` first",
			lab_instance(), in->state_path);
		return 1;
	}
	lab_phase_begin("store");
	if (lab_inst_place(in, host, u->o->hosts_file) != 0) {
		unlink(in->state_path); /* nothing was created yet */
		return 1;
	}
	if (lab_inst_sweep(in->conn) != 0 ||
	    lab_plan_up(in, u->t, lab_virt_domain_type(u->o->accel), image,
			tests_iso, &u->plan) != 0)
		goto fail;
	record_instance(u, tests_iso);
	if (bring_up(u) == 0) {
		lab_inst_save(in);
		lab_phase_end();
		return 0;
	}
fail:
	if (u->o->keep && !lab_interrupted) {
		lab_inst_save(in);
		lab_err("--keep: leaving the guests up for inspection; `lab down` removes them");
	} else if (lab_inst_teardown(in) == 0) {
		lab_info("tore down everything this `lab up` created");
	}
	return 1;
}

/* ---- what is checked before anything is created ---- */

static int check_kernels(struct lab_topology *t)
{
	guint i;

	for (i = 0; i < t->guests->len; i++) {
		struct lab_guest *g = g_ptr_array_index(t->guests, i);
		char *dir = lab_kernel_dir(LAB_REVIEW_DEFAULT, g->kernel);

		if (!dir)
			return -1;
		g_free(dir);
	}
	return 0;
}

/* Leave out every guest not named in ONLY (for runs that need a part of a
 * topology: one seed's guests on an isolated kernel). */
static int keep_only(struct lab_topology *t, char **only)
{
	guint i;
	char **n;

	for (n = only; *n; n++)
		if (!lab_topology_guest(t, *n)) {
			lab_err("topology %s has no guest '%s'", t->name, *n);
			return -1;
		}
	for (i = t->guests->len; i-- > 0;) {
		struct lab_guest *g = g_ptr_array_index(t->guests, i);

		if (!g_strv_contains((const char *const *)only, g->name))
			g_ptr_array_remove_index(t->guests, i);
	}
	return 0;
}

/* The host of --host NAME (else `local`), checked against hosts.ini
 * before anything is built or created. QEMU on this machine opens the
 * store's files under $LAB_HOME: every directory above must let it. */
static const struct lab_host *host_of(const struct lab_up_opts *o,
				      struct lab_hosts *hosts)
{
	const char *name = o->host ? o->host : "local";
	const struct lab_host *h = lab_hosts_find(hosts, name);
	char *why;

	if (!h) {
		lab_err("up: no host '%s' in %s (`lab hosts` lists them)", name,
			hosts->path);
		return NULL;
	}
	if (strstr(h->uri, ":///") && (why = lab_home_unreachable(h->store))) {
		lab_err("%s", why);
		g_free(why);
		return NULL;
	}
	return h;
}

/* Order matters: the topology and the host are checked before anything is
 * built or created (a bad file is exit 2 on an empty cache too), then the
 * kernels and the image must exist, then the tests disk is built. */
int lab_up(const struct lab_up_opts *o)
{
	struct lab_topology *t = lab_topology_open(o->topology);
	struct lab_inst in = { .lock_fd = -1 };
	struct up u = { .in = &in, .o = o, .t = t };
	struct lab_hosts *hosts = NULL;
	const struct lab_host *host;
	char *image = NULL, *iso = NULL;
	int rc = 2;

	if (!t || !(hosts = lab_hosts_open(o->hosts_file)) || !(host = host_of(o, hosts)))
		goto out;
	if (o->kernel)
		set_kernel(t, o->kernel, o->kernel_guests);
	if (o->only && keep_only(t, o->only) != 0)
		goto out;
	rc = 1;
	if (check_kernels(t) != 0 || !(image = lab_image_path()))
		goto out;
	if (!o->tests_iso) {
		iso = lab_tests_iso();
		if (!iso)
			goto out;
	}
	rc = up_instance(&u, host, image, o->tests_iso ? o->tests_iso : iso);
out:
	lab_plan_clear(&u.plan);
	lab_inst_close(&in);
	lab_topology_free(t);
	lab_hosts_free(hosts);
	g_free(image);
	g_free(iso);
	return rc;
}
