/* up.c - `lab up`: a topology's guests on the lab's kernels, on an
 * isolated network. Restored from the saved ready state when one matches
 * everything that shaped it (saved.h); else booted, waited for, and then
 * saved at the moment all are ready, so the next `lab up` and every restart
 * during `lab run` take seconds. Also that restart. */
#include "guests/up.h"
#include "virt/agent.h"
#include "virt/domxml.h"
#include "build/image.h"
#include "guests/instance.h"
#include "build/kernel.h"
#include "core/hosts.h"
#include "core/owner.h"
#include "store/place.h"
#include "store/place_saved.h"
#include "store/saved.h"
#include "core/suite.h"
#include "build/tests_disk.h"
#include "core/topology.h"
#include "util/util.h"
#include "virt/virt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_READY_TIMEOUT_S 600
#define RESTORED_ANSWER_S 30 /* a restored guest answers the agent at once */

/* One guest of the topology, before anything exists. */
struct plan {
	const struct lab_guest *g;
	char *domain;      /* libvirt name */
	char *kernel_dir;
	char *kernel;      /* bzImage, or Debian's vmlinuz */
	char *initrd;      /* Debian's initrd, or NULL */
	char *cmdline;
	char *network;     /* libvirt name */
	char *mac;
	char *tests_iso;   /* the instance's link to the tests disk, or NULL */
	char *user_data;
	char *meta_data;
	char *xml;         /* without the owner tag: part of the saved key */
	char *seed_at;     /* on another host: the seed's volume (f.seed is the
			    * local file it is uploaded from) */
	char *console_at;  /* on another host: the console log's volume
			    * (f.console is the local copy fetched from it) */
	struct lab_guest_files f;
	char *alt_root;        /* on another host, while it boots to be saved: */
	GPtrArray *alt_scratch;/* its own disks (f holds the saved state's) */
	double ready_s;
	bool restored;
};

static void plan_clear(struct plan *p)
{
	g_free(p->domain);
	g_free(p->kernel_dir);
	g_free(p->kernel);
	g_free(p->initrd);
	g_free(p->cmdline);
	g_free(p->network);
	g_free(p->mac);
	g_free(p->tests_iso);
	g_free(p->user_data);
	g_free(p->meta_data);
	g_free(p->xml);
	g_free(p->seed_at);
	g_free(p->console_at);
	g_free(p->f.overlay);
	g_free(p->f.seed);
	g_free(p->f.console);
	if (p->f.scratch)
		g_ptr_array_free(p->f.scratch, TRUE);
	g_free(p->alt_root);
	if (p->alt_scratch)
		g_ptr_array_free(p->alt_scratch, TRUE);
}

static char *plan_xml(const struct plan *p, const char *type, const char *owner)
{
	struct lab_domain_spec s;
	int i;

	memset(&s, 0, sizeof(s));
	s.name = p->domain;
	s.type = type;
	s.memory_mib = p->g->memory_mib;
	s.vcpus = p->g->vcpus;
	s.kernel = p->kernel;
	s.initrd = p->initrd;
	s.cmdline = p->cmdline;
	s.root_disk = p->f.overlay;
	s.seed_iso = p->seed_at ? p->seed_at : p->f.seed;
	s.tests_iso = p->tests_iso;
	s.scratch_disks = (const char *const *)p->f.scratch->pdata;
	s.network = p->network;
	s.mac = p->mac;
	s.console_log = p->console_at ? p->console_at : p->f.console;
	s.owner = owner;
	for (i = 0; p->g->devices[i]; i++)
		s.intel_hda |= strcmp(p->g->devices[i], "intel-hda") == 0;
	return lab_domain_xml(&s);
}

/* On another host the kernel files and the tests disk are store volumes,
 * the instance's own disks and logs are volumes named after it. */
static int place_guest(struct lab_inst *in, struct plan *p, const char *tests_at)
{
	struct lab_place *pl = in->place;
	char *own, *v;
	guint i;

	v = lab_place_shared(pl, "kernel", p->kernel);
	g_free(p->kernel);
	if (!(p->kernel = v))
		return -1;
	if (p->initrd) {
		v = lab_place_shared(pl, "kernel", p->initrd);
		g_free(p->initrd);
		if (!(p->initrd = v))
			return -1;
	}
	g_free(p->tests_iso);
	p->tests_iso = g_strdup(tests_at);
	own = g_strdup_printf("%s-root.qcow2", p->domain);
	g_free(p->f.overlay);
	p->f.overlay = lab_place_own(pl, in, own);
	g_free(own);
	own = g_strdup_printf("%s-seed.iso", p->domain);
	p->seed_at = lab_place_own(pl, in, own);
	g_free(own);
	own = g_strdup_printf("%s-console.log", p->domain);
	p->console_at = lab_place_own(pl, in, own);
	g_free(own);
	for (i = 0; p->g->disks_mib[i]; i++) {
		own = g_strdup_printf("%s-disk%u.qcow2", p->domain, i);
		g_free(p->f.scratch->pdata[i]);
		p->f.scratch->pdata[i] = lab_place_own(pl, in, own);
		g_free(own);
		if (!p->f.scratch->pdata[i])
			return -1;
	}
	return p->f.overlay && p->seed_at && p->console_at ? 0 : -1;
}

