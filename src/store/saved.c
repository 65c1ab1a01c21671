/* saved.c - see saved.h. Only libvirt touches the host's files: the save
 * and restore by path (libvirtd opens them there), the overlays and the
 * manifest as volumes.
 *
 * Why virDomainSaveFlags and not snapshots: internal snapshots need every
 * disk in qcow2 (the seed and tests disks are raw ISO images) and keep the
 * memory inside the guest's own overlay, which each restore must not
 * write; external snapshots with memory also freeze the disk by starting a
 * new overlay, but libvirt 9.0 cannot revert to them. A save file plus a
 * frozen overlay is the same pair of files, restorable any number of times,
 * each time under a new overlay. libvirt checks on restore that the name,
 * UUID and MACs match the saved domain: the MACs are the topology's, the
 * same in every instance (each has its own isolated network), and another
 * instance restores from a copy whose head names its domain. */
#include "store/saved.h"
#include "store/save_image.h"
#include "store/store.h"
#include "util/util.h"
#include "virt/conn.h"
#include "virt/domxml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KEY_CHARS 16

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
	return lab_hash_finish(h, KEY_CHARS);
}

char *lab_saved_key_xml(const struct lab_domain_spec *s, const char *guest,
			const char *network)
{
	struct lab_domain_spec k = *s;
	GPtrArray *disks = g_ptr_array_new_with_free_func(g_free);
	char *xml;
	guint i;

	k.name = guest;
	k.network = network;
	k.root_disk = "root";
	k.console_log = "console";
	k.tests_iso = s->tests_iso ? "tests" : NULL;
	k.owner = NULL;
	for (i = 0; s->scratch_disks && s->scratch_disks[i]; i++)
		g_ptr_array_add(disks, g_strdup_printf("disk%u", i));
	g_ptr_array_add(disks, NULL);
	k.scratch_disks = (const char *const *)disks->pdata;
	xml = lab_domain_xml(&k);
	g_ptr_array_free(disks, TRUE);
	return xml;
}

