/* virt.c - `lab up/down/status/console/exec` on the libvirt C API.
 *
 * Everything lab creates is transient (virNetworkCreateXML,
 * virDomainCreateXML) and named "<instance>-<name>", and is recorded in
 * $LAB_HOME/instances/<instance>/state.ini before the next thing is
 * created, so `lab down` can clean up after Ctrl-C or a crash of lab.
 */
#include "virt.h"
#include "agent.h"
#include "domxml.h"
#include "image.h"
#include "suite.h"
#include "kernel.h"
#include "owner.h"
#include "topology.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_READY_TIMEOUT_S 600

char *lab_instance_dir(void)
{
	char *rel = g_build_filename("instances", lab_instance(), NULL);
	char *dir = lab_path(rel);

	g_free(rel);
	return dir;
}

static char *instance_file(const char *name)
{
	char *dir = lab_instance_dir();
	char *p = g_build_filename(dir, name, NULL);

	g_free(dir);
	return p;
}

static void quiet_libvirt(void *ud, virErrorPtr e)
{
	(void)ud;
	(void)e; /* errors are reported where they happen, with context */
}

virConnectPtr lab_virt_connect(void)
{
	const char *uri = getenv("LAB_LIBVIRT_URI");
	virConnectPtr c;

	virSetErrorFunc(NULL, quiet_libvirt);
	c = virConnectOpen(uri && *uri ? uri : "qemu:///system");
	if (!c) {
		virErrorPtr e = virGetLastError();

		lab_err("cannot connect to libvirt (%s): %s\n"
			"  is libvirtd running? start it with: virtlogd -d && libvirtd -d\n"
			"  (or `systemctl start libvirtd` where systemd runs)",
			uri && *uri ? uri : "qemu:///system",
			e && e->message ? e->message : "unknown error");
	}
	return c;
}

static bool hw_kvm_loaded(void)
{
	gchar *mods = NULL;
	bool yes;

	if (!g_file_get_contents("/proc/modules", &mods, NULL, NULL))
		return false;
	yes = (strstr(mods, "kvm_intel ") || strstr(mods, "kvm_amd ")) &&
	      access("/dev/kvm", R_OK | W_OK) == 0;
	g_free(mods);
	return yes;
}

const char *lab_virt_domain_type(const char *accel)
{
	if (accel && strcmp(accel, "kvm") == 0)
		return "kvm";
	if (accel && strcmp(accel, "tcg") == 0)
		return "qemu";
	/* /dev/kvm alone is not enough: a paravirtual kvm module cannot run an
	 * unmodified guest kernel at useful speed; TCG can. */
	return hw_kvm_loaded() ? "kvm" : "qemu";
}

/* ---- state ---- */

struct instance {
	char *dir;
	char *state_path;
	GKeyFile *state;
	int lock_fd;
	virConnectPtr conn;
};