static int plan_guest(struct lab_inst *in, const struct lab_guest *g,
		      const char *type, const char *tests_at, struct plan *p)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->g = g;
	if (!(p->kernel_dir = lab_kernel_dir(LAB_REVIEW_DEFAULT, g->kernel)))
		return -1;
	p->domain = lab_inst_name(g->name);
	p->kernel = g_build_filename(p->kernel_dir, "bzImage", NULL);
	if (!lab_exists(p->kernel)) { /* Debian's own kernel: vmlinuz + initrd */
		g_free(p->kernel);
		p->kernel = g_build_filename(p->kernel_dir, "vmlinuz", NULL);
		p->initrd = g_build_filename(p->kernel_dir, "initrd.img", NULL);
	}
	p->cmdline = lab_guest_cmdline(g->cmdline);
	p->network = lab_inst_name(g->network);
	p->mac = lab_mac_for(p->domain);
	p->tests_iso = tests_at ? lab_inst_file(in, "tests.iso") : NULL;
	p->user_data = lab_seed_user_data(g);
	p->meta_data = lab_seed_meta_data(g);
	p->f.overlay = g_strdup_printf("%s/%s-root.qcow2", in->dir, g->name);
	p->f.seed = g_strdup_printf("%s/%s-seed.iso", in->dir, g->name);
	p->f.console = g_strdup_printf("%s/consoles/%s.log", in->dir, g->name);
	p->f.scratch = g_ptr_array_new_with_free_func(g_free);
	for (i = 0; g->disks_mib[i]; i++)
		g_ptr_array_add(p->f.scratch, g_strdup_printf("%s/%s-disk%d.qcow2",
							      in->dir, g->name, i));
	g_ptr_array_add(p->f.scratch, NULL);
	if (!p->user_data)
		return -1;
	if (in->place && place_guest(in, p, tests_at) != 0)
		return -1;
	p->xml = plan_xml(p, type, NULL);
	return 0;
}

/* ---- what goes into state.ini ---- */

static void record_guest(struct lab_inst *in, const struct plan *p,
			 const char *boot)
{
	char *grp = g_strdup_printf("guest %s", p->g->name);

	g_key_file_set_string(in->state, grp, "domain", p->domain);
	g_key_file_set_string(in->state, grp, "kernel", p->g->kernel);
	g_key_file_set_string(in->state, grp, "kernel-dir", p->kernel_dir);
	g_key_file_set_string(in->state, grp, "address", p->g->address);
	g_key_file_set_string(in->state, grp, "role", p->g->role);
	g_key_file_set_string(in->state, grp, "console", p->f.console);
	if (p->console_at)
		g_key_file_set_string(in->state, grp, "console-at", p->console_at);
	g_key_file_set_string(in->state, grp, "overlay", p->f.overlay);
	g_key_file_set_string(in->state, grp, "seed", p->f.seed);
	g_key_file_set_string(in->state, grp, "boot", boot);
	g_key_file_set_integer(in->state, grp, "scratch",
			       (int)p->f.scratch->len - 1);
	g_key_file_set_int64(in->state, grp, "started", (gint64)time(NULL));
	g_free(grp);
}

/* The domain XML (with the owner tag) is kept so `lab run` can restart a
 * guest from it. */
static char *domain_xml_path(const char *dir, const char *guest)
{
	return g_strdup_printf("%s/%s.xml", dir, guest);
}

/* ---- network and tests disk ---- */

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

/* The domains name <instance>/tests.iso, a hard link to the current tests
 * disk: a restored guest gets today's tests under yesterday's path. */
static int link_tests_iso(struct lab_inst *in, const char *iso)
{
	char *dst = lab_inst_file(in, "tests.iso");
	int rc = 0;

	unlink(dst);
	if (link(iso, dst) != 0 && symlink(iso, dst) != 0) {
		lab_err("cannot link %s to %s: %s", dst, iso, strerror(errno));
		rc = -1;
	}
	g_free(dst);
	return rc;
}

/* ---- boot ---- */

static int make_remote_files(struct lab_place *pl, const struct plan *p,
			     const char *image)
{
	int i;

	if (lab_place_qcow2(pl, p->f.overlay, image, 0) != 0 ||
	    lab_seed_write(p->f.seed, p->user_data, p->meta_data) != 0 ||
	    lab_place_upload(pl, p->f.seed, p->seed_at) != 0)
		return -1;
	for (i = 0; p->g->disks_mib[i]; i++)
		if (lab_place_qcow2(pl, g_ptr_array_index(p->f.scratch, i), NULL,
				    p->g->disks_mib[i]) != 0)
			return -1;
	return 0;
}

static int make_boot_files(struct lab_inst *in, const struct plan *p,
			   const char *image)
{
	char *consoles = g_path_get_dirname(p->f.console);
	int i;

	lab_mkdir_p(consoles);
	g_free(consoles);
	unlink(p->f.console);
	if (in->place)
		return make_remote_files(in->place, p, image);
	if (lab_qcow2_create(p->f.overlay, image, 0) != 0 ||
	    lab_seed_write(p->f.seed, p->user_data, p->meta_data) != 0)
		return -1;
	for (i = 0; p->g->disks_mib[i]; i++)
		if (lab_qcow2_create(g_ptr_array_index(p->f.scratch, i), NULL,
				     p->g->disks_mib[i]) != 0)
			return -1;
	return 0;
}

static int boot_guest(struct lab_inst *in, struct plan *p, const char *image,
		      const char *type)
{
	char *owner = lab_owner_xml();
	char *xml = plan_xml(p, type, owner);
	char *xmlp = domain_xml_path(in->dir, p->g->name);
	virDomainPtr d;
	int rc = -1;

	record_guest(in, p, "booted");
	if (lab_inst_save(in) != 0 || lab_write_file(xmlp, xml, -1) != 0 ||
	    make_boot_files(in, p, image) != 0)
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
	g_free(xmlp);
	return rc;
}