char *lab_saved_versions(virConnectPtr c, const char *domain_type)
{
	unsigned long hv = 0, lib = 0;

	virConnectGetVersion(c, &hv);
	virConnectGetLibVersion(c, &lib);
	return g_strdup_printf("libvirt %lu qemu %lu type %s", lib, hv,
			       domain_type);
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

char *lab_saved_name(const char *key, const char *guest, const char *suffix)
{
	if (!guest)
		return g_strdup_printf("saved-%.*s%s", KEY_CHARS, key,
				       suffix ? suffix : "");
	return g_strdup_printf("saved-%.*s-%s%s", KEY_CHARS, key, guest,
			       suffix ? suffix : "");
}

char *lab_saved_use_text(const char *key)
{
	return g_strdup_printf("saved=%.*s\n", KEY_CHARS, key);
}

static char *saved_path(struct lab_store *st, const char *key,
			const char *guest, const char *suffix)
{
	char *name = lab_saved_name(key, guest, suffix);
	char *p = lab_store_path(st, name);

	g_free(name);
	return p;
}

static char *disk_suffix(guint i)
{
	return g_strdup_printf("-disk%u.qcow2", i);
}

/* ---- check ---- */

static char *check_guest(GKeyFile *kf, const char *key, const char *guest,
			 lab_saved_facts_fn facts, void *arg)
{
	char *grp = g_strdup_printf("guest %s", guest), *why = NULL, *name;
	gint64 want = g_key_file_get_int64(kf, grp, "state-size", NULL);
	char *mtime = g_key_file_get_string(kf, grp, "state-mtime", NULL);
	char *header = g_key_file_get_string(kf, grp, "state-header", NULL);
	int n = g_key_file_get_integer(kf, grp, "disks", NULL), i;
	struct lab_saved_facts f;

	if (!g_key_file_has_group(kf, grp)) {
		why = g_strdup_printf("guest %s is not in its manifest", guest);
		goto out;
	}
	name = lab_saved_name(key, guest, ".state");
	memset(&f, 0, sizeof(f));
	if (!facts(arg, name, &f) || f.size != want)
		why = g_strdup_printf("%s is %" G_GINT64_FORMAT " bytes, the manifest says %"
				      G_GINT64_FORMAT " (truncated or replaced)",
				      name, f.size, want);
	else if (!mtime || strcmp(mtime, f.mtime))
		why = g_strdup_printf("%s was written again since the save (mtime %s, the "
				      "manifest says %s)", name, f.mtime, mtime ? mtime : "?");
	else if (!header || strcmp(header, f.header))
		why = g_strdup_printf("%s holds another domain than the one saved "
				      "(its libvirt header differs)", name);
	g_free(name);
	for (i = -1; !why && i < n; i++) {
		char *suffix = i < 0 ? g_strdup("-root.qcow2") : disk_suffix((guint)i);
		struct lab_saved_facts d = { 0 };

		name = lab_saved_name(key, guest, suffix);
		if (!facts(arg, name, &d))
			why = g_strdup_printf("frozen disk %s is missing", name);
		g_free(name);
		g_free(suffix);
	}
out:
	g_free(mtime);
	g_free(header);
	g_free(grp);
	return why;
}

char *lab_saved_check_manifest(const char *manifest, const char *key,
			       char **guests, lab_saved_facts_fn facts, void *arg)
{
	GKeyFile *kf = g_key_file_new();
	char *why = NULL, *format = NULL;
	GError *e = NULL;

	if (!g_key_file_load_from_data(kf, manifest, -1, G_KEY_FILE_NONE, &e)) {
		why = g_strdup_printf("its manifest is not readable: %s", e->message);
		g_error_free(e);
	} else if (!(format = g_key_file_get_string(kf, "saved", "format", NULL)) ||
		   strcmp(format, LAB_SAVED_FORMAT) != 0) {
		why = g_strdup_printf("its manifest says format %s, this lab writes %s",
				      format ? format : "(none)", LAB_SAVED_FORMAT);
	}
	for (; !why && guests && *guests; guests++)
		why = check_guest(kf, key, *guests, facts, arg);
	g_free(format);
	g_key_file_free(kf);
	return why;
}

/* What the store says of a volume: size, mtime, and for a state file a
 * hash of the libvirt header it carries (the domain it restores). */
static bool store_facts(void *arg, const char *name, struct lab_saved_facts *f)
{
	struct lab_store *st = arg;
	virStorageVolPtr v = virStorageVolLookupByName(st->pool, name);
	virStorageVolInfo vi;
	char *xml, *m, *path, *desc;

	memset(f, 0, sizeof(*f));
	f->size = -1;
	if (!v)
		return false;
	if (virStorageVolGetInfo(v, &vi) == 0)
		f->size = (gint64)vi.capacity;
	xml = virStorageVolGetXMLDesc(v, 0);
	if (xml && (m = strstr(xml, "<mtime>")))
		g_strlcpy(f->mtime, m + 7, MIN(sizeof(f->mtime), strcspn(m + 7, "<") + 1));
	free(xml);
	if (g_str_has_suffix(name, ".state")) {
		path = lab_store_path(st, name);
		desc = virDomainSaveImageGetXMLDesc(virStoragePoolGetConnect(st->pool), path, 0);
		if (desc) {
			char *h = g_compute_checksum_for_string(G_CHECKSUM_SHA256, desc, -1);

			g_strlcpy(f->header, h, sizeof(f->header));
			g_free(h);
		}
		free(desc);
		g_free(path);
	}
	virStorageVolFree(v);
	return true;
}

/* The manifest's text, or NULL when there is none. */
static char *read_manifest(struct lab_store *st, const char *key)
{
	char *ok = lab_saved_name(key, NULL, ".ok");
	char *tmp = lab_path("saved-manifest.tmp"), *local, *text = NULL;

	local = g_strdup_printf("%s-%d-%p", tmp, (int)getpid(), (void *)g_thread_self());
	if (lab_store_has(st, ok) && lab_store_fetch(st, ok, local) == 0 &&
	    !g_file_get_contents(local, &text, NULL, NULL))
		text = NULL;
	unlink(local);
	g_free(local);
	g_free(tmp);
	g_free(ok);
	return text;
}

char *lab_saved_check(struct lab_store *st, const char *key, char **guests,
		      bool *absent)
{
	char *base = lab_saved_name(key, NULL, NULL), *manifest, *why, *in;

	*absent = false;
	lab_store_refresh(st);
	if (!(manifest = read_manifest(st, key))) {
		*absent = true;
		why = g_strdup_printf("no complete saved state %s on host %s", base,
				      st->host);
		g_free(base);
		return why;
	}
	in = lab_saved_check_manifest(manifest, key, guests, store_facts, st);
	why = in ? g_strdup_printf("saved state %s on host %s: %s", base, st->host, in)
		 : NULL;
	g_free(in);
	g_free(manifest);
	g_free(base);
	return why;
}

void lab_saved_discard(struct lab_store *st, const char *key, const char *why)
{
	char *base = lab_saved_name(key, NULL, NULL);
	char *ok = lab_saved_name(key, NULL, ".ok");
	GPtrArray *vols;
	guint i;

	lab_store_drop(st, ok); /* first: a half-deleted state is absent */
	vols = lab_store_list(st, base);
	for (i = 0; i < vols->len; i++)
		lab_store_drop(st, ((struct lab_store_vol *)g_ptr_array_index(vols, i))->name);
	if (why && vols->len)
		lab_info("host %s: discarded saved state %s: %s", st->host, base, why);
	g_ptr_array_free(vols, TRUE);
	g_free(base);
	g_free(ok);
}

/* ---- save ---- */

/* Put the guests back as they were after a failed save: those saved
 * (0..saved-1) are restored from their state, the others resumed; the
 * state files go. */
static void save_rollback(struct lab_store *st, virConnectPtr c, const char *key,
			  struct lab_saved_guest *gs, guint n, guint saved)
{
	guint i;

	for (i = 0; i < n; i++) {
		char *state = saved_path(st, key, gs[i].guest, ".state");
		virDomainPtr d;

		if (i < saved) {
			if (!lab_interrupted &&
			    virDomainRestoreFlags(c, state, NULL, VIR_DOMAIN_SAVE_RUNNING) != 0)
				lab_err("cannot restore %s after a failed save: %s",
					gs[i].guest, lab_virt_error());
		} else if ((d = virDomainLookupByName(c, gs[i].domain))) {
			virDomainResume(d);
			virDomainFree(d);
		}
		g_free(state);
	}
	lab_store_refresh(st);
	for (i = 0; i < saved; i++) {
		char *name = lab_saved_name(key, gs[i].guest, ".state");

		lab_store_drop(st, name);
		g_free(name);
	}
}

static int pause_all(virConnectPtr c, struct lab_saved_guest *gs, guint n)
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
			return -1;
		}
	}
	return 0;
}