static int instance_open(struct instance *in, bool create)
{
	char *lock;

	memset(in, 0, sizeof(*in));
	in->lock_fd = -1;
	in->dir = lab_instance_dir();
	in->state_path = g_build_filename(in->dir, "state.ini", NULL);
	in->state = g_key_file_new();
	if (create && lab_mkdir_p(in->dir) != 0)
		return -1;
	if (!lab_exists(in->dir))
		return 0;
	lock = g_build_filename(in->dir, "lock", NULL);
	in->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	g_free(lock);
	if (in->lock_fd < 0 || flock(in->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		lab_err("another lab command is bringing instance '%s' up or down (%s/lock)",
			lab_instance(), in->dir);
		return -1;
	}
	g_key_file_load_from_file(in->state, in->state_path, G_KEY_FILE_NONE,
				  NULL);
	return 0;
}

static void instance_close(struct instance *in)
{
	if (in->conn)
		virConnectClose(in->conn);
	if (in->lock_fd >= 0)
		close(in->lock_fd);
	g_key_file_free(in->state);
	g_free(in->dir);
	g_free(in->state_path);
}

static int state_save(struct instance *in)
{
	gsize len;
	gchar *data = g_key_file_to_data(in->state, &len, NULL);
	int rc = lab_write_file(in->state_path, data, len);

	g_free(data);
	return rc;
}

static char *res_name(const char *name)
{
	return g_strdup_printf("%s-%s", lab_instance(), name);
}

/* ---- teardown: only what carries our owner tag ---- */

static bool domain_is_ours(virDomainPtr d)
{
	char *meta = virDomainGetMetadata(d, VIR_DOMAIN_METADATA_ELEMENT,
					  LAB_OWNER_NS, 0);
	struct lab_owner o;
	bool ours = lab_owner_parse(meta, &o) && lab_owner_is_ours(&o);

	lab_owner_clear(&o);
	free(meta);
	return ours;
}

static bool network_is_ours(virNetworkPtr n)
{
	/* libvirt 9.0 keeps a network's <metadata> but has no API for it */
	char *xml = virNetworkGetXMLDesc(n, 0);
	struct lab_owner o;
	bool ours = lab_owner_parse(xml, &o) && lab_owner_is_ours(&o);

	lab_owner_clear(&o);
	free(xml);
	return ours;
}

static const char *virt_error(void)
{
	virErrorPtr e = virGetLastError();

	return e && e->message ? e->message : "unknown libvirt error";
}

/* 0 when the domain is gone (or never was), -1 when it is still there. */
static int destroy_domain(virConnectPtr c, const char *name)
{
	virDomainPtr d = virDomainLookupByName(c, name);
	int rc = 0;

	if (!d)
		return 0;
	if (!domain_is_ours(d)) {
		lab_err("domain %s does not carry instance '%s''s owner tag: left alone",
			name, lab_instance());
		virDomainFree(d);
		return 0;
	}
	if (virDomainDestroy(d) != 0) {
		lab_err("cannot destroy domain %s: %s", name, virt_error());
		rc = -1;
	}
	virDomainFree(d);
	return rc;
}

static int destroy_network(virConnectPtr c, const char *name)
{
	virNetworkPtr n = virNetworkLookupByName(c, name);
	int rc = 0;

	if (!n)
		return 0;
	if (!network_is_ours(n)) {
		lab_err("network %s does not carry instance '%s''s owner tag: left alone",
			name, lab_instance());
		virNetworkFree(n);
		return 0;
	}
	if (virNetworkDestroy(n) != 0) {
		lab_err("cannot destroy network %s: %s", name, virt_error());
		rc = -1;
	}
	virNetworkFree(n);
	return rc;
}

/* Also sweep what carries our tag but the state file does not know (lab
 * died between create and save). Names play no part: a foreign domain
 * named like ours is never touched. */
static int sweep_owned(virConnectPtr c)
{
	virDomainPtr *doms = NULL;
	virNetworkPtr *nets = NULL;
	int i, n, rc = 0;

	n = virConnectListAllDomains(c, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	for (i = 0; i < n; i++) {
		if (domain_is_ours(doms[i]) && virDomainDestroy(doms[i]) != 0) {
			lab_err("cannot destroy domain %s: %s",
				virDomainGetName(doms[i]), virt_error());
			rc = -1;
		}
		virDomainFree(doms[i]);
	}
	free(doms);
	n = virConnectListAllNetworks(c, &nets, VIR_CONNECT_LIST_NETWORKS_ACTIVE);
	for (i = 0; i < n; i++) {
		if (network_is_ours(nets[i]) && virNetworkDestroy(nets[i]) != 0) {
			lab_err("cannot destroy network %s: %s",
				virNetworkGetName(nets[i]), virt_error());
			rc = -1;
		}
		virNetworkFree(nets[i]);
	}
	free(nets);
	return rc;
}

static void remove_disks(struct instance *in)
{
	GDir *d = g_dir_open(in->dir, 0, NULL);
	const char *f;

	if (!d)
		return;
	while ((f = g_dir_read_name(d))) {
		if (g_str_has_suffix(f, ".qcow2") || g_str_has_suffix(f, ".iso") ||
		    g_str_has_suffix(f, "-user-data") ||
		    g_str_has_suffix(f, "-meta-data")) {
			char *p = g_build_filename(in->dir, f, NULL);

			unlink(p);
			g_free(p);
		}
	}
	g_dir_close(d);
}

/* Destroy what the state names, then whatever else carries our tag. The
 * state file and the disks stay until every destroy was confirmed, so a
 * failed teardown can be retried by `lab down`. */
static int teardown(struct instance *in)
{
	gchar **groups = g_key_file_get_groups(in->state, NULL);
	int i, rc = 0;

	for (i = 0; groups && groups[i]; i++) {
		char *dom = g_key_file_get_string(in->state, groups[i], "domain",
						  NULL);

		if (dom && destroy_domain(in->conn, dom) != 0)
			rc = -1;
		g_free(dom);
	}
	for (i = 0; groups && groups[i]; i++) {
		char *net = g_key_file_get_string(in->state, groups[i],
						  "libvirt-network", NULL);

		if (net && destroy_network(in->conn, net) != 0)
			rc = -1;
		g_free(net);
	}
	g_strfreev(groups);
	if (sweep_owned(in->conn) != 0)
		rc = -1;
	if (rc != 0) {
		lab_err("teardown incomplete: %s kept; run `lab down` again", in->state_path);
		return rc;
	}
	remove_disks(in);
	unlink(in->state_path);
	return 0;
}

int lab_down(bool quiet)
{
	struct instance in;
	int rc = 1;

	if (instance_open(&in, false) != 0)
		goto out;
	in.conn = lab_virt_connect();
	if (!in.conn)
		goto out;
	if (!quiet && !lab_exists(in.state_path))
		lab_info("instance '%s' is not up; removing anything left with its owner tag",
			 lab_instance());
	if (teardown(&in) != 0)
		goto out;
	if (!quiet)
		lab_info("instance '%s' is down", lab_instance());
	rc = 0;
out:
	instance_close(&in);
	return rc;
}

/* ---- bring-up ---- */

static int create_network(struct instance *in, const char *net)
{
	char *name = res_name(net);
	char *bridge = lab_bridge_for(name);
	char *owner = lab_owner_xml();
	char *xml = lab_network_xml(name, bridge, owner);
	char *grp = g_strdup_printf("network %s", net);
	virNetworkPtr n;
	int rc = -1;

	/* record first: if lab dies after the create, down still finds it */
	g_key_file_set_string(in->state, grp, "libvirt-network", name);
	g_key_file_set_string(in->state, grp, "bridge", bridge);
	if (state_save(in) != 0)
		goto out;
	n = virNetworkCreateXML(in->conn, xml);
	if (!n) {
		virErrorPtr e = virGetLastError();

		lab_err("cannot create network %s: %s", name,
			e && e->message ? e->message : "?");
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

struct guest_files {
	char *overlay;
	char *seed;
	char *console;
	GPtrArray *scratch; /* char * */
};

static void guest_files_clear(struct guest_files *f)
{
	g_free(f->overlay);
	g_free(f->seed);
	g_free(f->console);
	if (f->scratch)
		g_ptr_array_free(f->scratch, TRUE);
}

static int make_guest_files(struct instance *in, const struct lab_guest *g,
			    const char *image, struct guest_files *f)
{
	char *consoles = g_build_filename(in->dir, "consoles", NULL);
	int i;

	memset(f, 0, sizeof(*f));
	f->scratch = g_ptr_array_new_with_free_func(g_free);
	f->overlay = g_strdup_printf("%s/%s-root.qcow2", in->dir, g->name);
	f->console = g_strdup_printf("%s/%s.log", consoles, g->name);
	lab_mkdir_p(consoles);
	g_free(consoles);
	unlink(f->console);
	if (lab_qcow2_create(f->overlay, image, 0) != 0 ||
	    lab_seed_make(g, in->dir, &f->seed) != 0)
		return -1;
	for (i = 0; g->disks_mib[i]; i++) {
		char *p = g_strdup_printf("%s/%s-disk%d.qcow2", in->dir, g->name, i);

		g_ptr_array_add(f->scratch, p);
		if (lab_qcow2_create(p, NULL, g->disks_mib[i]) != 0)
			return -1;
	}
	g_ptr_array_add(f->scratch, NULL);
	return 0;
}

/* The domain XML is kept so `lab run` can restart a guest that crashed. */
static char *domain_xml_path(const char *dir, const char *guest)
{
	return g_strdup_printf("%s/%s.xml", dir, guest);
}

static int save_domain_xml(struct instance *in, const char *guest,
			   const char *xml)
{
	char *p = domain_xml_path(in->dir, guest);
	int rc = lab_write_file(p, xml, -1);

	g_free(p);
	return rc;
}

static int create_guest(struct instance *in, const struct lab_guest *g,
			const char *image, const char *type,
			const char *tests_iso)
{
	enum lab_variant v = LAB_PATCHED;
	char *kdir = NULL, *kernel = NULL, *cmdline = NULL, *xml = NULL;
	char *name = res_name(g->name);
	char *net = res_name(g->network);
	char *mac = lab_mac_for(name);
	char *grp = g_strdup_printf("guest %s", g->name);
	char *owner = NULL;
	struct guest_files f = { 0 };
	struct lab_domain_spec s;
	virDomainPtr d;
	int i, rc = -1;

	lab_variant_parse(g->kernel, &v);
	kdir = lab_kernel_dir(LAB_REVIEW_DEFAULT, v);
	if (!kdir || make_guest_files(in, g, image, &f) != 0)
		goto out;
	kernel = g_build_filename(kdir, "bzImage", NULL);
	cmdline = lab_guest_cmdline(g->cmdline);
	memset(&s, 0, sizeof(s));
	s.name = name;
	s.type = type;
	s.memory_mib = g->memory_mib;
	s.vcpus = g->vcpus;
	s.kernel = kernel;
	s.cmdline = cmdline;
	s.root_disk = f.overlay;
	s.seed_iso = f.seed;
	s.tests_iso = tests_iso;
	s.scratch_disks = (const char *const *)f.scratch->pdata;
	s.network = net;
	s.mac = mac;
	s.console_log = f.console;
	s.owner = owner = lab_owner_xml();
	for (i = 0; g->devices[i]; i++)
		s.intel_hda |= strcmp(g->devices[i], "intel-hda") == 0;
	xml = lab_domain_xml(&s);
	g_key_file_set_string(in->state, grp, "domain", name);
	g_key_file_set_string(in->state, grp, "kernel", g->kernel);
	g_key_file_set_string(in->state, grp, "kernel-dir", kdir);
	g_key_file_set_string(in->state, grp, "address", g->address);
	g_key_file_set_string(in->state, grp, "role", g->role);
	g_key_file_set_string(in->state, grp, "console", f.console);
	g_key_file_set_string(in->state, grp, "overlay", f.overlay);
	g_key_file_set_int64(in->state, grp, "started", (gint64)time(NULL));
	if (state_save(in) != 0 || save_domain_xml(in, g->name, xml) != 0)
		goto out;
	d = virDomainCreateXML(in->conn, xml, VIR_DOMAIN_NONE);
	if (!d) {
		virErrorPtr e = virGetLastError();

		lab_err("cannot start guest %s: %s", g->name,
			e && e->message ? e->message : "?");
		goto out;
	}
	virDomainFree(d);
	rc = 0;
out:
	guest_files_clear(&f);
	g_free(kdir);
	g_free(kernel);
	g_free(cmdline);
	g_free(xml);
	g_free(name);
	g_free(net);
	g_free(mac);
	g_free(grp);
	g_free(owner);
	return rc;
}

static void show_console_tail(const char *guest, const char *console)
{
	char *tail = lab_tail(console, 15);

	lab_err("last console lines of %s (%s):\n%s", guest, console, tail);
	g_free(tail);
}

/* A guest is ready when the agent answers and cloud-init has finished. */
static int guest_ready(virDomainPtr d)
{
	struct lab_exec_result r;
	int ready;

	if (!lab_agent_ping(d, 2))
		return 0;
	if (lab_agent_sh(d, "test -e /var/lib/cloud/instance/boot-finished",
			 10, &r) != 0)
		return 0;
	ready = r.exit_code == 0;
	lab_exec_result_clear(&r);
	return ready;
}

static int wait_ready(struct instance *in, struct lab_topology *t,
		      double t0, int timeout_s)
{
	guint n = t->guests->len, done = 0, i;
	bool *ready = g_new0(bool, n);
	int rc = -1;

	while (done < n) {
		if (lab_interrupted) {
			lab_err("interrupted; tearing down");
			goto out;
		}
		for (i = 0; i < n; i++) {
			struct lab_guest *g = g_ptr_array_index(t->guests, i);
			char *name = res_name(g->name);
			char *grp = g_strdup_printf("guest %s", g->name);
			char *console = g_key_file_get_string(in->state, grp,
							      "console", NULL);
			virDomainPtr d = virDomainLookupByName(in->conn, name);
			int state = -1, reason;

			if (d && !ready[i])
				virDomainGetState(d, &state, &reason, 0);
			if (!ready[i] && state != VIR_DOMAIN_RUNNING) {
				lab_err("guest %s stopped while booting (panic or crash?)",
					g->name);
				show_console_tail(g->name, console);
				rc = -1;
			} else if (!ready[i] && guest_ready(d)) {
				ready[i] = true;
				done++;
				lab_info("guest %-12s ready in %5.1f s", g->name,
					 lab_now() - t0);
			} else if (!ready[i] && lab_now() - t0 > timeout_s) {
				lab_err("guest %s not ready after %d s (agent or cloud-init)",
					g->name, timeout_s);
				show_console_tail(g->name, console);
				state = -2;
			}
			if (d)
				virDomainFree(d);
			g_free(name);
			g_free(grp);
			g_free(console);
			if (!ready[i] && (state == -2 || state != VIR_DOMAIN_RUNNING))
				goto out;
		}
		if (done < n)
			usleep(1000000);
	}
	rc = 0;
out:
	g_free(ready);
	return rc;
}

static int check_kernels(struct lab_topology *t)
{
	guint i;

	for (i = 0; i < t->guests->len; i++) {
		struct lab_guest *g = g_ptr_array_index(t->guests, i);
		enum lab_variant v = LAB_PATCHED;
		char *dir;

		lab_variant_parse(g->kernel, &v);
		dir = lab_kernel_dir(LAB_REVIEW_DEFAULT, v);
		if (!dir)
			return -1;
		g_free(dir);
	}
	return 0;
}

static int bring_up(struct instance *in, struct lab_topology *t,
		    const struct lab_up_opts *o, const char *image)
{
	const char *type = lab_virt_domain_type(o->accel);
	double t0 = lab_now();
	guint i;

	g_key_file_set_string(in->state, "instance", "topology", t->path);
	g_key_file_set_string(in->state, "instance", "domain-type", type);
	g_key_file_set_string(in->state, "instance", "image", image);
	g_key_file_set_string(in->state, "instance", "topology-name", t->name);
	if (o->tests_iso)
		g_key_file_set_string(in->state, "instance", "tests-iso",
				      o->tests_iso);
	g_key_file_set_int64(in->state, "instance", "started", (gint64)time(NULL));
	lab_info("bringing up topology %s: %u guests, domain type %s%s",
		 t->name, t->guests->len, type,
		 strcmp(type, "qemu") == 0 ? " (TCG: no hardware KVM here)" : "");
	lab_phase_begin("create network + guests");
	for (i = 0; i < t->networks->len; i++) {
		struct lab_network *n = g_ptr_array_index(t->networks, i);

		if (lab_interrupted || create_network(in, n->name) != 0)
			return -1;
	}
	for (i = 0; i < t->guests->len; i++) {
		if (lab_interrupted ||
		    create_guest(in, g_ptr_array_index(t->guests, i), image, type,
				 o->tests_iso) != 0)
			return -1;
	}
	lab_phase_begin("boot to ready");
	if (wait_ready(in, t, t0, o->timeout_s) != 0)
		return -1;
	lab_phase_end();
	return 0;
}

/* Order matters: the topology is checked before anything is built or
 * created (a bad file is exit 2 on an empty cache too), then the kernels
 * and the image must exist, then the tests disk is built. */
int lab_up(const struct lab_up_opts *o)
{
	struct lab_topology *t = lab_topology_open(o->topology);
	struct lab_up_opts opts = *o;
	struct instance in = { .lock_fd = -1 };
	char *image = NULL, *iso = NULL;
	int rc = 1;

	if (!t)
		return 2;
	if (o->kernel)
		lab_topology_set_kernel(t, o->kernel);
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
	o = &opts;
	if (instance_open(&in, true) != 0)
		goto out;
	if (lab_exists(in.state_path)) {
		lab_err("instance '%s' is already up (%s): run `lab down` first",
			lab_instance(), in.state_path);
		goto out;
	}
	in.conn = lab_virt_connect();
	if (!in.conn)
		goto out;
	if (sweep_owned(in.conn) != 0)
		goto out;
	if (bring_up(&in, t, o, image) == 0) {
		rc = 0;
	} else if (o->keep && !lab_interrupted) {
		lab_err("--keep: leaving the guests up for inspection; `lab down` removes them");
	} else {
		teardown(&in);
		lab_info("tore down everything this `lab up` created");
	}
out:
	instance_close(&in);
	lab_topology_free(t);
	g_free(image);
	g_free(iso);
	return rc;
}

static const char up_usage[] =
	"usage: lab up [-t TOPOLOGY] [--kernel baseline|patched] [--accel auto|tcg|kvm]\n"
	"              [--timeout SECONDS] [--keep]\n";

int cmd_up(int argc, char **argv)
{
	struct lab_up_opts o = { "default", NULL, "auto", NULL,
				 DEFAULT_READY_TIMEOUT_S, false };
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
		else if (!strcmp(a, "--timeout") && has)
			o.timeout_s = atoi(argv[++i]);
		else if (!strcmp(a, "--keep"))
			o.keep = true;
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(up_usage, stdout);
			return 0;
		} else {
			lab_err("up: bad argument '%s'\n%s", a, up_usage);
			return 2;
		}
	}
	if (o.kernel && strcmp(o.kernel, "baseline") && strcmp(o.kernel, "patched")) {
		lab_err("up: --kernel takes baseline or patched, not '%s'", o.kernel);
		return 2;
	}
	if (strcmp(o.accel, "auto") && strcmp(o.accel, "tcg") && strcmp(o.accel, "kvm")) {
		lab_err("up: --accel takes auto, tcg or kvm, not '%s'", o.accel);
		return 2;
	}
	if (o.timeout_s <= 0) {
		lab_err("up: --timeout needs a positive number of seconds");
		return 2;
	}
	rc = lab_up(&o);
	lab_phase_summary();
	return rc;
}

int cmd_down(int argc, char **argv)
{
	if (argc > 1) {
		printf("usage: lab down\n  Destroy the instance's guests and network; remove overlays and seeds.\n");
		return strcmp(argv[1], "--help") == 0 ? 0 : 2;
	}
	return lab_down(false);
}

/* ---- status, console, exec ---- */

static GKeyFile *load_state(void)
{
	char *path = instance_file("state.ini");
	GKeyFile *kf = g_key_file_new();

	if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, NULL)) {
		lab_err("instance '%s' is not up: run `lab up`", lab_instance());
		g_key_file_free(kf);
		kf = NULL;
	}
	g_free(path);
	return kf;
}

