/* conn.c - see conn.h. */
#include "virt/conn.h"
#include "core/hosts.h"
#include "core/owner.h"
#include "util/util.h"

#include <glib.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Why the last lab_virt_open of this thread failed, when libvirt cannot
 * say (it is still waiting in another thread). */
static _Thread_local char *open_error;

const char *lab_virt_error(void)
{
	virErrorPtr e = virGetLastError();

	if (open_error)
		return open_error;
	return e && e->message ? e->message : "unknown libvirt error";
}

static void quiet_libvirt(void *ud, virErrorPtr e)
{
	(void)ud;
	(void)e; /* errors are reported where they happen, with context */
}

/* libvirt's event loop runs in a thread of its own: it carries the
 * keepalive pings that turn a hung libvirtd into an error within a minute,
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

/* virConnectOpen in a thread of its own: a libvirtd that accepts and never
 * answers would hold it forever, and no signal reaches it there. Whoever
 * finishes last (the opener or the waiter) frees it. */
struct opener {
	char *uri;
	virConnectPtr conn;
	char *err;
	bool done, abandoned;
	GMutex mu;
	GCond cond;
};

static void opener_free(struct opener *o)
{
	g_free(o->uri);
	g_free(o->err);
	g_mutex_clear(&o->mu);
	g_cond_clear(&o->cond);
	g_free(o);
}

static gpointer open_thread(gpointer data)
{
	struct opener *o = data;
	virConnectPtr c = virConnectOpen(o->uri);
	virErrorPtr e = c ? NULL : virGetLastError();
	bool abandoned;

	g_mutex_lock(&o->mu);
	o->conn = c;
	o->err = c ? NULL : g_strdup(e && e->message ? e->message : "unknown libvirt error");
	o->done = true;
	abandoned = o->abandoned;
	g_cond_signal(&o->cond);
	g_mutex_unlock(&o->mu);
	if (abandoned) {
		if (c)
			virConnectClose(c);
		opener_free(o);
	}
	return NULL;
}

static int connect_timeout_s(void)
{
	const char *e = getenv("LAB_CONNECT_TIMEOUT");
	int n;

	return e && lab_parse_count(e, 1, 3600, &n) == 0 ? n : LAB_CONNECT_TIMEOUT_S;
}

static virConnectPtr open_bounded(const char *uri)
{
	struct opener *o = g_new0(struct opener, 1);
	gint64 end = g_get_monotonic_time() + connect_timeout_s() * G_TIME_SPAN_SECOND;
	virConnectPtr c = NULL;
	bool done;

	o->uri = g_strdup(uri);
	g_mutex_init(&o->mu);
	g_cond_init(&o->cond);
	g_mutex_lock(&o->mu);
	g_thread_unref(g_thread_new("libvirt-open", open_thread, o));
	while (!o->done && !lab_interrupted && g_get_monotonic_time() < end)
		g_cond_wait_until(&o->cond, &o->mu, g_get_monotonic_time() +
				  G_TIME_SPAN_SECOND / 5);
	done = o->done;
	if (done) {
		c = o->conn;
		open_error = o->err ? g_strdup(o->err) : NULL;
	} else {
		o->abandoned = true;
		open_error = lab_interrupted
			? g_strdup("interrupted while connecting")
			: g_strdup_printf("libvirt at %s accepted the connection but did not "
					  "answer within %d s (LAB_CONNECT_TIMEOUT)", uri,
					  connect_timeout_s());
	}
	g_mutex_unlock(&o->mu);
	if (done)
		opener_free(o);
	return c;
}

virConnectPtr lab_virt_open(const char *uri)
{
	virConnectPtr c;

	virSetErrorFunc(NULL, quiet_libvirt);
	start_event_loop();
	g_clear_pointer(&open_error, g_free);
	c = open_bounded(uri);
	if (c) {
		g_clear_pointer(&open_error, g_free);
		/* A hung libvirtd is an error after about a minute instead of
		 * a lab that waits forever. Our ping must come after libvirtd's
		 * own (every 5 s of silence by default): libvirt 9.0's client
		 * sends it from the event thread, which ends the wait of the
		 * thread in a call without removing that wait's watch; once
		 * the call returns, the watch fires into a dead stack frame
		 * (SIGSEGV in g_main_loop_quit). Over qemu+libssh a reply can
		 * sit unread until the next packet arrives; libvirtd's ping is
		 * that packet and wakes the wait the normal way. */
		virConnectSetKeepAlive(c, LAB_KEEPALIVE_S, 3);
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
