/* admin.c - what `lab hosts` does to a store: tell what it holds, fill it
 * with the cached kernels and image, remove it (lab's volumes only). */
#include "store/admin.h"
#include "store/store.h"
#include "build/image.h"
#include "build/kernel.h"
#include "util/util.h"
#include "virt/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lab_store_info(virConnectPtr c, const char *dir, struct lab_store_info *si)
{
	virStoragePoolPtr p = lab_store_lookup_pool(c, dir);
	virStorageVolPtr *vols = NULL;
	char *path = p ? lab_store_pool_path(p) : NULL;
	int n;

	memset(si, 0, sizeof(*si));
	if (!p || !path || strcmp(path, dir) || virStoragePoolIsActive(p) != 1)
		goto out;
	si->exists = true;
	virStoragePoolRefresh(p, 0);
	n = virStoragePoolListAllVolumes(p, &vols, 0);
	for (int i = 0; i < n; i++) {
		virStorageVolInfo vi;

		if (virStorageVolGetInfo(vols[i], &vi) == 0 &&
		    !g_str_has_suffix(virStorageVolGetName(vols[i]), ".ok")) {
			si->volumes++;
			si->bytes += vi.allocation;
		}
		virStorageVolFree(vols[i]);
	}
	free(vols);
out:
	g_free(path);
	if (p)
		virStoragePoolFree(p);
}

static int put_one(struct lab_store *st, const char *kind, const char *path,
		   struct lab_store_stats *s)
{
	char *name = lab_store_name(kind, path);
	unsigned before = s->uploaded;
	unsigned long long bytes = s->bytes;
	double secs = s->seconds;
	char *at = lab_store_shared(st, kind, path, s);

	if (at && s->uploaded > before)
		printf("host %s: uploaded %s: %.1f MiB in %.1f s\n", st->host, name,
		       (s->bytes - bytes) / 1048576.0, s->seconds - secs);
	else if (at)
		printf("host %s: %s already there\n", st->host, name);
	g_free(name);
	g_free(at);
	return at ? 0 : -1;
}

int lab_store_sync(virConnectPtr c, const char *host, const char *uri,
		   const char *dir, const char *const *kernels)
{
	struct lab_store_stats s = { 0 };
	struct lab_store *st = lab_store_open(c, host, uri, dir);
	char *kdir, *img, *f;
	int rc = 0;

	if (!st)
		return -1;
	for (int i = 0; kernels[i] && rc == 0; i++) {
		kdir = lab_kernel_dir(LAB_REVIEW_DEFAULT, kernels[i]);
		if (!kdir) {
			rc = -1;
			break;
		}
		f = g_build_filename(kdir, "bzImage", NULL);
		rc = put_one(st, "kernel", f, &s);
		g_free(f);
		g_free(kdir);
	}
	img = rc == 0 ? lab_image_path() : NULL;
	if (rc == 0)
		rc = img ? put_one(st, "image", img, &s) : -1;
	g_free(img);
	printf("host %s: %u files uploaded (%.1f MiB in %.1f s%s), %u already there\n",
	       host, s.uploaded, s.bytes / 1048576.0, s.seconds,
	       st->here ? " as hard links: this machine" : "", s.present);
	lab_store_close(st);
	return rc;
}

/* What lab names: content names, saved states, an instance's own files,
 * markers. Anything else in a store was put there by someone else. */
bool lab_store_named(const char *n)
{
	static const char *const ends[] = { ".qcow2", ".iso", ".log", ".state",
					    ".ok", ".used", "-claim", ".kdump", "bzImage",
					    "vmlinuz", ".img" };
	guint i;

	if (!*n || n[0] == '.' || strspn(n, "abcdefghijklmnopqrstuvwxyz"
					       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") != strlen(n))
		return false;
	for (i = 0; i < G_N_ELEMENTS(ends); i++)
		if (g_str_has_suffix(n, ends[i]))
			return true;
	return false;
}

/* Delete lab's volumes, the marker last; the number of others left. */
static int delete_volumes(virStoragePoolPtr p, unsigned long long *bytes,
			  int *deleted, GString *left)
{
	virStorageVolPtr *vols = NULL, marker = NULL;
	int n = virStoragePoolListAllVolumes(p, &vols, 0), others = 0, bad = 0;

	for (int i = 0; i < n; i++) {
		const char *name = virStorageVolGetName(vols[i]);
		virStorageVolInfo vi;

		if (!lab_store_named(name)) {
			if (others++ < 5)
				g_string_append_printf(left, "%s%s", others > 1 ? ", " : "", name);
		} else if (!strcmp(name, LAB_STORE_MARKER)) {
			marker = vols[i];
			continue;
		} else {
			if (virStorageVolGetInfo(vols[i], &vi) == 0)
				*bytes += vi.allocation;
			bad += virStorageVolDelete(vols[i], 0) < 0;
			(*deleted)++;
		}
		virStorageVolFree(vols[i]);
	}
	if (marker && !bad && !others)
		bad += virStorageVolDelete(marker, 0) < 0;
	if (marker)
		virStorageVolFree(marker);
	free(vols);
	return n < 0 || bad ? -1 : others;
}

int lab_store_remove(virConnectPtr c, const char *host, const char *dir)
{
	virStoragePoolPtr p = lab_store_lookup_pool(c, dir);
	char *path = p ? lab_store_pool_path(p) : NULL;
	unsigned long long bytes = 0;
	int others = 0, deleted = 0, rc = -1;
	GString *left;
	virStorageVolPtr m;

	if (!p) {
		printf("host %s: no store in %s\n", host, dir);
		return 0;
	}
	left = g_string_new("");
	if (!path || strcmp(path, dir)) {
		lab_err("storage pool %s points at %s, not %s: not lab's, left alone",
			virStoragePoolGetName(p), path ? path : "?", dir);
		goto out;
	}
	if (virStoragePoolIsActive(p) != 1 && virStoragePoolCreate(p, 0) < 0)
		goto fail;
	virStoragePoolRefresh(p, 0);
	if (!(m = virStorageVolLookupByName(p, LAB_STORE_MARKER))) {
		lab_err("host %s: %s has no %s: not a lab store, left alone", host,
			dir, LAB_STORE_MARKER);
		goto out;
	}
	virStorageVolFree(m);
	if ((others = delete_volumes(p, &bytes, &deleted, left)) < 0 ||
	    virStoragePoolDestroy(p) < 0 ||
	    (others == 0 && virStoragePoolDelete(p, 0) < 0) ||
	    virStoragePoolUndefine(p) < 0)
		goto fail;
	if (others)
		printf("host %s: store %s emptied of lab's %d volumes (%.1f MiB); %d "
		       "file%s lab did not name left there (%s%s), and the directory\n",
		       host, dir, deleted, bytes / 1048576.0, others, others == 1 ? "" : "s",
		       left->str, others > 5 ? ", ..." : "");
	else
		printf("host %s: store %s removed (%d volumes, %.1f MiB)\n", host, dir,
		       deleted, bytes / 1048576.0);
	rc = 0;
	goto out;
fail:
	lab_err("cannot remove the store %s: %s", dir, lab_virt_error());
out:
	g_string_free(left, TRUE);
	g_free(path);
	virStoragePoolFree(p);
	return rc;
}
