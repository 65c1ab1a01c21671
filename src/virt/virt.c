/* virt.c - the libvirt connection, the accelerator, and the commands that
 * look at guests that are up: `lab status`, `lab console`, `lab exec`. */
#include "virt/virt.h"
#include "core/hosts.h"
#include "guests/instance.h"
#include "store/place.h"
#include "virt/agent.h"
#include "virt/domxml.h"
#include "build/image.h"
#include "core/suite.h"
#include "build/kernel.h"
#include "core/owner.h"
#include "core/topology.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>


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

const char *lab_virt_error(void)
{
	virErrorPtr e = virGetLastError();

	return e && e->message ? e->message : "unknown libvirt error";
}

static void quiet_libvirt(void *ud, virErrorPtr e)
{
	(void)ud;
	(void)e; /* errors are reported where they happen, with context */
}

/* libvirt's event loop runs in a thread of its own: it carries the
 * keepalive pings that turn a hung libvirtd into an error within seconds,
 * and the close callback that says libvirtd went away. */
static gpointer event_loop(gpointer data)
{
	(void)data;
	for (;;)
		virEventRunDefaultImpl();
	return NULL;
}

static void start_event_loop(void)
{
	static gsize once;

	if (g_once_init_enter(&once)) {
		if (virEventRegisterDefaultImpl() == 0)
			g_thread_unref(g_thread_new("libvirt-events", event_loop, NULL));
		g_once_init_leave(&once, 1);
	}
}

static volatile gint libvirt_gone;

static void on_close(virConnectPtr c, int reason, void *opaque)
{
	static const char *const why[] = { "an error", "end of file",
					   "a keepalive timeout", "a client" };

	(void)c;
	(void)opaque;
	if (g_atomic_int_compare_and_exchange(&libvirt_gone, 0, 1))
		lab_err("libvirtd stopped answering: the connection closed (%s)",
			reason >= 0 && reason < 4 ? why[reason] : "unknown reason");
}

bool lab_virt_lost(virConnectPtr c)
{
	return g_atomic_int_get(&libvirt_gone) || (c && virConnectIsAlive(c) != 1);
}

virConnectPtr lab_virt_open(const char *uri)
{
	virConnectPtr c;

	virSetErrorFunc(NULL, quiet_libvirt);
	start_event_loop();
	c = virConnectOpen(uri);
	if (c) {
		/* a ping every 5 s, 3 unanswered: a hung libvirtd is an error
		 * after about 20 s instead of a lab that waits forever */
		virConnectSetKeepAlive(c, 5, 3);
		virConnectRegisterCloseCallback(c, on_close, NULL, NULL);
	}
	return c;
}

static char *uri_override;

void lab_virt_set_uri(const char *uri)
{
	g_free(uri_override);
	uri_override = g_strdup(uri);
}

const char *lab_virt_uri(void)
{
	static char *recorded;
	const char *env = getenv("LAB_LIBVIRT_URI");
	GKeyFile *kf;

	if (uri_override)
		return uri_override;
	if (env && *env)
		return env;
	if (!recorded && (kf = lab_inst_state_read())) {
		recorded = g_key_file_get_string(kf, "instance", "uri", NULL);
		g_key_file_free(kf);
	}
	return recorded ? recorded : "qemu:///system";
}

virConnectPtr lab_virt_connect(void)
{
	const char *uri = lab_virt_uri();
	virConnectPtr c = lab_virt_open(uri);

	if (!c)
		lab_err("cannot connect to libvirt (%s): %s\n"
			"  is libvirtd running? start it with: virtlogd -d && libvirtd -d\n"
			"  (or `systemctl start libvirtd` where systemd runs)",
			uri, lab_virt_error());
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

/* ---- status, console, exec ---- */

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

	if (argc > 1) {
		printf("usage: lab status\n  The instance's guests: role, state, kernel, address, booted or\n"
		       "  restored, uptime.\n");
		return !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ? 0 : 2;
	}
	if (!(st = lab_inst_state_read()))
		return 1;
	if (!(c = lab_virt_connect())) {
		g_key_file_free(st);
		return 1;
	}
	groups = g_key_file_get_groups(st, NULL);
	printf("%-12s %-10s %-9s %-8s %-18s %-9s %s\n", "GUEST", "ROLE", "STATE",
	       "KERNEL", "ADDRESS", "BOOT", "UPTIME");
	for (i = 0; groups[i]; i++) {
		char *dom, *role, *kern, *addr, *boot;
		virDomainPtr d;
		int s = -1, r;
		long up;

		if (!g_str_has_prefix(groups[i], "guest "))
			continue;
		dom = g_key_file_get_string(st, groups[i], "domain", NULL);
		role = g_key_file_get_string(st, groups[i], "role", NULL);
		kern = g_key_file_get_string(st, groups[i], "kernel", NULL);
		addr = g_key_file_get_string(st, groups[i], "address", NULL);
		boot = g_key_file_get_string(st, groups[i], "boot", NULL);
		up = time(NULL) - g_key_file_get_int64(st, groups[i], "started", NULL);
		d = dom ? virDomainLookupByName(c, dom) : NULL;
		if (d) {
			virDomainGetState(d, &s, &r, 0);
			virDomainFree(d);
		}
		printf("%-12s %-10s %-9s %-8s %-18s %-9s ", groups[i] + 6,
		       role ? role : "?", d ? state_word(s) : "gone",
		       kern ? kern : "?", addr ? addr : "?", boot ? boot : "booted");
		if (d)
			printf("%ld s\n", up);
		else
			printf("-\n");
		g_free(dom);
		g_free(role);
		g_free(kern);
		g_free(addr);
		g_free(boot);
	}
	g_strfreev(groups);
	virConnectClose(c);
	g_key_file_free(st);
	return 0;
}

