/* store.c - a host's lab store: one directory storage pool per host,
 * filled by virStorageVolCreateXML + virStorageVolUpload, so the files a
 * guest needs reach a remote host through libvirt alone. Volumes are named
 * by the cache key of their content; a NAME.ok marker volume is written
 * after the last byte, so a half upload is never taken for a copy. */
#include "store/store.h"
#include "build/image.h"
#include "build/kernel.h"
#include "util/util.h"
#include "virt/virt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *lab_store_pool_name(const char *dir)
{
	char *h = g_compute_checksum_for_string(G_CHECKSUM_SHA256, dir, -1);
	char *name = g_strdup_printf("lab-store-%.8s", h);

	g_free(h);
	return name;
}

static virStoragePoolPtr lookup_pool(virConnectPtr c, const char *dir)
{
	char *name = lab_store_pool_name(dir);
	virStoragePoolPtr p = virStoragePoolLookupByName(c, name);

	g_free(name);
	return p;
}

static char *pool_path(virStoragePoolPtr p)
{
	char *xml = virStoragePoolGetXMLDesc(p, 0), *a, *b, *path = NULL;

	if (xml && (a = strstr(xml, "<path>")) && (b = strstr(a, "</path>")))
		path = g_strndup(a + 6, b - a - 6);
	free(xml);
	return path;
}