static const char *state_word(int s)
{
	switch (s) {
	case VIR_DOMAIN_RUNNING: return "running";
	case VIR_DOMAIN_BLOCKED: return "blocked";
	case VIR_DOMAIN_PAUSED: return "paused";
	case VIR_DOMAIN_SHUTDOWN: return "shutting-down";
	case VIR_DOMAIN_SHUTOFF: return "shut-off";
	case VIR_DOMAIN_CRASHED: return "crashed";
	default: return "unknown";
	}
}

int cmd_status(int argc, char **argv)
{
	GKeyFile *st;
	virConnectPtr c;
	gchar **groups;
	int i;

	(void)argv;
	if (argc > 1) {
		printf("usage: lab status\n");
		return 2;
	}
	if (!(st = load_state()))
		return 1;
	if (!(c = lab_virt_connect())) {
		g_key_file_free(st);
		return 1;
	}
	groups = g_key_file_get_groups(st, NULL);
	printf("%-12s %-10s %-9s %-8s %-18s %s\n", "GUEST", "ROLE", "STATE",
	       "KERNEL", "ADDRESS", "UPTIME");
	for (i = 0; groups[i]; i++) {
		char *dom, *role, *kern, *addr;
		virDomainPtr d;
		int s = -1, r;
		long up;

		if (!g_str_has_prefix(groups[i], "guest "))
			continue;
		dom = g_key_file_get_string(st, groups[i], "domain", NULL);
		role = g_key_file_get_string(st, groups[i], "role", NULL);
		kern = g_key_file_get_string(st, groups[i], "kernel", NULL);
		addr = g_key_file_get_string(st, groups[i], "address", NULL);
		up = time(NULL) - g_key_file_get_int64(st, groups[i], "started", NULL);
		d = dom ? virDomainLookupByName(c, dom) : NULL;
		if (d) {
			virDomainGetState(d, &s, &r, 0);
			virDomainFree(d);
		}
		printf("%-12s %-10s %-9s %-8s %-18s ", groups[i] + 6,
		       role ? role : "?", d ? state_word(s) : "gone",
		       kern ? kern : "?", addr ? addr : "?");
		if (d)
			printf("%ld s\n", up);
		else
			printf("-\n");
		g_free(dom);
		g_free(role);
		g_free(kern);
		g_free(addr);
	}
	g_strfreev(groups);
	virConnectClose(c);
	g_key_file_free(st);
	return 0;
}