static void show_console_tail(const char *guest, const char *console)
{
	char *tail = lab_tail(console, 15);

	lab_err("last console lines of %s (%s):\n%s", guest, console, tail);
	g_free(tail);
}

/* A guest is ready when the agent answers and cloud-init has finished. */
static bool guest_ready(virDomainPtr d)
{
	struct lab_exec_result r;
	bool ready;

	if (!lab_agent_ping(d, 2))
		return false;
	if (lab_agent_sh(d, "test -e /var/lib/cloud/instance/boot-finished",
			 10, 0, &r) != 0)
		return false;
	ready = r.exit_code == 0;
	lab_exec_result_clear(&r);
	return ready;
}

/* 1 ready, 0 not yet, -1 stopped (panic?) */
static int poll_ready(virConnectPtr c, const char *domain)
{
	virDomainPtr d = virDomainLookupByName(c, domain);
	int state = -1, reason, rc;

	if (d)
		virDomainGetState(d, &state, &reason, 0);
	rc = state != VIR_DOMAIN_RUNNING ? -1 : guest_ready(d) ? 1 : 0;
	if (d)
		virDomainFree(d);
	return rc;
}

static int wait_booted(struct lab_inst *in, struct plan *ps, guint n,
		       double t0, int timeout_s)
{
	guint done = 0, i;

	while (done < n) {
		if (lab_interrupted) {
			lab_err("interrupted; tearing down");
			return -1;
		}
		for (i = 0; i < n; i++) {
			struct plan *p = &ps[i];
			int r;

			if (p->ready_s > 0)
				continue;
			r = poll_ready(in->conn, p->domain);
			if (r > 0) {
				p->ready_s = lab_now() - t0;
				done++;
				lab_info("guest %-12s booted in %6.1f s", p->g->name,
					 p->ready_s);
			} else if (r < 0 || lab_now() - t0 > timeout_s) {
				lab_err(r < 0 ? "guest %s stopped while booting (panic or crash?)"
					      : "guest %s not ready in time (agent or cloud-init)",
					p->g->name);
				if (in->place)
					lab_place_fetch(in->place, p->console_at,
							p->f.console);
				show_console_tail(p->g->name, p->f.console);
				return -1;
			}
		}
		if (done < n)
			usleep(1000000);
	}
	return 0;
}

/* ---- restore ---- */

/* A restored guest's clock stands where it was saved: set it from the
 * host through the agent, which also proves the guest answers. */
static int settle_restored(virConnectPtr c, const char *guest,
			   const char *domain)
{
	virDomainPtr d = virDomainLookupByName(c, domain);
	double t0 = lab_now();
	bool answered = false;
	int rc = -1;

	while (d && !answered && lab_now() - t0 < RESTORED_ANSWER_S &&
	       !lab_interrupted)
		answered = lab_agent_ping(d, 5);
	if (!answered) {
		lab_err("restored guest %s does not answer its agent", guest);
	} else {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		if (virDomainSetTime(d, now.tv_sec, (unsigned int)now.tv_nsec, 0) != 0)
			lab_err("cannot set the clock of restored guest %s: %s",
				guest, lab_virt_error());
		else
			rc = 0;
	}
	if (d)
		virDomainFree(d);
	return rc;
}

static void saved_guest_of(struct plan *p, const char *xml,
			   struct lab_saved_guest *sg)
{
	sg->guest = p->g->name;
	sg->domain = p->domain;
	sg->xml = xml;
	sg->f = &p->f;
	sg->boot_s = p->ready_s;
}

/* One guest's restore, run in a thread of its own: restores read their
 * state files and start QEMU side by side, and each guest's agent is
 * answered (and its clock set) while the others still restore. */
struct restore_job {
	virConnectPtr conn;
	struct lab_place *place; /* NULL: from DIR, else from the store's KEY */
	const char *dir, *key;
	struct plan *p;
	struct lab_saved_guest sg;
	char *xml;
	double t0;
	int rc;
};

/* On another host: the seed goes there again (the instance's own volume),
 * then the saved state's volumes get the instance's qcow2 on top. */
static int restore_placed(struct restore_job *j)
{
	struct plan *p = j->p;

	if (lab_seed_write(p->f.seed, p->user_data, p->meta_data) != 0 ||
	    lab_place_upload(j->place, p->f.seed, p->seed_at) != 0)
		return -1;
	return lab_place_saved_restore(j->place, j->conn, j->key, &j->sg);
}

static gpointer restore_thread(gpointer data)
{
	struct restore_job *j = data;

	j->rc = -1;
	if ((j->place ? restore_placed(j) : lab_saved_restore(j->conn, j->dir, &j->sg)) != 0)
		return NULL;
	j->p->ready_s = lab_now() - j->t0;
	if (settle_restored(j->conn, j->p->g->name, j->p->domain) != 0)
		return NULL;
	j->p->restored = true;
	j->rc = 0;
	lab_info("guest %-12s restored in %5.1f s, answering after %.1f s",
		 j->p->g->name, j->p->ready_s, lab_now() - j->t0);
	return NULL;
}

/* Where restarts find the state: a local directory, or the store's key. */
static void record_saved(struct lab_inst *in, const char *dir, const char *key)
{
	if (in->place)
		g_key_file_set_string(in->state, "instance", "saved-in-store", key);
	else
		g_key_file_set_string(in->state, "instance", "saved-dir", dir);
}

/* Record every guest first (state.ini and its XML: `lab down` must find
 * them whatever happens next), then restore them all at once. */
