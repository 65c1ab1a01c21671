/* saved.c - see saved.h.
 *
 * Why virDomainSaveFlags and not snapshots: internal snapshots need every
 * disk in qcow2 (the seed and tests disks are raw ISO images) and keep the
 * memory inside the guest's own overlay, which each restore must not
 * write; external snapshots with memory also freeze the disk by starting a
 * new overlay, but libvirt 9.0 cannot revert to them. A save file plus a
 * frozen overlay is the same pair of files, restorable any number of times,
 * each time under a new overlay. libvirt checks on restore that the name
 * and UUID match the saved domain, so a saved state belongs to one
 * instance (its domain names): the instance is part of the key through the
 * domain XML. */
#include "store/saved.h"
#include "build/image.h"
#include "guests/instance.h"
#include "util/util.h"
#include "virt/virt.h"

#include <errno.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *lab_saved_key(const char *versions, const char *image,
		    const char *networks, const struct lab_saved_input *guests,
		    guint n)
{
	lab_hash *h = lab_hash_new();
	guint i;

	lab_hash_str(h, LAB_SAVED_FORMAT);
	lab_hash_str(h, versions ? versions : "");
	lab_hash_str(h, image ? image : "");
	lab_hash_str(h, networks ? networks : "");
	for (i = 0; i < n; i++) {
		lab_hash_str(h, guests[i].guest);
		lab_hash_str(h, guests[i].domain_xml);
		lab_hash_str(h, guests[i].user_data);
		lab_hash_str(h, guests[i].meta_data);
	}
	return lab_hash_finish(h, 16);
}

char *lab_saved_versions(virConnectPtr c, const char *domain_type)
{
	unsigned long hv = 0, lib = 0;

	virConnectGetVersion(c, &hv);
	virConnectGetLibVersion(c, &lib);
	return g_strdup_printf("libvirt %lu qemu %lu type %s", lib, hv,
			       domain_type);
}

char *lab_saved_dir(const char *key)
{
	char *rel = g_build_filename("saved", key, NULL);
	char *dir = lab_path(rel);

	g_free(rel);
	return dir;
}

long lab_saved_cap_mib(void)
{
	const char *e = getenv("LAB_SAVED_MAX_MB");
	char *end;
	long v;

	if (!e || !*e)
		return LAB_SAVED_MAX_MB_DEFAULT;
	v = strtol(e, &end, 10);
	if (*end || v < 0) {
		lab_err("LAB_SAVED_MAX_MB='%s' is not a number of MiB; using %d",
			e, LAB_SAVED_MAX_MB_DEFAULT);
		return LAB_SAVED_MAX_MB_DEFAULT;
	}
	return v;
}

static char *gfile(const char *dir, const char *guest, const char *suffix)
{
	char *base = g_strconcat(guest, suffix, NULL);
	char *p = g_build_filename(dir, base, NULL);

	g_free(base);
	return p;
}

static char *disk_suffix(guint i)
{
	return g_strdup_printf("-disk%u.qcow2", i);
}

static goffset file_size(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 ? (goffset)st.st_size : -1;
}

/* ---- check ---- */

static char *check_guest(GKeyFile *kf, const char *dir, const char *guest)
{
	char *grp = g_strdup_printf("guest %s", guest);
	char *state = gfile(dir, guest, ".state");
	char *why = NULL;
	gint64 want = g_key_file_get_int64(kf, grp, "state-size", NULL);
	int n = g_key_file_get_integer(kf, grp, "scratch", NULL), i;
	const char *const parts[] = { "-root.qcow2", "-seed.iso" };

	if (!g_key_file_has_group(kf, grp))
		why = g_strdup_printf("guest %s is not in its manifest", guest);
	else if (file_size(state) != want)
		why = g_strdup_printf("%s is %" G_GINT64_FORMAT " bytes, the manifest says %"
				      G_GINT64_FORMAT " (truncated or replaced)",
				      state, (gint64)file_size(state), want);
	for (i = 0; !why && i < (int)G_N_ELEMENTS(parts); i++) {
		char *p = gfile(dir, guest, parts[i]);

		if (!lab_exists(p))
			why = g_strdup_printf("%s is missing", p);
		g_free(p);
	}
	for (i = 0; !why && i < n; i++) {
		char *suffix = disk_suffix((guint)i);
		char *p = gfile(dir, guest, suffix);

		if (!lab_exists(p))
			why = g_strdup_printf("frozen disk %s is missing", p);
		g_free(p);
		g_free(suffix);
	}
	g_free(grp);
	g_free(state);
	return why;
}