int cmd_console(int argc, char **argv)
{
	bool follow = true;
	const char *guest = NULL;
	char *path;
	FILE *f;
	char buf[4096];
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-follow"))
			follow = false;
		else if (argv[i][0] != '-' && !guest)
			guest = argv[i];
		else {
			lab_err("usage: lab console [--no-follow] GUEST");
			return 2;
		}
	}
	if (!guest) {
		lab_err("usage: lab console [--no-follow] GUEST");
		return 2;
	}
	{
		char *file = g_strdup_printf("consoles/%s.log", guest);

		path = instance_file(file);
		g_free(file);
	}
	f = fopen(path, "r");
	if (!f) {
		lab_err("no console log for guest '%s' (%s): is it part of the topology that is up?",
			guest, path);
		g_free(path);
		return 1;
	}
	while (!lab_interrupted) {
		size_t n = fread(buf, 1, sizeof(buf), f);

		if (n > 0) {
			fwrite(buf, 1, n, stdout);
			fflush(stdout);
			continue;
		}
		if (!follow)
			break;
		clearerr(f);
		usleep(200000);
	}
	fclose(f);
	g_free(path);
	return 0;
}

virDomainPtr lab_virt_guest(virConnectPtr conn, const char *guest)
{
	char *name = res_name(guest);
	virDomainPtr d = virDomainLookupByName(conn, name);

	if (!d)
		lab_err("guest '%s' is not running (no domain %s): see `lab status`",
			guest, name);
	g_free(name);
	return d;
}