static int save_one(struct lab_store *st, virConnectPtr c, const char *key,
		    const struct lab_saved_guest *g)
{
	virDomainPtr d = virDomainLookupByName(c, g->domain);
	char *state = saved_path(st, key, g->guest, ".state");
	int rc = d ? virDomainSaveFlags(d, state, NULL, VIR_DOMAIN_SAVE_RUNNING) : -1;

	if (rc != 0)
		lab_err("host %s: cannot save %s (%s): %s", st->host, g->guest, state,
			lab_virt_error());
	if (d)
		virDomainFree(d);
	g_free(state);
	return rc;
}

static guint n_disks(const struct lab_saved_guest *g)
{
	guint n = 0;

	while (g->disks && g->disks[n])
		n++;
	return n;
}

/* The manifest, written last: what a later check compares against. */
static int write_manifest(struct lab_store *st, const char *key,
			  const char *topology, struct lab_saved_guest *gs, guint n)
{
	GKeyFile *kf = g_key_file_new();
	char *ok = lab_saved_name(key, NULL, ".ok");
	char *local = g_strdup_printf("%s/saved-manifest.tmp-%d", lab_home(), (int)getpid());
	gchar *data;
	gsize len;
	guint i;
	int rc;

	g_key_file_set_string(kf, "saved", "format", LAB_SAVED_FORMAT);
	g_key_file_set_string(kf, "saved", "topology", topology);
	g_key_file_set_int64(kf, "saved", "created", (gint64)time(NULL));
	for (i = 0; i < n; i++) {
		char *grp = g_strdup_printf("guest %s", gs[i].guest);
		char *state = lab_saved_name(key, gs[i].guest, ".state");

		struct lab_saved_facts f;

		store_facts(st, state, &f);
		g_key_file_set_string(kf, grp, "domain", gs[i].domain);
		g_key_file_set_int64(kf, grp, "state-size", f.size);
		g_key_file_set_string(kf, grp, "state-mtime", f.mtime);
		g_key_file_set_string(kf, grp, "state-header", f.header);
		g_key_file_set_integer(kf, grp, "disks", (int)n_disks(&gs[i]));
		g_key_file_set_double(kf, grp, "boot-seconds", gs[i].boot_s);
		g_free(grp);
		g_free(state);
	}
	data = g_key_file_to_data(kf, &len, NULL);
	rc = lab_write_file(local, data, (gssize)len) == 0 &&
	     lab_store_put(st, local, ok) == 0 ? 0 : -1;
	unlink(local);
	g_free(data);
	g_free(local);
	g_free(ok);
	g_key_file_free(kf);
	return rc;
}