static int restore_all(struct lab_inst *in, struct plan *ps, guint n,
		       const char *dir, const char *key, const char *type)
{
	struct restore_job *jobs = g_new0(struct restore_job, n);
	GThread **threads = g_new0(GThread *, n);
	int rc = 0;
	guint i;

	record_saved(in, dir, key);
	for (i = 0; i < n && rc == 0; i++) {
		char *owner = lab_owner_xml();
		char *xmlp = domain_xml_path(in->dir, ps[i].g->name);

		jobs[i].conn = in->conn;
		jobs[i].place = in->place;
		jobs[i].dir = dir;
		jobs[i].key = key;
		jobs[i].p = &ps[i];
		jobs[i].xml = plan_xml(&ps[i], type, owner);
		saved_guest_of(&ps[i], jobs[i].xml, &jobs[i].sg);
		record_guest(in, &ps[i], "restored");
		unlink(ps[i].f.console);
		if (lab_write_file(xmlp, jobs[i].xml, -1) != 0)
			rc = -1;
		g_free(owner);
		g_free(xmlp);
	}
	if (rc == 0 && lab_inst_save(in) != 0)
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
	g_free(jobs);
	g_free(threads);
	return lab_interrupted ? -1 : rc;
}

/* Stop whatever of the topology runs, keep the network: for a fresh boot
 * after a restore that failed. */
static void stop_guests(struct lab_inst *in, struct plan *ps, guint n)
{
	guint i;

	for (i = 0; i < n; i++)
		lab_inst_destroy_domain(in->conn, ps[i].domain);
	g_key_file_remove_key(in->state, "instance", "saved-dir", NULL);
	g_key_file_remove_key(in->state, "instance", "saved-in-store", NULL);
}

/* ---- save ---- */

/* On another host a guest that is to be saved boots on the saved state's
 * own volumes (store.h: the instance's until the state is complete). The
 * swap puts them in f and keeps the guest's own disks aside, or back. */
static int swap_disks(struct lab_inst *in, struct plan *p, const char *key)
{
	char *t;
	guint i;

	if (!p->alt_root) {
		char *name = lab_place_saved_name(key, p->g->name, "-root.qcow2");

		p->alt_root = lab_place_own(in->place, in, name);
		g_free(name);
		p->alt_scratch = g_ptr_array_new_with_free_func(g_free);
		for (i = 0; p->g->disks_mib[i]; i++) {
			char *suffix = g_strdup_printf("-disk%u.qcow2", i);

			name = lab_place_saved_name(key, p->g->name, suffix);
			g_ptr_array_add(p->alt_scratch, lab_place_own(in->place, in, name));
			g_free(name);
			g_free(suffix);
		}
		g_ptr_array_add(p->alt_scratch, NULL);
		if (!p->alt_root)
			return -1;
	}
	t = p->f.overlay;
	p->f.overlay = p->alt_root;
	p->alt_root = t;
	for (i = 0; p->g->disks_mib[i]; i++) {
		t = p->f.scratch->pdata[i];
		p->f.scratch->pdata[i] = p->alt_scratch->pdata[i];
		p->alt_scratch->pdata[i] = t;
	}
	return 0;
}

/* After the save the state's volumes are shared, no longer the instance's
 * (alt_* hold their paths once the swap went back). */
static int disown_saved(struct lab_inst *in, struct plan *p)
{
	char *name = g_path_get_basename(p->alt_root);
	int rc = lab_place_disown(in, name);
	guint i;

	g_free(name);
	for (i = 0; rc == 0 && p->g->disks_mib[i]; i++) {
		name = g_path_get_basename(p->alt_scratch->pdata[i]);
		rc = lab_place_disown(in, name);
		g_free(name);
	}
	return rc;
}

static int save_placed(struct lab_inst *in, struct plan *ps, guint n,
		       const char *key, struct lab_saved_guest *sg)
{
	guint i;

	if (lab_place_saved_save(in->place, in->conn, key, sg, n) != 0)
		return -1;
	for (i = 0; i < n; i++)
		if (swap_disks(in, &ps[i], key) != 0 || disown_saved(in, &ps[i]) != 0)
			return -1;
	return 0;
}

static int save_all(struct lab_inst *in, struct plan *ps, guint n,
		    const char *dir, const char *key, const char *topology,
		    const char *type)
{
	struct lab_saved_guest *sg = g_new0(struct lab_saved_guest, n);
	char **xml = g_new0(char *, n + 1);
	double t0 = lab_now();
	guint i;
	int rc;

	for (i = 0; i < n; i++) {
		char *owner = lab_owner_xml();

		xml[i] = plan_xml(&ps[i], type, owner);
		saved_guest_of(&ps[i], xml[i], &sg[i]);
		g_free(owner);
	}
	if (in->place)
		rc = save_placed(in, ps, n, key, sg);
	else
		rc = lab_saved_save(in->conn, dir, topology, sg, n);
	if (rc == 0 && in->place)
		lab_info("saved the ready state of %u guest%s in %.1f s on host %s",
			 n, n == 1 ? "" : "s", lab_now() - t0, in->place->host);
	else if (rc == 0)
		lab_info("saved the ready state of %u guest%s in %.1f s (%.0f MiB): %s",
			 n, n == 1 ? "" : "s", lab_now() - t0,
			 (double)lab_du(dir) / (1 << 20), dir);
	g_strfreev(xml);
	g_free(sg);
	return rc;
}

/* ---- the whole bring-up ---- */

struct up {
	struct lab_inst *in;
	struct lab_topology *t;
	const struct lab_up_opts *o;
	const char *image; /* the base image, on the guests' host */
	const char *type;
	char *tests_at;    /* the tests disk, on the guests' host */
	char *image_at;    /* the base image's volume on another host */
	const struct lab_host *host; /* NULL: the local default */
	struct plan *ps;
	guint n;
	char *key;
	char *saved;       /* $LAB_HOME/saved/KEY */
};