/* A guest on another host: its log is a volume of the host's store,
 * fetched through the storage API into the local copy before reading. */
static int fetch_console(const char *guest, const char *local)
{
	struct lab_inst in;
	struct lab_place *pl;
	char *grp = g_strdup_printf("guest %s", guest), *dom, *store, *path;
	int err = 0, rc = 0;

	if (lab_inst_open_unlocked(&in) != 0 ||
	    !(store = g_key_file_get_string(in.state, "instance", "store", NULL))) {
		lab_inst_close(&in);
		g_free(grp);
		return 0; /* local: the file is there */
	}
	dom = g_key_file_get_string(in.state, grp, "domain", NULL);
	in.conn = dom ? lab_virt_connect() : NULL;
	pl = in.conn ? lab_place_of(&in, &err) : NULL;
	path = g_strdup_printf("%s/%s-console.log", store, dom ? dom : "");
	rc = pl ? lab_place_fetch(pl, path, local) : -1;
	lab_place_free(pl);
	if (in.conn)
		virConnectClose(in.conn);
	in.conn = NULL;
	lab_inst_close(&in);
	g_free(path);
	g_free(store);
	g_free(dom);
	g_free(grp);
	return rc;
}

int cmd_console(int argc, char **argv)
{
	bool follow = true, remote;
	const char *guest = NULL;
	char *path;
	FILE *f;
	char buf[4096];
	long at = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: lab console [--no-follow] GUEST\n  Follow a guest's serial console log.\n");
			return 0;
		}
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
	{
		GKeyFile *st = lab_inst_state_read();

		remote = st && g_key_file_has_key(st, "instance", "store", NULL);
		if (st)
			g_key_file_free(st);
	}
	if (remote && fetch_console(guest, path) != 0) {
		g_free(path);
		return 1;
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
			at += (long)n;
			continue;
		}
		if (!follow)
			break;
		if (remote) { /* a new copy: read on from where we were */
			fclose(f);
			usleep(2000000);
			if (fetch_console(guest, path) != 0 || !(f = fopen(path, "r")))
				break;
			fseek(f, at, SEEK_SET);
			continue;
		}
		clearerr(f);
		usleep(200000);
	}
	if (f)
		fclose(f);
	g_free(path);
	return 0;
}

virDomainPtr lab_virt_guest(virConnectPtr conn, const char *guest)
{
	char *name = g_strdup_printf("%s-%s", lab_instance(), guest);
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

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: lab exec [--timeout S] GUEST -- COMMAND [ARGS...]\n"
		       "  Run COMMAND in GUEST through the guest agent; its output and exit\n"
		       "  status are lab's. A command still running after S seconds (300)\n"
		       "  is killed (exit 124).\n");
		return 0;
	}
	if (i + 1 < argc && !strcmp(argv[i], "--timeout")) {
		if (lab_parse_count(argv[i + 1], 1, 86400, &timeout) != 0)
			timeout = 0; /* usage error below */
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
	if (d) {
		int how = lab_agent_exec(d, (const char *const *)argv + i + 2,
					 timeout, 0, &r);

		if (how == 1) {
			lab_err("%s: still running after %d s: killed", guest, timeout);
			lab_agent_kill(d, r.pid, false);
		}
		fputs(r.out, stdout);
		fputs(r.err, stderr);
		rc = how == 0 ? (r.exit_code < 0 ? 1 : r.exit_code) : how == 1 ? 124 : 1;
		lab_exec_result_clear(&r);
		virDomainFree(d);
	}
	virConnectClose(c);
	return rc;
}

/* Host NAME of hosts.ini answers now. */
bool lab_host_answers(const char *hosts_file, const char *name)
{
	struct lab_hosts *h = lab_hosts_open(hosts_file);
	struct lab_host *x = h ? lab_hosts_find(h, name) : NULL;
	virConnectPtr c = x ? lab_virt_open(x->uri) : NULL;
	bool alive = c && virConnectIsAlive(c) == 1;

	if (c)
		virConnectClose(c);
	lab_hosts_free(h);
	return alive;
}