int lab_saved_save(struct lab_store *st, virConnectPtr c, const char *key,
		   const char *topology, struct lab_saved_guest *gs, guint n)
{
	guint saved = 0;

	if (pause_all(c, gs, n) != 0) {
		save_rollback(st, c, key, gs, n, 0);
		return -1;
	}
	for (; saved < n && !lab_interrupted; saved++)
		if (save_one(st, c, key, &gs[saved]) != 0)
			break;
	/* the state files appear as volumes once the pool looks again */
	if (saved < n || lab_interrupted || lab_store_refresh(st) != 0 ||
	    write_manifest(st, key, topology, gs, n) != 0) {
		save_rollback(st, c, key, gs, n, saved);
		return -1;
	}
	lab_saved_touch(st, key);
	return 0;
}

/* ---- restore ---- */

/* XML with <uuid>UUID</uuid> after its <name>. */
static char *with_uuid(const char *xml, const char *uuid)
{
	const char *name_end = strstr(xml, "</name>");

	if (!name_end)
		return NULL;
	return g_strdup_printf("%.*s<uuid>%s</uuid>%s", (int)(name_end + 7 - xml), xml,
			       uuid, name_end + 7);
}

/* Volume COPY: state file STATE with a head that names DOMAIN with UUID
 * (save_image.h), the stream copied by the host. */
static int renamed_copy(struct lab_store *st, const char *state, const char *copy,
			const char *domain, const char *uuid)
{
	gsize got = 0, len;
	guchar *head = lab_store_read(st, state, 0, LAB_SAVE_IMAGE_HEAD, &got);
	char *why = NULL;
	int rc = -1;

	if (!head)
		return -1;
	if ((len = lab_save_image_head_len(head, got, &why))) {
		g_free(head);
		if (!(head = lab_store_read(st, state, 0, len, &got)))
			return -1;
		why = lab_save_image_rename(head, got, domain, uuid);
	}
	if (why)
		lab_err("host %s: %s: %s", st->host, state, why);
	else if (lab_store_clone(st, state, copy) == 0 &&
		 lab_store_overwrite(st, copy, head, len) == 0)
		rc = 0;
	g_free(why);
	g_free(head);
	return rc;
}

/* Where G restores from and the XML it restores with: the state file
 * itself when it holds G's domain (the instance that saved it), else a
 * renamed copy, its own volume, under a new UUID. */
static int restore_source(struct lab_store *st, virConnectPtr c, const char *key,
			  const struct lab_saved_guest *g, char **from, char **xml)
{
	char *state = lab_saved_name(key, g->guest, ".state");
	char *path = lab_store_path(st, state);
	char *saved = virDomainSaveImageGetXMLDesc(c, path, 0);
	char *name = lab_save_image_text(saved, "name");
	char *uuid = lab_save_image_text(saved, "uuid");
	int rc = -1;

	if (!name || !uuid) {
		lab_err("%s: no readable libvirt header (%s)", path,
			saved ? "no <name> or <uuid>" : lab_virt_error());
	} else if (!strcmp(name, g->domain)) {
		*from = g_strdup(path);
		rc = 0;
	} else {
		g_free(uuid);
		uuid = g_uuid_string_random();
		if (renamed_copy(st, state, g->copy, g->domain, uuid) == 0) {
			*from = lab_store_path(st, g->copy);
			rc = 0;
		}
	}
	if (rc == 0 && !(*xml = with_uuid(g->xml, uuid))) {
		lab_err("the XML of %s names no domain", g->guest);
		rc = -1;
	}
	free(saved);
	g_free(name);
	g_free(uuid);
	g_free(state);
	g_free(path);
	return rc;
}

static int own_over_frozen(struct lab_store *st, const char *key,
			   const struct lab_saved_guest *g)
{
	char *root = saved_path(st, key, g->guest, "-root.qcow2");
	int rc = lab_store_qcow2(st, g->root, root, 0);
	guint i;

	for (i = 0; rc == 0 && i < n_disks(g); i++) {
		char *suffix = disk_suffix(i);
		char *frozen = saved_path(st, key, g->guest, suffix);

		rc = lab_store_qcow2(st, g->disks[i], frozen, 0);
		g_free(frozen);
		g_free(suffix);
	}
	g_free(root);
	return rc;
}