static char *networks_of(struct lab_topology *t)
{
	GString *s = g_string_new("");
	guint i;

	for (i = 0; i < t->networks->len; i++)
		g_string_append_printf(s, "%s;",
			((struct lab_network *)g_ptr_array_index(t->networks, i))->name);
	return g_string_free(s, FALSE);
}

static int plan_all(struct up *u)
{
	struct lab_saved_input *inputs;
	char *versions, *nets;
	guint i;

	u->n = u->t->guests->len;
	u->ps = g_new0(struct plan, u->n);
	for (i = 0; i < u->n; i++)
		if (plan_guest(u->in, g_ptr_array_index(u->t->guests, i), u->type,
			       u->tests_at, &u->ps[i]) != 0)
			return -1;
	inputs = g_new0(struct lab_saved_input, u->n);
	for (i = 0; i < u->n; i++) {
		inputs[i].guest = u->ps[i].g->name;
		inputs[i].domain_xml = u->ps[i].xml;
		inputs[i].user_data = u->ps[i].user_data;
		inputs[i].meta_data = u->ps[i].meta_data;
	}
	versions = lab_saved_versions(u->in->conn, u->type);
	nets = networks_of(u->t);
	u->key = lab_saved_key(versions, u->image, nets, inputs, u->n);
	u->saved = lab_saved_dir(u->key);
	g_free(versions);
	g_free(nets);
	g_free(inputs);
	return 0;
}

static void discard_saved(struct up *u, const char *why)
{
	if (u->in->place)
		lab_place_saved_discard(u->in->place, u->key, why);
	else
		lab_saved_discard(u->saved, why);
}

/* Whether a saved state can be restored: false when none, refused
 * (--fresh) or stale (then removed). */
static bool usable_saved(struct up *u)
{
	char **names = g_new0(char *, u->n + 1);
	bool absent;
	char *why;
	guint i;

	if (u->o->fresh) {
		discard_saved(u, "lab up --fresh");
		g_free(names);
		return false;
	}
	for (i = 0; i < u->n; i++)
		names[i] = (char *)u->ps[i].g->name;
	if (u->in->place)
		why = lab_place_saved_check(u->in->place, u->key, names, &absent);
	else
		why = lab_saved_check(u->saved, names, &absent);
	if (why && !absent)
		discard_saved(u, why);
	g_free(names);
	g_free(why);
	return why == NULL;
}

static int boot_all(struct up *u, bool save)
{
	double t0 = lab_now();
	guint i;

	save = save && lab_saved_cap_mib() != 0;
	lab_phase_begin("boot guests");
	for (i = 0; save && u->in->place && i < u->n; i++)
		if (!u->ps[i].alt_root && swap_disks(u->in, &u->ps[i], u->key) != 0)
			return -1;
	for (i = 0; i < u->n; i++)
		if (lab_interrupted || boot_guest(u->in, &u->ps[i], u->image, u->type) != 0)
			return -1;
	if (wait_booted(u->in, u->ps, u->n, t0, u->o->timeout_s) != 0)
		return -1;
	if (!save)
		return 0;
	lab_phase_begin("save ready state");
	if (save_all(u->in, u->ps, u->n, u->saved, u->key, u->t->name, u->type) != 0) {
		lab_err("could not save the ready state; the guests run on as booted");
		return lab_interrupted ? -1 : 0;
	}
	/* saving stopped the guests: they go on from what was just saved */
	lab_phase_begin("restore ready state");
	if (restore_all(u->in, u->ps, u->n, u->saved, u->key, u->type) == 0)
		return 0;
	if (lab_interrupted)
		return -1;
	lab_err("restoring what was just saved failed; booting once more without saving");
	discard_saved(u, "its first restore failed");
	stop_guests(u->in, u->ps, u->n);
	return boot_all(u, false);
}

static int bring_up(struct up *u)
{
	guint i;

	g_key_file_set_string(u->in->state, "instance", "topology", u->t->path);
	g_key_file_set_string(u->in->state, "instance", "domain-type", u->type);
	g_key_file_set_string(u->in->state, "instance", "image", u->image);
	g_key_file_set_string(u->in->state, "instance", "topology-name", u->t->name);
	g_key_file_set_string(u->in->state, "instance", "saved-key", u->key);
	if (u->o->tests_iso)
		g_key_file_set_string(u->in->state, "instance", "tests-iso",
				      u->o->tests_iso);
	g_key_file_set_int64(u->in->state, "instance", "started", (gint64)time(NULL));
	lab_info("bringing up topology %s: %u guests, domain type %s%s",
		 u->t->name, u->n, u->type,
		 strcmp(u->type, "qemu") == 0 ? " (TCG: no hardware KVM here)" : "");
	lab_phase_begin("network");
	for (i = 0; i < u->t->networks->len; i++) {
		struct lab_network *net = g_ptr_array_index(u->t->networks, i);

		if (lab_interrupted || create_network(u->in, net->name) != 0)
			return -1;
	}
	if (!u->in->place && u->o->tests_iso &&
	    link_tests_iso(u->in, u->o->tests_iso) != 0)
		return -1;
	if (usable_saved(u)) {
		lab_phase_begin("restore ready state");
		if (restore_all(u->in, u->ps, u->n, u->saved, u->key, u->type) == 0)
			return 0;
		if (lab_interrupted)
			return -1;
		discard_saved(u, "restoring it failed (see above)");
		lab_info("booting fresh instead");
		stop_guests(u->in, u->ps, u->n);
	}
	return boot_all(u, true);
}

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