char *lab_saved_check(const char *dir, char **guests, bool *absent)
{
	char *manifest = g_build_filename(dir, "manifest.ini", NULL);
	GKeyFile *kf = g_key_file_new();
	char *why = NULL, *format = NULL;
	GError *e = NULL;

	*absent = false;
	if (!lab_exists(dir)) {
		*absent = true;
		why = g_strdup("nothing saved yet");
	} else if (!g_key_file_load_from_file(kf, manifest, G_KEY_FILE_NONE, &e)) {
		why = g_strdup_printf("%s: %s", manifest, e->message);
		g_error_free(e);
	} else if (!(format = g_key_file_get_string(kf, "saved", "format", NULL)) ||
		   strcmp(format, LAB_SAVED_FORMAT) != 0) {
		why = g_strdup_printf("%s: format %s, this lab writes %s", manifest,
				      format ? format : "(none)", LAB_SAVED_FORMAT);
	}
	for (; !why && guests && *guests; guests++)
		why = check_guest(kf, dir, *guests);
	g_free(format);
	g_free(manifest);
	g_key_file_free(kf);
	return why;
}

void lab_saved_discard(const char *dir, const char *why)
{
	if (!lab_exists(dir))
		return;
	lab_info("saved state %s discarded: %s", dir, why);
	lab_rm_rf(dir);
}

/* ---- save ---- */

struct move {
	char *from, *to;
};

static int move_file(GArray *moves, const char *from, const char *to)
{
	struct move m;

	if (rename(from, to) != 0) {
		lab_err("cannot move %s to %s: %s", from, to, strerror(errno));
		return -1;
	}
	m.from = g_strdup(from);
	m.to = g_strdup(to);
	g_array_append_val(moves, m);
	return 0;
}

static void moves_undo(GArray *moves)
{
	guint i;

	for (i = moves->len; i-- > 0;) {
		struct move *m = &g_array_index(moves, struct move, i);

		if (rename(m->to, m->from) != 0)
			lab_err("cannot move %s back: %s", m->to, strerror(errno));
	}
}

static void moves_free(GArray *moves)
{
	guint i;

	for (i = 0; i < moves->len; i++) {
		g_free(g_array_index(moves, struct move, i).from);
		g_free(g_array_index(moves, struct move, i).to);
	}
	g_array_free(moves, TRUE);
}

static int copy_file(const char *from, const char *to)
{
	gchar *data = NULL;
	gsize len = 0;
	int rc;

	if (!g_file_get_contents(from, &data, &len, NULL)) {
		lab_err("cannot read %s", from);
		return -1;
	}
	rc = lab_write_file(to, data, (gssize)len);
	g_free(data);
	return rc;
}

/* Move a guest's disks into the saved state; the seed is copied (small). */
static int freeze_guest(const char *tmp, const struct lab_saved_guest *g,
			GArray *moves)
{
	char *root = gfile(tmp, g->guest, "-root.qcow2");
	char *seed = gfile(tmp, g->guest, "-seed.iso");
	int rc = move_file(moves, g->f->overlay, root);
	guint i;

	if (rc == 0)
		rc = copy_file(g->f->seed, seed);
	for (i = 0; rc == 0 && i < g->f->scratch->len &&
		    g_ptr_array_index(g->f->scratch, i); i++) {
		char *suffix = disk_suffix(i);
		char *p = gfile(tmp, g->guest, suffix);

		rc = move_file(moves, g_ptr_array_index(g->f->scratch, i), p);
		g_free(p);
		g_free(suffix);
	}
	g_free(root);
	g_free(seed);
	return rc;
}

static guint n_scratch(const struct lab_saved_guest *g)
{
	guint n = 0;

	while (n < g->f->scratch->len && g_ptr_array_index(g->f->scratch, n))
		n++;
	return n;
}

static int write_manifest(const char *tmp, const char *topology,
			  struct lab_saved_guest *gs, guint n)
{
	GKeyFile *kf = g_key_file_new();
	char *p = g_build_filename(tmp, "manifest.ini", NULL);
	gchar *data;
	gsize len;
	guint i;
	int rc;