int cmd_exec(int argc, char **argv)
{
	int timeout = 300, i = 1, rc = 1;
	struct lab_exec_result r;
	virConnectPtr c;
	virDomainPtr d;
	const char *guest;

	if (i + 1 < argc && !strcmp(argv[i], "--timeout")) {
		timeout = atoi(argv[i + 1]);
		i += 2;
	}
	if (i + 2 >= argc || strcmp(argv[i + 1], "--") != 0 || timeout <= 0) {
		lab_err("usage: lab exec [--timeout S] GUEST -- COMMAND [ARGS...]");
		return 2;
	}
	guest = argv[i];
	if (!(c = lab_virt_connect()))
		return 1;
	d = lab_virt_guest(c, guest);
	if (d && lab_agent_exec(d, (const char *const *)argv + i + 2, timeout,
				&r) == 0) {
		fputs(r.out, stdout);
		fputs(r.err, stderr);
		rc = r.exit_code < 0 ? 1 : r.exit_code;
		lab_exec_result_clear(&r);
	}
	if (d)
		virDomainFree(d);
	virConnectClose(c);
	return rc;
}

GKeyFile *lab_virt_state(void)
{
	return load_state();
}

static int wait_one_ready(virConnectPtr c, const char *name, int timeout_s)
{
	double t0 = lab_now();

	while (lab_now() - t0 < timeout_s && !lab_interrupted) {
		virDomainPtr d = virDomainLookupByName(c, name);
		int state = -1, reason, ready = 0;

		if (d) {
			virDomainGetState(d, &state, &reason, 0);
			if (state == VIR_DOMAIN_RUNNING)
				ready = guest_ready(d);
			virDomainFree(d);
		}
		if (state != VIR_DOMAIN_RUNNING)
			return -1;
		if (ready)
			return 0;
		usleep(1000000);
	}
	return -1;
}

