/* conn.c - see conn.h. */
#include "virt/conn.h"
#include "core/hosts.h"
#include "core/owner.h"
#include "util/util.h"

#include <glib.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