static void up_free(struct up *u)
{
	guint i;

	for (i = 0; u->ps && i < u->n; i++)
		plan_clear(&u->ps[i]);
	g_free(u->ps);
	g_free(u->key);
	g_free(u->saved);
	g_free(u->tests_at);
	g_free(u->image_at);
	lab_place_free(u->in->place);
	u->in->place = NULL;
}

/* On another host: its store, recorded in the state before anything is
 * put there, and the shared files uploaded (skipped when present). */
static int place_instance(struct up *u)
{
	struct lab_inst *in = u->in;
	const struct lab_host *h = u->host;
	char *image;

	if (!h) {
		u->tests_at = g_strdup(u->o->tests_iso);
		return 0;
	}
	g_key_file_set_string(in->state, "instance", "host", h->name);
	g_key_file_set_string(in->state, "instance", "uri", h->uri);
	g_key_file_set_string(in->state, "instance", "store", h->store);
	if (lab_inst_save(in) != 0 ||
	    !(in->place = lab_place_open(in->conn, h->name, h->uri, h->store)))
		return -1;
	lab_phase_begin("upload to host");
	image = lab_place_shared(in->place, "image", u->image);
	if (!image)
		return -1;
	u->image_at = image;
	u->image = image;
	/* the instance's own copy under a steady name, as the local link:
	 * a restored guest sees today's tests under the path it was saved with */
	if (u->o->tests_iso) {
		char *name = lab_inst_name("tests.iso");

		u->tests_at = lab_place_own(in->place, in, name);
		g_free(name);
		if (!u->tests_at ||
		    lab_place_upload(in->place, u->o->tests_iso, u->tests_at) != 0)
			return -1;
	}
	return 0;
}

static int up_instance(struct up *u)
{
	struct lab_inst *in = u->in;

	if (lab_inst_open(in, true) != 0)
		return 1;
	if (lab_inst_is_up(in)) {
		lab_err("instance '%s' is already up (%s): run `lab down` first",
			lab_instance(), in->state_path);
		return 1;
	}
	if (!(in->conn = lab_virt_connect()) || lab_inst_sweep(in->conn) != 0 ||
	    place_instance(u) != 0 || plan_all(u) != 0)
		return 1;
	if (bring_up(u) == 0) {
		lab_inst_save(in);
		lab_phase_end();
		return 0;
	}
	if (u->o->keep && !lab_interrupted) {
		lab_inst_save(in);
		lab_err("--keep: leaving the guests up for inspection; `lab down` removes them");
	} else if (lab_inst_teardown(in) == 0) {
		lab_info("tore down everything this `lab up` created");
	}
	return 1;
}

/* The host of --host NAME, checked against hosts.ini before anything is
 * built or created; later connections of this lab go there. */
static const struct lab_host *host_of(const struct lab_up_opts *o,
				      struct lab_hosts **hosts)
{
	const struct lab_host *h;

	if (!(*hosts = lab_hosts_open(o->hosts_file)))
		return NULL;
	if (!(h = lab_hosts_find(*hosts, o->host))) {
		lab_err("up: no host '%s' in %s (`lab hosts` lists them)", o->host,
			(*hosts)->path);
		return NULL;
	}
	lab_virt_set_uri(h->uri);
	return h;
}

/* Order matters: the topology is checked before anything is built or
 * created (a bad file is exit 2 on an empty cache too), then the kernels
 * and the image must exist, then the tests disk is built. */
int lab_up(const struct lab_up_opts *o)
{
	struct lab_topology *t = lab_topology_open(o->topology);
	struct lab_up_opts opts = *o;
	struct lab_inst in = { .lock_fd = -1 };
	struct up u = { .in = &in, .o = &opts };
	struct lab_hosts *hosts = NULL;
	char *image = NULL, *iso = NULL, *why;
	int rc = 1;

	if (!t)
		return 2;
	if (o->host && !(u.host = host_of(o, &hosts))) {
		lab_topology_free(t);
		return 2;
	}
	if ((why = lab_home_unreachable(lab_home()))) {
		lab_err("%s", why);
		g_free(why);
		lab_topology_free(t);
		return 2;
	}
	if (o->kernel)
		lab_topology_set_kernel(t, o->kernel);
	if (o->only && keep_only(t, o->only) != 0) {
		rc = 2;
		goto out;
	}
	if (check_kernels(t) != 0 || !(image = lab_image_path()))
		goto out;
	if (!opts.tests_iso) {
		lab_phase_begin("tests disk");
		iso = lab_tests_iso();
		lab_phase_end();
		if (!iso)
			goto out;
		opts.tests_iso = iso;
	}
	u.t = t;
	u.image = image;
	u.type = lab_virt_domain_type(o->accel);
	rc = up_instance(&u);
out:
	up_free(&u);
	lab_inst_close(&in);
	lab_topology_free(t);
	lab_hosts_free(hosts);
	g_free(image);
	g_free(iso);
	return rc;
}

static const char up_usage[] =
	"usage: lab up [-t TOPOLOGY] [--kernel baseline|patched] [--accel auto|tcg|kvm]\n"
	"              [--timeout SECONDS] [--keep] [--fresh] [--guests A,B]\n"
	"              [--host NAME [--hosts FILE]]\n"
	"  --host NAME  on that host of hosts.ini (`lab hosts`): every file goes\n"
	"               there through libvirt's storage API, the saved state too\n"
	"  --guests A,B  bring up only these guests of the topology\n"
	"  --fresh  boot instead of restoring the saved ready state, and save anew\n";

