/* place_saved.c - see place_saved.h. Only libvirt touches the host's
 * files: the save and restore by path (libvirtd opens them there), the
 * overlays and the marker as volumes. */
#include "store/place_saved.h"
#include "store/place.h"
#include "store/saved.h"
#include "store/store.h"
#include "util/util.h"
#include "virt/virt.h"

#include <string.h>
#include <unistd.h>

#define KEY_CHARS 16

char *lab_place_saved_name(const char *key, const char *guest,
			   const char *suffix)
{
	if (!guest)
		return g_strdup_printf("saved-%.*s", KEY_CHARS, key);
	return g_strdup_printf("saved-%.*s-%s%s", KEY_CHARS, key, guest,
			       suffix ? suffix : "");
}

char *lab_place_saved_path(struct lab_place *pl, const char *key,
			   const char *guest, const char *suffix)
{
	char *name = lab_place_saved_name(key, guest, suffix);
	char *p = g_build_filename(pl->dir, name, NULL);

	g_free(name);
	return p;
}

char *lab_place_saved_check(struct lab_place *pl, const char *key,
			    char **guests, bool *absent)
{
	char *base = lab_place_saved_name(key, NULL, NULL);
	char *ok = g_strconcat(base, ".ok", NULL), *why = NULL;

	*absent = false;
	lab_place_refresh(pl);
	if (!lab_store_has(pl->pool, ok)) {
		*absent = true;
		why = g_strdup_printf("no complete saved state %s on host %s", base,
				      pl->host);
	}
	for (; !why && *guests; guests++) {
		char *st = lab_place_saved_name(key, *guests, ".state");
		char *root = lab_place_saved_name(key, *guests, "-root.qcow2");

		if (!lab_store_has(pl->pool, st) || !lab_store_has(pl->pool, root))
			why = g_strdup_printf("saved state %s on host %s lacks %s's volumes",
					      base, pl->host, *guests);
		g_free(st);
		g_free(root);
	}
	g_free(base);
	g_free(ok);
	return why;
}

void lab_place_saved_discard(struct lab_place *pl, const char *key,
			     const char *why)
{
	char *base = lab_place_saved_name(key, NULL, NULL);
	char *ok = g_strconcat(base, ".ok", NULL);
	char *prefix = g_strconcat(base, "-", NULL);
	virStorageVolPtr *vols = NULL;
	int i, n;

	lab_store_drop(pl->pool, ok); /* first: a half-deleted state is absent */
	lab_place_refresh(pl);
	n = virStoragePoolListAllVolumes(pl->pool, &vols, 0);
	for (i = 0; i < n; i++) {
		if (g_str_has_prefix(virStorageVolGetName(vols[i]), prefix))
			virStorageVolDelete(vols[i], 0);
		virStorageVolFree(vols[i]);
	}
	free(vols);
	if (why && n >= 0)
		lab_info("host %s: discarded saved state %s: %s", pl->host, base, why);
	g_free(base);
	g_free(ok);
	g_free(prefix);
}

/* Put the guests back as they were after a failed save: those saved
 * (0..saved-1) are restored from their state, the others resumed. */
static void save_rollback(struct lab_place *pl, virConnectPtr c, const char *key,
			  struct lab_saved_guest *gs, guint n, guint saved)
{
	guint i;

	for (i = 0; i < n; i++) {
		char *st = lab_place_saved_path(pl, key, gs[i].guest, ".state");
		virDomainPtr d;

		if (i < saved) {
			if (!lab_interrupted &&
			    virDomainRestoreFlags(c, st, NULL, VIR_DOMAIN_SAVE_RUNNING) != 0)
				lab_err("cannot restore %s after a failed save: %s",
					gs[i].guest, lab_virt_error());
		} else if ((d = virDomainLookupByName(c, gs[i].domain))) {
			virDomainResume(d);
			virDomainFree(d);
		}
		g_free(st);
	}
	for (i = 0; i < saved; i++) {
		char *st = lab_place_saved_name(key, gs[i].guest, ".state");

		lab_place_refresh(pl);
		lab_store_drop(pl->pool, st);
		g_free(st);
	}
}

static int save_one(struct lab_place *pl, virConnectPtr c, const char *key,
		    const struct lab_saved_guest *g)
{
	virDomainPtr d = virDomainLookupByName(c, g->domain);
	char *st = lab_place_saved_path(pl, key, g->guest, ".state");
	int rc = d ? virDomainSaveFlags(d, st, NULL, VIR_DOMAIN_SAVE_RUNNING) : -1;

	if (rc != 0)
		lab_err("host %s: cannot save %s (%s): %s", pl->host, g->guest, st,
			lab_virt_error());
	if (d)
		virDomainFree(d);
	g_free(st);
	return rc;
}

int lab_place_saved_save(struct lab_place *pl, virConnectPtr c,
			 const char *key, struct lab_saved_guest *gs, guint n)
{
	char *base = lab_place_saved_name(key, NULL, NULL);
	guint saved = 0;
	int rc = -1;

	if (lab_saved_pause_all(c, gs, n) < (int)n) {
		save_rollback(pl, c, key, gs, n, 0);
		goto out;
	}
	for (; saved < n && !lab_interrupted; saved++)
		if (save_one(pl, c, key, &gs[saved]) != 0)
			break;
	/* the state files appear as volumes once the pool looks again */
	if (saved < n || lab_interrupted || lab_place_refresh(pl) != 0 ||
	    lab_store_mark(pl->pool, base) != 0) {
		save_rollback(pl, c, key, gs, n, saved);
		goto out;
	}
	rc = 0;
out:
	g_free(base);
	return rc;
}

static int own_over_frozen(struct lab_place *pl, const char *key,
			   const struct lab_saved_guest *g)
{
	char *root = lab_place_saved_path(pl, key, g->guest, "-root.qcow2");
	int rc = lab_place_qcow2(pl, g->f->overlay, root, 0);
	guint i;

	for (i = 0; rc == 0 && g->f->scratch && i < g->f->scratch->len &&
		    g_ptr_array_index(g->f->scratch, i); i++) {
		char *suffix = g_strdup_printf("-disk%u.qcow2", i);
		char *frozen = lab_place_saved_path(pl, key, g->guest, suffix);

		rc = lab_place_qcow2(pl, g_ptr_array_index(g->f->scratch, i), frozen, 0);
		g_free(frozen);
		g_free(suffix);
	}
	g_free(root);
	return rc;
}

int lab_place_saved_restore(struct lab_place *pl, virConnectPtr c,
			    const char *key, const struct lab_saved_guest *g)
{
	char *st = lab_place_saved_path(pl, key, g->guest, ".state");
	char *xml = NULL;
	int rc = -1;

	if (own_over_frozen(pl, key, g) != 0 ||
	    !(xml = lab_saved_xml_for(c, st, g->xml)))
		goto out;
	if (virDomainRestoreFlags(c, st, xml, VIR_DOMAIN_SAVE_RUNNING) != 0) {
		lab_err("host %s: cannot restore %s from %s: %s", pl->host, g->guest,
			st, lab_virt_error());
		goto out;
	}
	rc = 0;
out:
	g_free(st);
	g_free(xml);
	return rc;
}
