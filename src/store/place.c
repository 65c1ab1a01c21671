/* place.c - an instance's files on a host reached through libvirt: the
 * kernel, image and tests disk as content-named volumes of the host's lab
 * store, the instance's overlays, seeds and console logs as volumes named
 * after the instance, recorded in its state before they are created so
 * `lab down` removes exactly them. Every byte moves through the storage
 * API (upload, download); nothing is read or written on the host's paths
 * by lab itself. */
#include "store/place.h"
#include "guests/instance.h"
#include "store/store.h"
#include "util/util.h"
#include "virt/virt.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GRP "instance"
#define REFRESH_TRIES 20 /* a refresh waits for uploads and downloads */

/* One stream or refresh of this process at a time on a store: libvirt
 * refuses a pool refresh while any of its volumes streams. */
static GMutex io_lock;

static int refresh_locked(struct lab_place *pl)
{
	int i;

	for (i = 0; i < REFRESH_TRIES; i++) {
		if (virStoragePoolRefresh(pl->pool, 0) == 0)
			return 0;
		usleep(250000); /* another lab's upload on this store */
	}
	lab_err("host %s: cannot refresh the store: %s", pl->host, lab_virt_error());
	return -1;
}

int lab_place_refresh(struct lab_place *pl)
{
	int rc;

	g_mutex_lock(&io_lock);
	rc = refresh_locked(pl);
	g_mutex_unlock(&io_lock);
	return rc;
}

struct lab_place *lab_place_open(virConnectPtr c, const char *host,
				 const char *uri, const char *dir)
{
	virStoragePoolPtr pool = lab_store_pool(c, dir);
	struct lab_place *pl;

	if (!pool)
		return NULL;
	pl = g_new0(struct lab_place, 1);
	pl->pool = pool;
	pl->dir = g_strdup(dir);
	pl->host = g_strdup(host);
	pl->uri = g_strdup(uri);
	return pl;
}

struct lab_place *lab_place_of(struct lab_inst *in, int *err)
{
	char *dir = g_key_file_get_string(in->state, GRP, "store", NULL);
	char *host = g_key_file_get_string(in->state, GRP, "host", NULL);
	char *uri = g_key_file_get_string(in->state, GRP, "uri", NULL);
	struct lab_place *pl = NULL;

	*err = 0;
	if (dir && in->conn && !(pl = lab_place_open(in->conn, host, uri, dir)))
		*err = 1;
	g_free(dir);
	g_free(host);
	g_free(uri);
	return pl;
}

void lab_place_free(struct lab_place *pl)
{
	if (!pl)
		return;
	virStoragePoolFree(pl->pool);
	g_free(pl->dir);
	g_free(pl->host);
	g_free(pl->uri);
	g_free(pl);
}

char *lab_place_shared(struct lab_place *pl, const char *kind,
		       const char *local)
{
	struct lab_store_stats s = { 0 };
	char *name = lab_store_name(kind, local);
	char *path = NULL;

	if (lab_store_put(pl->pool, local, name, &s) == 0) {
		path = g_build_filename(pl->dir, name, NULL);
		if (s.uploaded)
			lab_info("host %s: uploaded %s: %.1f MiB in %.1f s", pl->host,
				 name, s.bytes / 1048576.0, s.seconds);
	}
	g_free(name);
	return path;
}

char *lab_place_own(struct lab_place *pl, struct lab_inst *in, const char *name)
{
	gsize n = 0;
	char **v = g_key_file_get_string_list(in->state, GRP, "volumes", &n, NULL);
	GPtrArray *a = g_ptr_array_new();

	for (gsize i = 0; i < n; i++)
		if (strcmp(v[i], name))
			g_ptr_array_add(a, v[i]);
	g_ptr_array_add(a, (char *)name);
	/* recorded first: if lab dies after the create, down still finds it */
	g_key_file_set_string_list(in->state, GRP, "volumes",
				   (const char *const *)a->pdata, a->len);
	g_ptr_array_free(a, TRUE);
	g_strfreev(v);
	if (lab_inst_save(in) != 0)
		return NULL;
	return g_build_filename(pl->dir, name, NULL);
}

int lab_place_disown(struct lab_inst *in, const char *name)
{
	gsize n = 0, i;
	char **v = g_key_file_get_string_list(in->state, GRP, "volumes", &n, NULL);
	GPtrArray *a = g_ptr_array_new();
	int rc;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], name))
			g_ptr_array_add(a, v[i]);
	g_key_file_set_string_list(in->state, GRP, "volumes",
				   (const char *const *)a->pdata, a->len);
	rc = lab_inst_save(in);
	g_ptr_array_free(a, TRUE);
	g_strfreev(v);
	return rc;
}

int lab_place_qcow2(struct lab_place *pl, const char *path, const char *backing,
		    int size_mib)
{
	char *name = g_path_get_basename(path), *head, *xml, *back = NULL;
	unsigned long long cap = (unsigned long long)size_mib << 20;
	virStorageVolPtr v, b;
	virStorageVolInfo bi;

	if (backing) {
		/* the overlay is as large as what it covers */
		b = virStorageVolLookupByPath(virStoragePoolGetConnect(pl->pool), backing);
		if (b && virStorageVolGetInfo(b, &bi) == 0)
			cap = bi.capacity;
		if (b)
			virStorageVolFree(b);
		back = g_markup_printf_escaped("<backingStore><path>%s</path>"
					       "<format type='qcow2'/></backingStore>",
					       backing);
	}
	head = g_markup_printf_escaped("<volume><name>%s</name>"
				       "<capacity unit='bytes'>%llu</capacity>"
				       "<target><format type='qcow2'/></target>",
				       name, cap);
	xml = g_strconcat(head, back ? back : "", "</volume>", NULL);
	g_free(head);
	lab_store_drop(pl->pool, name);
	v = virStorageVolCreateXML(pl->pool, xml, 0);
	if (!v)
		lab_err("host %s: cannot create %s: %s", pl->host, name, lab_virt_error());
	else
		virStorageVolFree(v);
	g_free(name);
	g_free(back);
	g_free(xml);
	return v ? 0 : -1;
}