static int check_up_opts(const struct lab_up_opts *o)
{
	if (o->kernel && !lab_kernel_name_valid(o->kernel)) {
		lab_err("up: --kernel takes baseline or patched (or isolate-NNN), not '%s'",
			o->kernel);
		return 2;
	}
	if (strcmp(o->accel, "auto") && strcmp(o->accel, "tcg") && strcmp(o->accel, "kvm")) {
		lab_err("up: --accel takes auto, tcg or kvm, not '%s'", o->accel);
		return 2;
	}
	return 0;
}

int cmd_up(int argc, char **argv)
{
	struct lab_up_opts o = { "default", NULL, "auto", NULL,
				 DEFAULT_READY_TIMEOUT_S, false, false, NULL, NULL, NULL };
	char **only = NULL;
	int i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;

		if ((!strcmp(a, "-t") || !strcmp(a, "--topology")) && has)
			o.topology = argv[++i];
		else if (!strcmp(a, "--kernel") && has)
			o.kernel = argv[++i];
		else if (!strcmp(a, "--accel") && has)
			o.accel = argv[++i];
		else if (!strcmp(a, "--timeout") && has) {
			if (lab_parse_count(argv[++i], 1, 86400, &o.timeout_s) != 0) {
				lab_err("up: --timeout needs a whole number of seconds, 1..86400");
				g_strfreev(only);
				return 2;
			}
		} else if (!strcmp(a, "--guests") && has) {
			g_strfreev(only);
			o.only = only = g_strsplit(argv[++i], ",", -1);
		}
		else if (!strcmp(a, "--host") && has)
			o.host = argv[++i];
		else if (!strcmp(a, "--hosts") && has)
			o.hosts_file = argv[++i];
		else if (!strcmp(a, "--keep"))
			o.keep = true;
		else if (!strcmp(a, "--fresh"))
			o.fresh = true;
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(up_usage, stdout);
			g_strfreev(only);
			return 0;
		} else {
			lab_err("up: bad argument '%s'\n%s", a, up_usage);
			g_strfreev(only);
			return 2;
		}
	}
	rc = check_up_opts(&o);
	if (rc == 0) {
		rc = lab_up(&o);
		lab_phase_summary();
	}
	g_strfreev(only);
	return rc;
}

/* ---- restart of one guest during `lab run` ---- */

struct restart {
	char *grp, *domain, *console, *console_at, *overlay, *seed, *image;
	char *saved, *saved_key, *xml;
	int scratch;
	struct lab_place *place; /* on another host, else NULL */
};

static void restart_clear(struct restart *r)
{
	g_free(r->grp);
	g_free(r->domain);
	g_free(r->console);
	g_free(r->console_at);
	g_free(r->overlay);
	g_free(r->seed);
	g_free(r->image);
	g_free(r->saved);
	g_free(r->saved_key);
	g_free(r->xml);
}

static int restart_load(struct lab_inst *in, const char *guest,
			struct restart *r)
{
	char *xmlp = domain_xml_path(in->dir, guest);
	int ok;

	memset(r, 0, sizeof(*r));
	r->grp = g_strdup_printf("guest %s", guest);
	r->domain = g_key_file_get_string(in->state, r->grp, "domain", NULL);
	r->console = g_key_file_get_string(in->state, r->grp, "console", NULL);
	r->console_at = g_key_file_get_string(in->state, r->grp, "console-at", NULL);
	r->overlay = g_key_file_get_string(in->state, r->grp, "overlay", NULL);
	r->seed = g_key_file_get_string(in->state, r->grp, "seed", NULL);
	r->scratch = g_key_file_get_integer(in->state, r->grp, "scratch", NULL);
	r->image = g_key_file_get_string(in->state, "instance", "image", NULL);
	r->saved = g_key_file_get_string(in->state, "instance", "saved-dir", NULL);
	r->saved_key = g_key_file_get_string(in->state, "instance", "saved-in-store", NULL);
	ok = r->domain && r->console && r->overlay && r->image &&
	     g_file_get_contents(xmlp, &r->xml, NULL, NULL);
	g_free(xmlp);
	if (!ok)
		lab_err("cannot restart %s: its state in %s is incomplete", guest, in->dir);
	return ok ? 0 : -1;
}

/* The guest's own scratch disks: in the instance directory, or volumes
 * named after its domain on another host. */
static GPtrArray *own_scratch(struct lab_inst *in, const char *guest,
			      struct restart *r)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
	int i;

	for (i = 0; i < r->scratch; i++)
		g_ptr_array_add(a, r->place
			? g_strdup_printf("%s/%s-disk%d.qcow2", r->place->dir, r->domain, i)
			: g_strdup_printf("%s/%s-disk%d.qcow2", in->dir, guest, i));
	g_ptr_array_add(a, NULL);
	return a;
}

static char *saved_unusable(struct restart *r, const char *guest)
{
	char *names[] = { (char *)guest, NULL };
	bool absent;

	if (r->place)
		return lab_place_saved_check(r->place, r->saved_key, names, &absent);
	return lab_saved_check(r->saved, names, &absent);
}

static int restart_from_saved(struct lab_inst *in, const char *guest,
			      struct restart *r)
{
	struct lab_guest_files f = { r->overlay, r->seed, r->console, NULL };
	struct lab_saved_guest sg = { guest, r->domain, r->xml, &f, 0 };
	char *why;
	int rc;

	if (r->place ? !r->saved_key : !r->saved)
		return -1;
	if ((why = saved_unusable(r, guest))) {
		lab_err("no saved state to restart %s from: %s", guest, why);
		g_free(why);
		return -1;
	}
	f.scratch = own_scratch(in, guest, r);
	if (r->place)
		rc = lab_place_saved_restore(r->place, in->conn, r->saved_key, &sg);
	else
		rc = lab_saved_restore(in->conn, r->saved, &sg);
	if (rc == 0)
		rc = settle_restored(in->conn, guest, r->domain);
	g_ptr_array_free(f.scratch, TRUE);
	return rc;
}

