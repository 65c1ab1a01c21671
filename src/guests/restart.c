/* restart.c - see restart.h. */
#include "guests/restart.h"
#include "core/owner.h"
#include "guests/instance.h"
#include "guests/plan.h"
#include "guests/ready.h"
#include "guests/up.h"
#include "store/saved.h"
#include "store/store.h"
#include "util/util.h"
#include "virt/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct restart {
	char *domain, *console, *console_vol, *root, *xml, *image, *saved;
	char **disks;
};

static void restart_clear(struct restart *r)
{
	g_free(r->domain);
	g_free(r->console);
	g_free(r->console_vol);
	g_free(r->root);
	g_free(r->xml);
	g_free(r->image);
	g_free(r->saved);
	g_strfreev(r->disks);
}

static int restart_load(struct lab_inst *in, const char *guest, struct restart *r)
{
	char *base = g_strdup_printf("%s.xml", guest), *xmlp = lab_inst_file(in, base);
	char *grp = g_strdup_printf("guest %s", guest);
	int ok;

	r->domain = lab_inst_guest_get(in, guest, "domain");
	r->console = lab_inst_guest_get(in, guest, "console");
	r->console_vol = lab_inst_guest_get(in, guest, "console-vol");
	r->root = lab_inst_guest_get(in, guest, "root");
	g_mutex_lock(&in->mu);
	r->image = g_key_file_get_string(in->state, "instance", "image", NULL);
	r->saved = g_key_file_get_string(in->state, "instance", "saved", NULL);
	r->disks = g_key_file_get_string_list(in->state, grp, "disks", NULL, NULL);
	g_mutex_unlock(&in->mu);
	if (!r->disks)
		r->disks = g_new0(char *, 1);
	ok = r->domain && r->console && r->console_vol && r->root && r->image &&
	     g_file_get_contents(xmlp, &r->xml, NULL, NULL);
	if (!ok)
		lab_err("cannot restart %s: its state in %s is incomplete", guest, in->dir);
	g_free(base);
	g_free(xmlp);
	g_free(grp);
	return ok ? 0 : -1;
}

static int from_saved(struct lab_inst *in, const char *guest, struct restart *r)
{
	char *names[] = { (char *)guest, NULL }, *why, *copy;
	bool absent;
	int rc;

	if (!r->saved)
		return -1;
	if ((why = lab_saved_check(in->store, r->saved, names, &absent))) {
		lab_err("no saved state to restart %s from: %s", guest, why);
		g_free(why);
		return -1;
	}
	copy = lab_plan_copy_vol(guest);
	rc = lab_saved_restore(in->store, in->conn, r->saved,
			       &(struct lab_saved_guest){ guest, r->domain, r->xml, r->root,
							  r->disks, copy, 0 });
	g_free(copy);
	return rc == 0 ? lab_ready_settle(in->conn, guest, r->domain) : -1;
}

static int by_boot(struct lab_inst *in, const char *guest, struct restart *r,
		   int timeout_s)
{
	virDomainPtr d;

	if (lab_store_qcow2(in->store, r->root, r->image, 0) != 0)
		return -1;
	d = virDomainCreateXML(in->conn, r->xml, VIR_DOMAIN_NONE);
	if (!d) {
		lab_err("cannot restart guest %s: %s", guest, lab_virt_error());
		return -1;
	}
	virDomainFree(d);
	return lab_ready_wait(in->conn, r->domain, timeout_s);
}

/* The dead boot's console, whole, kept as SAVE_CONSOLE; the local copy
 * starts again with the next boot's follow. */
static void keep_console(struct lab_inst *in, struct restart *r,
			 const char *save_console)
{
	gchar *log = NULL;
	gsize len = 0;

	lab_store_follow(in->store, r->console_vol, r->console);
	if (g_file_get_contents(r->console, &log, &len, NULL))
		lab_write_file(save_console, log, (gssize)len);
	unlink(r->console);
	g_free(log);
}

static void record_restart(struct lab_inst *in, const char *guest, const char *boot)
{
	char *grp = g_strdup_printf("guest %s", guest);

	g_mutex_lock(&in->mu);
	g_key_file_set_string(in->state, grp, "boot", boot);
	g_key_file_set_int64(in->state, grp, "started", (gint64)time(NULL));
	g_mutex_unlock(&in->mu);
	lab_inst_save(in);
	g_free(grp);
}

int lab_guest_restart(struct lab_inst *in, const char *guest,
		      const char *save_console, int timeout_s)
{
	struct restart r = { 0 };
	double t0 = lab_now();
	int rc = -1;

	if (restart_load(in, guest, &r) != 0 ||
	    lab_inst_destroy_domain(in->conn, r.domain) != 0)
		goto out;
	keep_console(in, &r, save_console);
	if (from_saved(in, guest, &r) == 0) {
		lab_info("guest %-12s restored in %5.1f s", guest, lab_now() - t0);
		record_restart(in, guest, "restored");
		rc = 0;
		goto out;
	}
	lab_inst_destroy_domain(in->conn, r.domain);
	rc = by_boot(in, guest, &r, timeout_s);
	if (rc == 0)
		lab_info("guest %-12s rebooted in %5.1f s", guest, lab_now() - t0);
	else
		lab_ready_show_tail(in, guest);
	record_restart(in, guest, "booted");
out:
	restart_clear(&r);
	return rc;
}

int lab_guest_reset(struct lab_inst *in, const char *guest, const char *save_console)
{
	struct restart r = { 0 };
	virDomainPtr d = NULL;
	char *xml = NULL;
	int rc = -1;

	if (restart_load(in, guest, &r) != 0)
		goto out;
	/* its own definition as it runs (the disks it has now), not the boot
	 * XML: a restored guest runs on its copy of the saved disks */
	d = virDomainLookupByName(in->conn, r.domain);
	xml = d ? virDomainGetXMLDesc(d, VIR_DOMAIN_XML_INACTIVE) : NULL;
	if (d)
		virDomainFree(d);
	if (!xml || lab_inst_destroy_domain(in->conn, r.domain) != 0) {
		lab_err("cannot reset guest %s: %s", guest, lab_virt_error());
		goto out;
	}
	keep_console(in, &r, save_console);
	d = virDomainCreateXML(in->conn, xml, VIR_DOMAIN_NONE);
	if (!d) {
		lab_err("guest %s did not start again after its reset: %s", guest,
			lab_virt_error());
		goto out;
	}
	virDomainFree(d);
	record_restart(in, guest, "reset");
	rc = 0;
out:
	free(xml);
	restart_clear(&r);
	return rc;
}