int lab_place_upload(struct lab_place *pl, const char *local, const char *path)
{
	struct lab_store_stats s = { 0 };
	char *name = g_path_get_basename(path), *ok = g_strconcat(name, ".ok", NULL);
	int rc;

	lab_store_drop(pl->pool, ok); /* not content-named: replaced every time */
	lab_store_drop(pl->pool, name);
	rc = lab_store_put(pl->pool, local, name, &s);
	lab_store_drop(pl->pool, ok);
	g_free(name);
	g_free(ok);
	return rc;
}

/* Volume NAME, looked for again after a refresh when the pool does not
 * know it yet (a log or state file libvirtd wrote on its own). */
static virStorageVolPtr lookup_fresh(struct lab_place *pl, const char *name)
{
	virStorageVolPtr v = virStorageVolLookupByName(pl->pool, name);

	if (!v && refresh_locked(pl) == 0)
		v = virStorageVolLookupByName(pl->pool, name);
	return v;
}

static int write_chunk(virStreamPtr st, const char *buf, size_t n, void *opaque)
{
	(void)st;
	return fwrite(buf, 1, n, opaque) == n ? (int)n : -1;
}

int lab_place_fetch(struct lab_place *pl, const char *path, const char *local)
{
	char *name = g_path_get_basename(path), *tmp = g_strconcat(local, ".part", NULL);
	virStorageVolPtr v;
	virStreamPtr st = NULL;
	FILE *f = NULL;
	int rc = -1;

	g_mutex_lock(&io_lock);
	v = lookup_fresh(pl, name);
	if (!(f = fopen(tmp, "w")))
		goto out;
	if (v) {
		st = virStreamNew(virStoragePoolGetConnect(pl->pool), 0);
		if (!st || virStorageVolDownload(v, st, 0, 0, 0) < 0 ||
		    virStreamRecvAll(st, write_chunk, f) < 0 || virStreamFinish(st) < 0) {
			if (st)
				virStreamAbort(st);
			lab_err("host %s: cannot download %s: %s", pl->host, name,
				lab_virt_error());
			goto out;
		}
	}
	if (fclose(f) == 0 && rename(tmp, local) == 0)
		rc = 0;
	f = NULL;
out:
	g_mutex_unlock(&io_lock);
	if (f)
		fclose(f);
	if (rc)
		unlink(tmp);
	if (st)
		virStreamFree(st);
	if (v)
		virStorageVolFree(v);
	g_free(name);
	g_free(tmp);
	return rc;
}

/* Download bytes [from, to) of V, appended to F. */
static int download_range(struct lab_place *pl, virStorageVolPtr v,
			  unsigned long long from, unsigned long long to, FILE *f)
{
	virStreamPtr st = virStreamNew(virStoragePoolGetConnect(pl->pool), 0);
	int rc = -1;

	if (st && virStorageVolDownload(v, st, from, to - from, 0) == 0 &&
	    virStreamRecvAll(st, write_chunk, f) == 0 && virStreamFinish(st) == 0)
		rc = 0;
	else if (st)
		virStreamAbort(st);
	if (st)
		virStreamFree(st);
	return rc;
}

int lab_place_follow(struct lab_place *pl, const char *path, const char *local)
{
	char *name = g_path_get_basename(path);
	virStorageVolPtr v;
	virStorageVolInfo vi;
	struct stat sb;
	unsigned long long have;
	FILE *f = NULL;
	int rc = -1;

	g_mutex_lock(&io_lock);
	have = stat(local, &sb) == 0 ? (unsigned long long)sb.st_size : 0;
	v = lookup_fresh(pl, name);
	if (!v || virStorageVolGetInfo(v, &vi) != 0) { /* not written yet */
		rc = 0;
		goto out;
	}
	if (vi.capacity == have) {
		rc = 0;
		goto out;
	}
	/* shorter than our copy: a new boot started the log again */
	if (!(f = fopen(local, vi.capacity < have ? "w" : "a")))
		goto out;
	if (vi.capacity < have)
		have = 0;
	rc = download_range(pl, v, have, vi.capacity, f);
	if (rc != 0)
		lab_err("host %s: cannot download %s: %s", pl->host, name,
			lab_virt_error());
out:
	g_mutex_unlock(&io_lock);
	if (f && fclose(f) != 0)
		rc = -1;
	if (v)
		virStorageVolFree(v);
	g_free(name);
	return rc;
}

int lab_place_remove_own(struct lab_place *pl, struct lab_inst *in)
{
	gsize n = 0;
	char **v = g_key_file_get_string_list(in->state, GRP, "volumes", &n, NULL);
	int rc = 0;

	lab_place_refresh(pl);
	for (gsize i = 0; i < n; i++) {
		virStorageVolPtr vol = virStorageVolLookupByName(pl->pool, v[i]);

		if (vol && virStorageVolDelete(vol, 0) < 0) {
			lab_err("host %s: cannot delete %s: %s", pl->host, v[i],
				lab_virt_error());
			rc = -1;
		}
		if (vol)
			virStorageVolFree(vol);
	}
	g_strfreev(v);
	return rc;
}