int lab_saved_restore(struct lab_store *st, virConnectPtr c, const char *key,
		      const struct lab_saved_guest *g)
{
	char *from = NULL, *xml = NULL;
	int rc = -1;

	if (own_over_frozen(st, key, g) != 0 ||
	    restore_source(st, c, key, g, &from, &xml) != 0)
		goto out;
	if (virDomainRestoreFlags(c, from, xml, VIR_DOMAIN_SAVE_RUNNING) != 0) {
		lab_err("host %s: cannot restore %s from %s: %s", st->host, g->guest,
			from, lab_virt_error());
		goto out;
	}
	rc = 0;
out:
	/* QEMU has read the whole stream when the restore returns */
	if (g->copy)
		lab_store_drop(st, g->copy);
	g_free(from);
	g_free(xml);
	return rc;
}

void lab_saved_touch(struct lab_store *st, const char *key)
{
	char *used = lab_saved_name(key, NULL, ".used");

	lab_store_touch(st, used);
	g_free(used);
}

/* ---- the cap ---- */

static void entry_free(gpointer p)
{
	struct lab_saved_entry *e = p;

	g_free(e->key);
	g_free(e);
}

static struct lab_saved_entry *entry_of(GPtrArray *out, const char *key)
{
	struct lab_saved_entry *e;
	guint i;

	for (i = 0; i < out->len; i++) {
		e = g_ptr_array_index(out, i);
		if (!strcmp(e->key, key))
			return e;
	}
	e = g_new0(struct lab_saved_entry, 1);
	e->key = g_strdup(key);
	g_ptr_array_add(out, e);
	return e;
}

GPtrArray *lab_saved_list(struct lab_store *st, lab_in_use_fn in_use)
{
	GPtrArray *vols = lab_store_list(st, "saved-");
	GPtrArray *out = g_ptr_array_new_with_free_func(entry_free);
	guint i;

	for (i = 0; i < vols->len; i++) {
		const struct lab_store_vol *v = g_ptr_array_index(vols, i);
		const char *rest = v->name + strlen("saved-");
		char *key;
		struct lab_saved_entry *e;

		if (strlen(rest) < KEY_CHARS)
			continue;
		key = g_strndup(rest, KEY_CHARS);
		e = entry_of(out, key);
		e->bytes += v->bytes;
		if (!strcmp(rest + KEY_CHARS, ".ok"))
			e->complete = true;
		/* the last use is .used's time, else the manifest's */
		if (!strcmp(rest + KEY_CHARS, ".used") ||
		    (!strcmp(rest + KEY_CHARS, ".ok") && !e->used))
			e->used = MAX(e->used, v->mtime);
		g_free(key);
	}
	for (i = 0; i < out->len && in_use; i++) {
		struct lab_saved_entry *e = g_ptr_array_index(out, i);
		char *text = lab_saved_use_text(e->key);

		e->in_use = in_use(text);
		g_free(text);
	}
	g_ptr_array_free(vols, TRUE);
	return out;
}

GArray *lab_saved_over_cap(GPtrArray *entries, long cap_mib, const char *keep)
{
	GArray *out = g_array_new(FALSE, FALSE, sizeof(guint));
	unsigned long long total = 0, cap = (unsigned long long)cap_mib << 20;
	guint i;

	for (i = 0; i < entries->len; i++)
		total += ((struct lab_saved_entry *)g_ptr_array_index(entries, i))->bytes;
	while (total > cap) {
		const struct lab_saved_entry *best = NULL;
		guint bi = 0, j;

		for (i = 0; i < entries->len; i++) {
			const struct lab_saved_entry *e = g_ptr_array_index(entries, i);
			bool taken = false;

			for (j = 0; j < out->len; j++)
				taken |= g_array_index(out, guint, j) == i;
			if (taken || !e->complete || e->in_use ||
			    (keep && !strncmp(e->key, keep, KEY_CHARS)))
				continue;
			if (!best || e->used < best->used) {
				best = e;
				bi = i;
			}
		}
		if (!best)
			break;
		g_array_append_val(out, bi);
		total -= best->bytes;
	}
	return out;
}

void lab_saved_enforce_cap(struct lab_store *st, const char *keep,
			   lab_in_use_fn in_use)
{
	GPtrArray *all = lab_saved_list(st, in_use);
	GArray *evict = lab_saved_over_cap(all, lab_saved_cap_mib(), keep);
	guint i;

	for (i = 0; i < evict->len; i++) {
		const struct lab_saved_entry *e =
			g_ptr_array_index(all, g_array_index(evict, guint, i));

		lab_saved_discard(st, e->key, "over the saved-state cap (LAB_SAVED_MAX_MB)");
	}
	g_array_free(evict, TRUE);
	g_ptr_array_free(all, TRUE);
}