static int restart_by_boot(struct lab_inst *in, const char *guest,
			   struct restart *r, int timeout_s)
{
	double t0 = lab_now();
	virDomainPtr d;

	if (r->place) {
		if (lab_place_qcow2(r->place, r->overlay, r->image, 0) != 0)
			return -1;
	} else {
		unlink(r->overlay);
		if (lab_qcow2_create(r->overlay, r->image, 0) != 0)
			return -1;
	}
	d = virDomainCreateXML(in->conn, r->xml, VIR_DOMAIN_NONE);
	if (!d) {
		lab_err("cannot restart guest %s: %s", guest, lab_virt_error());
		return -1;
	}
	virDomainFree(d);
	while (lab_now() - t0 < timeout_s && !lab_interrupted) {
		int ready = poll_ready(in->conn, r->domain);

		if (ready != 0)
			return ready > 0 ? 0 : -1;
		usleep(1000000);
	}
	return -1;
}

/* The dead boot's console, kept as SAVE_CONSOLE; on another host fetched
 * whole first, and the local copy starts again with the next boot. */
static void keep_console(struct restart *r, const char *save_console)
{
	gchar *log = NULL;
	gsize len = 0;

	if (r->place && r->console_at)
		lab_place_fetch(r->place, r->console_at, r->console);
	if (g_file_get_contents(r->console, &log, &len, NULL))
		lab_write_file(save_console, log, (gssize)len);
	if (r->place)
		unlink(r->console);
	g_free(log);
}

/* Destroy GUEST, keep its console log as save_console, and bring it back:
 * from the saved ready state when there is one (memory and disks as they
 * were when it was first ready), else by a boot on a fresh overlay (a
 * crashed kernel may have left the fs in any state). 0 when ready again. */
/* Restarts run in the threads of `lab run`: their state updates go one
 * at a time, each on the file as it is now. */
static void record_restart(const char *guest, const char *boot)
{
	static GMutex lock;
	struct lab_inst in = { .lock_fd = -1 };
	char *grp = g_strdup_printf("guest %s", guest);

	g_mutex_lock(&lock);
	if (lab_inst_open_unlocked(&in) == 0) {
		g_key_file_set_string(in.state, grp, "boot", boot);
		g_key_file_set_int64(in.state, grp, "started", (gint64)time(NULL));
		lab_inst_save(&in);
	}
	lab_inst_close(&in);
	g_mutex_unlock(&lock);
	g_free(grp);
}

int lab_virt_restart(virConnectPtr conn, const char *guest,
		     const char *save_console, int timeout_s)
{
	struct lab_inst in = { .lock_fd = -1 };
	struct restart r = { 0 };
	double t0 = lab_now();
	int rc = -1, err = 0;

	/* `lab run` (or `lab restart`) holds the instance lock */
	if (lab_inst_open_unlocked(&in) != 0 || restart_load(&in, guest, &r) != 0)
		goto out;
	in.conn = conn;
	if (!(r.place = lab_place_of(&in, &err)) && err)
		goto out;
	if (lab_inst_destroy_domain(in.conn, r.domain) != 0)
		goto out;
	keep_console(&r, save_console);
	if (restart_from_saved(&in, guest, &r) == 0) {
		lab_info("guest %-12s restored in %5.1f s", guest, lab_now() - t0);
		record_restart(guest, "restored");
		rc = 0;
	} else {
		lab_inst_destroy_domain(in.conn, r.domain);
		rc = restart_by_boot(&in, guest, &r, timeout_s);
		if (rc == 0)
			lab_info("guest %-12s rebooted in %5.1f s", guest, lab_now() - t0);
		else if (r.place && r.console_at)
			lab_place_fetch(r.place, r.console_at, r.console);
		if (rc != 0)
			show_console_tail(guest, r.console);
		record_restart(guest, "booted");
	}
out:
	lab_place_free(r.place);
	restart_clear(&r);
	in.conn = NULL; /* the caller's */
	lab_inst_close(&in);
	return rc;
}

/* `lab restart GUEST`: bring one guest back to its ready state (restored
 * from the saved state, else booted), keeping its console as
 * consoles/GUEST.before-restart.log. */
int cmd_restart(int argc, char **argv)
{
	struct lab_inst in = { .lock_fd = -1 };
	char *keep = NULL, *dom = NULL, *grp = NULL;
	int rc = 1;

	if (argc != 2 || argv[1][0] == '-') {
		fputs("usage: lab restart GUEST\n"
		      "  Bring GUEST back to its ready state: restored from the saved state\n"
		      "  when there is one, else booted on a fresh overlay.\n", argc == 2 ? stdout : stderr);
		return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
	}
	if (lab_inst_open(&in, false) != 0)
		goto out;
	grp = g_strdup_printf("guest %s", argv[1]);
	if (!lab_inst_is_up(&in) || !(dom = g_key_file_get_string(in.state, grp, "domain", NULL))) {
		lab_err("no guest '%s' in instance '%s' (see `lab status`)", argv[1], lab_instance());
		goto out;
	}
	if (!(in.conn = lab_virt_connect()))
		goto out;
	keep = g_strdup_printf("%s/consoles/%s.before-restart.log", in.dir, argv[1]);
	rc = lab_virt_restart(in.conn, argv[1], keep, DEFAULT_READY_TIMEOUT_S) == 0 ? 0 : 1;
out:
	g_free(keep);
	g_free(dom);
	g_free(grp);
	lab_inst_close(&in);
	return rc;
}