	g_key_file_set_string(kf, "saved", "format", LAB_SAVED_FORMAT);
	g_key_file_set_string(kf, "saved", "topology", topology);
	g_key_file_set_int64(kf, "saved", "created", (gint64)time(NULL));
	for (i = 0; i < n; i++) {
		char *grp = g_strdup_printf("guest %s", gs[i].guest);
		char *state = gfile(tmp, gs[i].guest, ".state");

		g_key_file_set_string(kf, grp, "domain", gs[i].domain);
		g_key_file_set_int64(kf, grp, "state-size", (gint64)file_size(state));
		g_key_file_set_integer(kf, grp, "scratch", (int)n_scratch(&gs[i]));
		g_key_file_set_double(kf, grp, "boot-seconds", gs[i].boot_s);
		g_free(grp);
		g_free(state);
	}
	data = g_key_file_to_data(kf, &len, NULL);
	rc = lab_write_file(p, data, (gssize)len);
	g_free(data);
	g_free(p);
	g_key_file_free(kf);
	return rc;
}

/* Put guests back as they were: those saved (0..saved-1) are restored from
 * their state files over their own disks, the others only paused. */
static void save_rollback(virConnectPtr c, const char *tmp,
			  struct lab_saved_guest *gs, guint n, guint saved)
{
	guint i;

	for (i = 0; i < n; i++) {
		virDomainPtr d;

		if (i < saved) {
			char *state = gfile(tmp, gs[i].guest, ".state");

			if (!lab_interrupted &&
			    virDomainRestoreFlags(c, state, NULL, VIR_DOMAIN_SAVE_RUNNING) != 0)
				lab_err("cannot restore %s after a failed save: %s",
					gs[i].guest, lab_virt_error());
			g_free(state);
			continue;
		}
		d = virDomainLookupByName(c, gs[i].domain);
		if (d) {
			virDomainResume(d);
			virDomainFree(d);
		}
	}
	lab_rm_rf(tmp);
}

int lab_saved_pause_all(virConnectPtr c, struct lab_saved_guest *gs, guint n)
{
	guint i;

	for (i = 0; i < n; i++) {
		virDomainPtr d = virDomainLookupByName(c, gs[i].domain);
		int rc = d ? virDomainSuspend(d) : -1;

		if (d)
			virDomainFree(d);
		if (rc != 0) {
			lab_err("cannot pause %s to save it: %s", gs[i].guest,
				lab_virt_error());
			return (int)i;
		}
	}
	return (int)n;
}

static int save_one(virConnectPtr c, const char *tmp,
		    const struct lab_saved_guest *g)
{
	virDomainPtr d = virDomainLookupByName(c, g->domain);
	char *state = gfile(tmp, g->guest, ".state");
	int rc = d ? virDomainSaveFlags(d, state, NULL, VIR_DOMAIN_SAVE_RUNNING) : -1;

	if (rc != 0)
		lab_err("cannot save %s (%s): %s", g->guest, state, lab_virt_error());
	if (d)
		virDomainFree(d);
	g_free(state);
	return rc;
}

int lab_saved_save(virConnectPtr c, const char *dir, const char *topology,
		   struct lab_saved_guest *gs, guint n)
{
	char *tmp = g_strdup_printf("%s.tmp-%d", dir, (int)getpid());
	GArray *moves = g_array_new(FALSE, FALSE, sizeof(struct move));
	int paused, rc = -1;
	guint i, saved = 0;

	lab_rm_rf(tmp);
	if (lab_mkdir_p(tmp) != 0)
		goto out;
	paused = lab_saved_pause_all(c, gs, n);
	if (paused < (int)n) {
		save_rollback(c, tmp, gs, n, 0);
		goto out;
	}
	for (; saved < n && !lab_interrupted; saved++)
		if (save_one(c, tmp, &gs[saved]) != 0)
			break;
	for (i = 0; saved == n && i < n; i++)
		if (freeze_guest(tmp, &gs[i], moves) != 0)
			break;
	if (saved < n || i < n || lab_interrupted ||
	    write_manifest(tmp, topology, gs, n) != 0) {
		moves_undo(moves);
		save_rollback(c, tmp, gs, n, saved);
		goto out;
	}
	lab_rm_rf(dir);
	if (rename(tmp, dir) != 0) {
		lab_err("cannot commit %s: %s", dir, strerror(errno));
		moves_undo(moves);
		save_rollback(c, tmp, gs, n, n);
		goto out;
	}
	rc = 0;
	lab_saved_enforce_cap(dir);
out:
	moves_free(moves);
	g_free(tmp);
	return rc;
}

/* ---- restore ---- */

/* libvirt restores only under the saved name and UUID: take the UUID from
 * the save file's own XML and put it into ours. */