/* Destroy GUEST, keep its console log as save_console, give it a fresh root
 * overlay (a crashed kernel may have left the fs in any state) and boot it
 * again from the saved domain XML. */
int lab_virt_restart(const char *guest, const char *save_console,
		     int timeout_s)
{
	GKeyFile *kf = load_state();
	char *grp = g_strdup_printf("guest %s", guest);
	char *dir = lab_instance_dir();
	char *name = res_name(guest), *xml = NULL, *log = NULL;
	char *xmlp = domain_xml_path(dir, guest);
	char *console = kf ? g_key_file_get_string(kf, grp, "console", NULL) : NULL;
	char *overlay = kf ? g_key_file_get_string(kf, grp, "overlay", NULL) : NULL;
	char *image = kf ? g_key_file_get_string(kf, "instance", "image", NULL) : NULL;
	virConnectPtr c = NULL;
	virDomainPtr d;
	double t0 = lab_now();
	gsize len = 0;
	int rc = -1;

	if (!console || !overlay || !image ||
	    !g_file_get_contents(xmlp, &xml, NULL, NULL)) {
		lab_err("cannot restart %s: its state in %s is incomplete", guest, dir);
		goto out;
	}
	if (!(c = lab_virt_connect()))
		goto out;
	destroy_domain(c, name);
	if (g_file_get_contents(console, &log, &len, NULL))
		lab_write_file(save_console, log, (gssize)len);
	unlink(overlay);
	if (lab_qcow2_create(overlay, image, 0) != 0)
		goto out;
	d = virDomainCreateXML(c, xml, VIR_DOMAIN_NONE);
	if (!d) {
		virErrorPtr e = virGetLastError();

		lab_err("cannot restart guest %s: %s", guest,
			e && e->message ? e->message : "?");
		goto out;
	}
	virDomainFree(d);
	rc = wait_one_ready(c, name, timeout_s);
	if (rc == 0)
		lab_info("guest %-12s restarted, ready in %5.1f s", guest,
			 lab_now() - t0);
	else
		show_console_tail(guest, console);
out:
	if (c)
		virConnectClose(c);
	if (kf)
		g_key_file_free(kf);
	g_free(grp);
	g_free(dir);
	g_free(name);
	g_free(xml);
	g_free(log);
	g_free(xmlp);
	g_free(console);
	g_free(overlay);
	g_free(image);
	return rc;
}