void lab_store_info(virConnectPtr c, const char *dir, struct lab_store_info *si)
{
	virStoragePoolPtr p = lookup_pool(c, dir);
	virStorageVolPtr *vols = NULL;
	char *path = p ? pool_path(p) : NULL;
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

static virStoragePoolPtr define_pool(virConnectPtr c, const char *dir)
{
	char *name = lab_store_pool_name(dir);
	char *xml = g_strdup_printf(
		"<pool type='dir'><name>%s</name>"
		"<target><path>%s</path><permissions><mode>0755</mode>"
		"</permissions></target></pool>", name, dir);
	virStoragePoolPtr p = virStoragePoolDefineXML(c, xml, 0);

	g_free(xml);
	g_free(name);
	if (p && virStoragePoolBuild(p, 0) < 0) {
		lab_err("cannot create the store directory %s: %s", dir,
			lab_virt_error());
		virStoragePoolUndefine(p);
		virStoragePoolFree(p);
		return NULL;
	}
	if (p)
		virStoragePoolSetAutostart(p, 1);
	return p;
}

virStoragePoolPtr lab_store_pool(virConnectPtr c, const char *dir)
{
	virStoragePoolPtr p = lookup_pool(c, dir);
	char *path;

	if (!p && !(p = define_pool(c, dir))) {
		lab_err("cannot define the store pool in %s: %s", dir,
			lab_virt_error());
		return NULL;
	}
	path = pool_path(p);
	if (!path || strcmp(path, dir)) {
		/* not ours to change: the name is ours, the pool is not */
		lab_err("storage pool %s on that host points at %s, not %s: "
			"it was not made by lab; remove or rename it by hand",
			virStoragePoolGetName(p), path ? path : "?", dir);
		g_free(path);
		virStoragePoolFree(p);
		return NULL;
	}
	g_free(path);
	if (virStoragePoolIsActive(p) != 1 && virStoragePoolCreate(p, 0) < 0) {
		lab_err("cannot start storage pool %s: %s",
			virStoragePoolGetName(p), lab_virt_error());
		virStoragePoolFree(p);
		return NULL;
	}
	virStoragePoolRefresh(p, 0);
	return p;
}

static virStorageVolPtr create_vol(virStoragePoolPtr pool, const char *name,
				   off_t size)
{
	/* raw: the bytes are uploaded as they are (a qcow2 stays qcow2) */
	char *xml = g_strdup_printf("<volume><name>%s</name>"
				    "<capacity unit='bytes'>%lld</capacity>"
				    "<target><format type='raw'/></target></volume>",
				    name, (long long)size);
	virStorageVolPtr v = virStorageVolCreateXML(pool, xml, 0);

	g_free(xml);
	return v;
}

static int read_chunk(virStreamPtr st, char *buf, size_t n, void *opaque)
{
	(void)st;
	if (lab_interrupted)
		return -1;
	return (int)read(*(int *)opaque, buf, n);
}

static int upload(virStorageVolPtr v, const char *local, off_t size)
{
	virStreamPtr st = virStreamNew(virStorageVolGetConnect(v), 0);
	int fd = open(local, O_RDONLY | O_CLOEXEC), rc = -1;

	if (fd < 0 || !st)
		goto out;
	if (virStorageVolUpload(v, st, 0, size, 0) < 0)
		goto out;
	if (virStreamSendAll(st, read_chunk, &fd) < 0) {
		virStreamAbort(st);
		goto out;
	}
	rc = virStreamFinish(st);
out:
	if (fd >= 0)
		close(fd);
	if (st)
		virStreamFree(st);
	return rc;
}

bool lab_store_has(virStoragePoolPtr pool, const char *name)
{
	virStorageVolPtr v = virStorageVolLookupByName(pool, name);

	if (v)
		virStorageVolFree(v);
	return v != NULL;
}

void lab_store_drop(virStoragePoolPtr pool, const char *name)
{
	virStorageVolPtr v = virStorageVolLookupByName(pool, name);

	if (v) {
		virStorageVolDelete(v, 0);
		virStorageVolFree(v);
	}
}

int lab_store_mark(virStoragePoolPtr pool, const char *name)
{
	char *ok = g_strconcat(name, ".ok", NULL);
	virStorageVolPtr v;

	lab_store_drop(pool, ok);
	v = create_vol(pool, ok, 0);
	if (!v)
		lab_err("cannot mark %s complete: %s", name, lab_virt_error());
	else
		virStorageVolFree(v);
	g_free(ok);
	return v ? 0 : -1;
}

int lab_store_put(virStoragePoolPtr pool, const char *local, const char *name,
		  struct lab_store_stats *s)
{
	char *ok = g_strconcat(name, ".ok", NULL);
	virStorageVolPtr v = NULL;
	struct stat sb;
	double t0 = lab_now();
	int rc = -1;

	if (stat(local, &sb) < 0) {
		lab_err("%s: %s", local, g_strerror(errno));
		goto out;
	}
	if (lab_store_has(pool, ok) && lab_store_has(pool, name)) {
		s->present++;
		rc = 0;
		goto out;
	}
	lab_store_drop(pool, ok);
	lab_store_drop(pool, name); /* a half upload of ours: the name is a content key */
	v = create_vol(pool, name, sb.st_size);
	if (!v || upload(v, local, sb.st_size) < 0) {
		lab_err("upload of %s as %s failed: %s", local, name,
			lab_interrupted ? "interrupted" : lab_virt_error());
		if (v)
			virStorageVolDelete(v, 0);
		goto out;
	}
	virStorageVolFree(v);
	v = NULL;
	if (lab_store_mark(pool, name) != 0)
		goto out;
	s->uploaded++;
	s->bytes += sb.st_size;
	s->seconds += lab_now() - t0;
	rc = 0;
out:
	if (v)
		virStorageVolFree(v);
	g_free(ok);
	return rc;
}

static bool is_key(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n >= 12 && s[n] == '\0';
}

char *lab_store_name(const char *kind, const char *path)
{
	char *dir = g_path_get_dirname(path), *key = g_path_get_basename(dir);
	char *base = g_path_get_basename(path), *stem, *dot, *name;

	stem = g_strdup(base);
	if ((dot = strchr(stem, '.')))
		*dot = '\0';
	/* cache paths carry their content key: kernels/KEY/bzImage,
	 * tests/KEY.iso; anything else (images/KEY/debian/vmlinuz) is named
	 * by a hash of its path, which holds the key further up */
	if (is_key(key))
		name = g_strdup_printf("%s-%s-%s", kind, key, base);
	else if (is_key(stem))
		name = g_strdup_printf("%s-%s", kind, base);
	else {
		char *h = g_compute_checksum_for_string(G_CHECKSUM_SHA256, path, -1);

		name = g_strdup_printf("%s-%.16s-%s", kind, h, base);
		g_free(h);
	}
	g_free(dir);
	g_free(key);
	g_free(base);
	g_free(stem);
	return name;
}

static int put_one(virStoragePoolPtr pool, const char *host, const char *kind,
		   const char *path, struct lab_store_stats *s)
{
	char *name = lab_store_name(kind, path);
	unsigned before = s->uploaded;
	unsigned long long bytes = s->bytes;
	double secs = s->seconds;
	int rc = lab_store_put(pool, path, name, s);

	if (rc == 0 && s->uploaded > before)
		printf("host %s: uploaded %s: %.1f MiB in %.1f s\n", host, name,
		       (s->bytes - bytes) / 1048576.0, s->seconds - secs);
	else if (rc == 0)
		printf("host %s: %s already there\n", host, name);
	g_free(name);
	return rc;
}

int lab_store_sync(virConnectPtr c, const char *host, const char *dir,
		   const char *const *kernels)
{
	struct lab_store_stats s = { 0 };
	virStoragePoolPtr pool = lab_store_pool(c, dir);
	char *kdir, *img, *f;
	int rc = 0;

	if (!pool)
		return -1;
	for (int i = 0; kernels[i] && rc == 0; i++) {
		kdir = lab_kernel_dir(LAB_REVIEW_DEFAULT, kernels[i]);
		if (!kdir) {
			rc = -1;
			break;
		}
		f = g_build_filename(kdir, "bzImage", NULL);
		rc = put_one(pool, host, "kernel", f, &s);
		g_free(f);
		g_free(kdir);
	}
	img = rc == 0 ? lab_image_path() : NULL;
	if (rc == 0)
		rc = img ? put_one(pool, host, "image", img, &s) : -1;
	g_free(img);
	printf("host %s: %u files uploaded (%.1f MiB in %.1f s), %u already there\n",
	       host, s.uploaded, s.bytes / 1048576.0, s.seconds, s.present);
	virStoragePoolFree(pool);
	return rc;
}

static int delete_volumes(virStoragePoolPtr p, unsigned long long *bytes)
{
	virStorageVolPtr *vols = NULL;
	int n = virStoragePoolListAllVolumes(p, &vols, 0), bad = 0;

	for (int i = 0; i < n; i++) {
		virStorageVolInfo vi;

		if (virStorageVolGetInfo(vols[i], &vi) == 0)
			*bytes += vi.allocation;
		bad += virStorageVolDelete(vols[i], 0) < 0;
		virStorageVolFree(vols[i]);
	}
	free(vols);
	return n < 0 || bad ? -1 : n;
}

int lab_store_remove(virConnectPtr c, const char *host, const char *dir)
{
	virStoragePoolPtr p = lookup_pool(c, dir);
	char *path = p ? pool_path(p) : NULL;
	unsigned long long bytes = 0;
	int n = 0, rc = -1;

	if (!p) {
		printf("host %s: no store in %s\n", host, dir);
		return 0;
	}
	if (!path || strcmp(path, dir)) {
		lab_err("storage pool %s points at %s, not %s: not lab's, left alone",
			virStoragePoolGetName(p), path ? path : "?", dir);
		goto out;
	}
	if (virStoragePoolIsActive(p) != 1 && virStoragePoolCreate(p, 0) < 0)
		goto fail;
	virStoragePoolRefresh(p, 0);
	if ((n = delete_volumes(p, &bytes)) < 0 ||
	    virStoragePoolDestroy(p) < 0 || virStoragePoolDelete(p, 0) < 0 ||
	    virStoragePoolUndefine(p) < 0)
		goto fail;
	printf("host %s: store %s removed (%d volumes, %.1f MiB)\n", host, dir,
	       n, bytes / 1048576.0);
	rc = 0;
	goto out;
fail:
	lab_err("cannot remove the store %s: %s", dir, lab_virt_error());
out:
	g_free(path);
	virStoragePoolFree(p);
	return rc;
}