char *lab_saved_xml_for(virConnectPtr c, const char *state, const char *xml)
{
	char *saved = virDomainSaveImageGetXMLDesc(c, state, 0);
	const char *u = saved ? strstr(saved, "<uuid>") : NULL;
	const char *name_end = strstr(xml, "</name>");
	char *out = NULL;

	if (u && name_end && strstr(u, "</uuid>")) {
		char *uuid = g_strndup(u, strstr(u, "</uuid>") + 7 - u);

		out = g_strdup_printf("%.*s%s%s", (int)(name_end + 7 - xml), xml,
				      uuid, name_end + 7);
		g_free(uuid);
	} else {
		lab_err("%s: no readable libvirt header (%s)", state,
			saved ? "no <uuid>" : lab_virt_error());
	}
	free(saved);
	return out;
}

static int new_overlays(const char *dir, const struct lab_saved_guest *g)
{
	char *root = gfile(dir, g->guest, "-root.qcow2");
	char *seed = gfile(dir, g->guest, "-seed.iso");
	guint i;
	int rc;

	unlink(g->f->overlay);
	rc = lab_qcow2_create(g->f->overlay, root, 0);
	if (rc == 0)
		rc = copy_file(seed, g->f->seed);
	for (i = 0; rc == 0 && i < n_scratch(g); i++) {
		char *suffix = disk_suffix(i);
		char *frozen = gfile(dir, g->guest, suffix);
		const char *p = g_ptr_array_index(g->f->scratch, i);

		unlink(p);
		rc = lab_qcow2_create(p, frozen, 0);
		g_free(frozen);
		g_free(suffix);
	}
	g_free(root);
	g_free(seed);
	return rc;
}

int lab_saved_restore(virConnectPtr c, const char *dir,
		      const struct lab_saved_guest *g)
{
	char *state = gfile(dir, g->guest, ".state");
	char *used = g_build_filename(dir, "last-used", NULL);
	char *xml = NULL;
	int rc = -1;

	if (new_overlays(dir, g) != 0)
		goto out;
	if (!(xml = lab_saved_xml_for(c, state, g->xml)))
		goto out;
	if (virDomainRestoreFlags(c, state, xml, VIR_DOMAIN_SAVE_RUNNING) != 0) {
		lab_err("cannot restore %s from %s: %s", g->guest, state,
			lab_virt_error());
		goto out;
	}
	lab_write_file(used, "", 0); /* its mtime orders the cache's eviction */
	rc = 0;
out:
	g_free(state);
	g_free(used);
	g_free(xml);
	return rc;
}

/* ---- the cache's bound ---- */

bool lab_saved_in_use(const char *dir)
{
	char *needle = g_strdup_printf("saved-dir=%s\n", dir);
	bool used = lab_inst_any_uses(needle);

	g_free(needle);
	return used;
}

struct entry {
	char *dir;
	goffset bytes;
	gint64 used;
};

static gint by_use(gconstpointer a, gconstpointer b)
{
	const struct entry *x = a, *y = b;

	return (x->used > y->used) - (x->used < y->used);
}

void lab_saved_enforce_cap(const char *keep)
{
	long cap = lab_saved_cap_mib();
	char *root = lab_path("saved");
	GDir *d = g_dir_open(root, 0, NULL);
	GArray *all = g_array_new(FALSE, FALSE, sizeof(struct entry));
	goffset total = 0;
	const char *name;
	guint i;

	while (d && (name = g_dir_read_name(d))) {
		struct entry e;
		char *used;
		struct stat st;

		if (strstr(name, ".tmp-"))
			continue;
		e.dir = g_build_filename(root, name, NULL);
		e.bytes = lab_du(e.dir);
		used = g_build_filename(e.dir, "last-used", NULL);
		e.used = stat(used, &st) == 0 ? (gint64)st.st_mtime : 0;
		g_free(used);
		total += e.bytes;
		g_array_append_val(all, e);
	}
	g_array_sort(all, by_use);
	for (i = 0; i < all->len && total > (goffset)cap << 20; i++) {
		struct entry *e = &g_array_index(all, struct entry, i);

		if ((keep && strcmp(e->dir, keep) == 0) || lab_saved_in_use(e->dir))
			continue;
		lab_saved_discard(e->dir, "over the saved-state cap (LAB_SAVED_MAX_MB)");
		total -= e->bytes;
	}
	for (i = 0; i < all->len; i++)
		g_free(g_array_index(all, struct entry, i).dir);
	g_array_free(all, TRUE);
	if (d)
		g_dir_close(d);
	g_free(root);
}
