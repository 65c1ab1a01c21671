/* store.c - see store.h. Bytes reach a store through virStorageVolUpload
 * and leave it through virStorageVolDownload; a store on this machine
 * takes a hard link instead of a copy (the cached files never change:
 * they are named by content). Names are checked nowhere else: a volume's
 * name is its identity, its path on the host follows from the store. */
#include "store/store.h"
#include "util/util.h"
#include "virt/conn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REFRESH_TRIES 20 /* a refresh waits for uploads and downloads */

/* One stream or refresh of this process at a time: libvirt refuses a
 * pool refresh while any of its volumes streams. */
static GMutex io_lock;

char *lab_store_pool_name(const char *dir)
{
	char *h = g_compute_checksum_for_string(G_CHECKSUM_SHA256, dir, -1);
	char *name = g_strdup_printf("lab-store-%.8s", h);

	g_free(h);
	return name;
}

char *lab_store_pool_path(virStoragePoolPtr p)
{
	char *xml = virStoragePoolGetXMLDesc(p, 0), *a, *b, *path = NULL;

	if (xml && (a = strstr(xml, "<path>")) && (b = strstr(a, "</path>")))
		path = g_strndup(a + 6, b - a - 6);
	free(xml);
	return path;
}

virStoragePoolPtr lab_store_lookup_pool(virConnectPtr c, const char *dir)
{
	char *name = lab_store_pool_name(dir);
	virStoragePoolPtr p = virStoragePoolLookupByName(c, name);

	g_free(name);
	return p;
}

/* A URI without a host part ("qemu:///system") is this machine. */
static bool uri_is_here(const char *uri)
{
	const char *p = uri ? strstr(uri, "://") : NULL;

	return p && p[3] == '/';
}

static int refresh_locked(struct lab_store *st)
{
	int i;

	for (i = 0; i < REFRESH_TRIES; i++) {
		if (virStoragePoolRefresh(st->pool, 0) == 0)
			return 0;
		usleep(250000); /* another lab's stream on this store */
	}
	lab_err("host %s: cannot refresh the store: %s", st->host, lab_virt_error());
	return -1;
}

int lab_store_refresh(struct lab_store *st)
{
	int rc;

	g_mutex_lock(&io_lock);
	rc = refresh_locked(st);
	g_mutex_unlock(&io_lock);
	return rc;
}

bool lab_store_has(struct lab_store *st, const char *name)
{
	virStorageVolPtr v = virStorageVolLookupByName(st->pool, name);

	if (v)
		virStorageVolFree(v);
	return v != NULL;
}

void lab_store_drop(struct lab_store *st, const char *name)
{
	virStorageVolPtr v = virStorageVolLookupByName(st->pool, name);

	if (v) {
		virStorageVolDelete(v, 0);
		virStorageVolFree(v);
	}
}

static virStorageVolPtr create_raw(struct lab_store *st, const char *name,
				   off_t size)
{
	/* raw: the bytes are put as they are (a qcow2 stays qcow2) */
	char *xml = g_markup_printf_escaped("<volume><name>%s</name>"
					    "<capacity unit='bytes'>%lld</capacity>"
					    "<target><format type='raw'/></target></volume>",
					    name, (long long)size);
	virStorageVolPtr v = virStorageVolCreateXML(st->pool, xml, 0);

	g_free(xml);
	return v;
}

int lab_store_touch(struct lab_store *st, const char *name)
{
	virStorageVolPtr v;

	lab_store_drop(st, name);
	v = create_raw(st, name, 0);
	if (!v) {
		lab_err("host %s: cannot write %s: %s", st->host, name, lab_virt_error());
		return -1;
	}
	virStorageVolFree(v);
	return 0;
}

int lab_store_claim(struct lab_store *st, const char *name)
{
	virStorageVolPtr v = create_raw(st, name, 0);

	if (v)
		virStorageVolFree(v);
	return v ? 0 : -1;
}

int lab_store_mark(struct lab_store *st, const char *name)
{
	char *ok = g_strconcat(name, ".ok", NULL);
	int rc = lab_store_touch(st, ok);

	g_free(ok);
	return rc;
}

char *lab_store_path(const struct lab_store *st, const char *name)
{
	return g_build_filename(st->dir, name, NULL);
}

/* ---- opening: a store is a directory lab made ---- */

static virStoragePoolPtr define_pool(virConnectPtr c, const char *dir)
{
	char *name = lab_store_pool_name(dir);
	char *xml = g_markup_printf_escaped(
		"<pool type='dir'><name>%s</name>"
		"<target><path>%s</path><permissions><mode>0755</mode>"
		"</permissions></target></pool>", name, dir);
	virStoragePoolPtr p = virStoragePoolDefineXML(c, xml, 0);

	if (!p)
		lab_err("cannot define the store pool %s in %s: %s", name, dir,
			lab_virt_error());
	g_free(xml);
	g_free(name);
	return p;
}

/* Start the pool on the directory as it is; only a directory that is not
 * there is built (made with the pool's mode): an existing one keeps its
 * mode and owner. */
static int start_pool(virStoragePoolPtr p, const char *dir)
{
	if (virStoragePoolIsActive(p) == 1 || virStoragePoolCreate(p, 0) == 0)
		return 0;
	if (virStoragePoolBuild(p, 0) == 0 && virStoragePoolCreate(p, 0) == 0)
		return 0;
	lab_err("cannot start the store in %s: %s", dir, lab_virt_error());
	return -1;
}

static int count_volumes(virStoragePoolPtr p)
{
	virStorageVolPtr *vols = NULL;
	int n = virStoragePoolListAllVolumes(p, &vols, 0), i;

	for (i = 0; i < n; i++)
		virStorageVolFree(vols[i]);
	free(vols);
	return n;
}

/* Ours when it holds the marker; an empty directory becomes ours; any
 * other is someone's, and lab does not take it over. */
static int adopt(struct lab_store *st)
{
	int n;

	if (lab_store_has(st, LAB_STORE_MARKER))
		return 0;
	n = count_volumes(st->pool);
	if (n == 0)
		return lab_store_touch(st, LAB_STORE_MARKER);
	lab_err("host %s: %s holds %d file%s but no %s: it is not a lab store, "
		"and lab does not take over a directory it did not make (name an "
		"empty or new directory as store= in hosts.ini)", st->host, st->dir,
		n, n == 1 ? "" : "s", LAB_STORE_MARKER);
	return -1;
}

static void forget_pool(virStoragePoolPtr p)
{
	if (virStoragePoolIsActive(p) == 1)
		virStoragePoolDestroy(p);
	virStoragePoolUndefine(p);
}

struct lab_store *lab_store_open(virConnectPtr c, const char *host,
				 const char *uri, const char *dir)
{
	struct lab_store *st = g_new0(struct lab_store, 1);
	bool defined = false;
	char *path = NULL;
	struct stat sb;

	st->dir = g_strdup(dir);
	st->host = g_strdup(host);
	if (!(st->pool = lab_store_lookup_pool(c, dir))) {
		if (!(st->pool = define_pool(c, dir)))
			goto fail;
		defined = true;
	}
	path = lab_store_pool_path(st->pool);
	if (!path || strcmp(path, dir)) {
		/* not ours to change: the name is ours, the pool is not */
		lab_err("storage pool %s on host %s points at %s, not %s: it was not "
			"made by lab; remove or rename it by hand",
			virStoragePoolGetName(st->pool), host, path ? path : "?", dir);
		goto fail;
	}
	if (start_pool(st->pool, dir) != 0 || lab_store_refresh(st) != 0 ||
	    adopt(st) != 0)
		goto fail;
	st->here = uri_is_here(uri) && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode);
	g_free(path);
	return st;
fail:
	if (defined)
		forget_pool(st->pool);
	g_free(path);
	lab_store_close(st);
	return NULL;
}

void lab_store_close(struct lab_store *st)
{
	if (!st)
		return;
	if (st->pool)
		virStoragePoolFree(st->pool);
	g_free(st->dir);
	g_free(st->host);
	g_free(st);
}

/* ---- putting files ---- */

static int read_chunk(virStreamPtr s, char *buf, size_t n, void *opaque)
{
	(void)s;
	if (lab_interrupted)
		return -1;
	return (int)read(*(int *)opaque, buf, n);
}

static int upload(struct lab_store *st, const char *local, const char *name,
		  off_t size)
{
	virStorageVolPtr v = create_raw(st, name, size);
	virStreamPtr s = v ? virStreamNew(virStorageVolGetConnect(v), 0) : NULL;
	int fd = open(local, O_RDONLY | O_CLOEXEC), rc = -1;

	g_mutex_lock(&io_lock);
	if (fd >= 0 && s && virStorageVolUpload(v, s, 0, size, 0) == 0) {
		if (virStreamSendAll(s, read_chunk, &fd) < 0)
			virStreamAbort(s);
		else
			rc = virStreamFinish(s);
	}
	g_mutex_unlock(&io_lock);
	if (rc != 0)
		lab_err("host %s: upload of %s as %s failed: %s", st->host, local,
			name, lab_interrupted ? "interrupted" : lab_virt_error());
	if (rc != 0 && v)
		virStorageVolDelete(v, 0);
	if (fd >= 0)
		close(fd);
	if (s)
		virStreamFree(s);
	if (v)
		virStorageVolFree(v);
	return rc;
}

/* On this machine: a hard link under a temporary name, renamed over NAME
 * (whole or not at all), then the pool looks again. -1 when the store is
 * on another file system: then it is uploaded. */
static int link_in(struct lab_store *st, const char *local, const char *name)
{
	char *tmp = g_strdup_printf("%s/.%s.tmp-%d", st->dir, name, (int)getpid());
	char *dst = lab_store_path(st, name);
	int rc = -1;

	unlink(tmp);
	if (link(local, tmp) == 0) {
		if (rename(tmp, dst) == 0)
			rc = lab_store_refresh(st);
		else
			unlink(tmp);
	}
	g_free(tmp);
	g_free(dst);
	return rc;
}

int lab_store_put(struct lab_store *st, const char *local, const char *name)
{
	struct stat sb;

	if (stat(local, &sb) < 0) {
		lab_err("%s: %s", local, g_strerror(errno));
		return -1;
	}
	if (st->here && link_in(st, local, name) == 0)
		return 0;
	lab_store_drop(st, name);
	return upload(st, local, name, sb.st_size);
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

char *lab_store_shared(struct lab_store *st, const char *kind,
		       const char *local, struct lab_store_stats *s)
{
	char *name = lab_store_name(kind, local);
	char *ok = g_strconcat(name, ".ok", NULL), *path = NULL;
	double t0 = lab_now();
	struct stat sb;

	if (lab_store_has(st, ok) && lab_store_has(st, name)) {
		s->present++;
		path = lab_store_path(st, name);
		goto out;
	}
	lab_store_drop(st, ok); /* a half upload: the name is a content key */
	if (stat(local, &sb) != 0 || lab_store_put(st, local, name) != 0 ||
	    lab_store_mark(st, name) != 0) {
		lab_err("host %s: cannot put %s into the store", st->host, local);
		goto out;
	}
	s->uploaded++;
	s->bytes += (unsigned long long)sb.st_size;
	s->seconds += lab_now() - t0;
	path = lab_store_path(st, name);
out:
	g_free(name);
	g_free(ok);
	return path;
}

int lab_store_qcow2(struct lab_store *st, const char *name,
		    const char *backing, int size_mib)
{
	unsigned long long cap = (unsigned long long)size_mib << 20;
	char *head, *xml, *back = NULL;
	virStorageVolPtr v, b;
	virStorageVolInfo bi;

	if (backing) {
		/* the overlay is as large as what it covers */
		b = virStorageVolLookupByPath(virStoragePoolGetConnect(st->pool), backing);
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
	lab_store_drop(st, name);
	v = virStorageVolCreateXML(st->pool, xml, 0);
	if (!v)
		lab_err("host %s: cannot create %s: %s", st->host, name, lab_virt_error());
	else
		virStorageVolFree(v);
	g_free(back);
	g_free(xml);
	return v ? 0 : -1;
}

int lab_store_overwrite(struct lab_store *st, const char *name,
			const guchar *data, gsize len)
{
	virStorageVolPtr v = virStorageVolLookupByName(st->pool, name);
	virStreamPtr s = v ? virStreamNew(virStorageVolGetConnect(v), 0) : NULL;
	int rc = -1;

	g_mutex_lock(&io_lock);
	if (s && virStorageVolUpload(v, s, 0, len, 0) == 0) {
		gsize sent = 0;
		int n = 0;

		while (sent < len &&
		       (n = virStreamSend(s, (const char *)data + sent, len - sent)) > 0)
			sent += (gsize)n;
		if (sent < len)
			virStreamAbort(s);
		else
			rc = virStreamFinish(s);
	}
	g_mutex_unlock(&io_lock);
	if (rc != 0)
		lab_err("host %s: cannot write %s: %s", st->host, name, lab_virt_error());
	if (s)
		virStreamFree(s);
	if (v)
		virStorageVolFree(v);
	return rc;
}

int lab_store_clone(struct lab_store *st, const char *from, const char *to)
{
	virStorageVolPtr src = virStorageVolLookupByName(st->pool, from), v = NULL;
	char *xml = g_markup_printf_escaped("<volume><name>%s</name><capacity>0</capacity>"
					    "<target><format type='raw'/></target></volume>",
					    to);

	lab_store_drop(st, to);
	if (src)
		v = virStorageVolCreateXMLFrom(st->pool, xml, src, 0);
	if (!v)
		lab_err("host %s: cannot copy %s to %s: %s", st->host, from, to,
			lab_virt_error());
	if (v)
		virStorageVolFree(v);
	if (src)
		virStorageVolFree(src);
	g_free(xml);
	return v ? 0 : -1;
}

/* ---- reading files back ---- */

/* Volume NAME, looked for again after a refresh when the pool does not
 * know it yet (a log, state file or dump libvirtd wrote on its own). */
static virStorageVolPtr lookup_fresh(struct lab_store *st, const char *name)
{
	virStorageVolPtr v = virStorageVolLookupByName(st->pool, name);

	if (!v && refresh_locked(st) == 0)
		v = virStorageVolLookupByName(st->pool, name);
	return v;
}

static int write_chunk(virStreamPtr s, const char *buf, size_t n, void *opaque)
{
	(void)s;
	return fwrite(buf, 1, n, opaque) == n ? (int)n : -1;
}

/* Bytes [from, from+len) of V appended to F; len 0: to the end. */
static int download(struct lab_store *st, virStorageVolPtr v,
		    unsigned long long from, unsigned long long len, FILE *f)
{
	virStreamPtr s = virStreamNew(virStoragePoolGetConnect(st->pool), 0);
	int rc = -1;

	if (s && virStorageVolDownload(v, s, from, len, 0) == 0 &&
	    virStreamRecvAll(s, write_chunk, f) == 0 && virStreamFinish(s) == 0)
		rc = 0;
	else if (s)
		virStreamAbort(s);
	if (s)
		virStreamFree(s);
	if (rc != 0)
		lab_err("host %s: cannot download %s: %s", st->host,
			virStorageVolGetName(v), lab_virt_error());
	return rc;
}

int lab_store_fetch(struct lab_store *st, const char *name, const char *local)
{
	char *tmp = g_strdup_printf("%s.part-%d", local, (int)getpid());
	virStorageVolPtr v;
	FILE *f = NULL;
	int rc = -1;

	g_mutex_lock(&io_lock);
	v = lookup_fresh(st, name);
	if (!(f = fopen(tmp, "w")))
		goto out;
	if (v && download(st, v, 0, 0, f) != 0)
		goto out;
	if (fclose(f) == 0 && rename(tmp, local) == 0)
		rc = 0;
	f = NULL;
out:
	g_mutex_unlock(&io_lock);
	if (f)
		fclose(f);
	if (rc)
		unlink(tmp);
	if (v)
		virStorageVolFree(v);
	g_free(tmp);
	return rc;
}

guchar *lab_store_read(struct lab_store *st, const char *name,
		       unsigned long long from, gsize len, gsize *got)
{
	virStorageVolPtr v;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	guchar *out = NULL;
	int rc = -1;

	g_mutex_lock(&io_lock);
	v = lookup_fresh(st, name);
	if (v && f)
		rc = download(st, v, from, len, f);
	else
		lab_err("host %s: no volume %s to read", st->host, name);
	g_mutex_unlock(&io_lock);
	if (f && fclose(f) != 0)
		rc = -1;
	if (v)
		virStorageVolFree(v);
	*got = 0;
	if (rc == 0 && buf) { /* open_memstream's buffer is malloc's */
		out = g_memdup2(buf, size);
		*got = size;
	}
	free(buf);
	return out;
}

int lab_store_follow(struct lab_store *st, const char *name, const char *local)
{
	virStorageVolPtr v;
	virStorageVolInfo vi;
	struct stat sb;
	unsigned long long have;
	FILE *f = NULL;
	int rc = 0;

	g_mutex_lock(&io_lock);
	if (stat(local, &sb) != 0) { /* a copy from the start, empty until there is more */
		g_file_set_contents(local, "", 0, NULL);
		sb.st_size = 0;
	}
	have = (unsigned long long)sb.st_size;
	v = lookup_fresh(st, name);
	/* not written yet, or nothing new */
	if (!v || virStorageVolGetInfo(v, &vi) != 0 || vi.capacity == have)
		goto out;
	/* shorter than our copy: a new boot started the log again */
	if (vi.capacity < have)
		have = 0;
	if (!(f = fopen(local, have ? "a" : "w")))
		rc = -1;
	else
		rc = download(st, v, have, vi.capacity - have, f);
out:
	g_mutex_unlock(&io_lock);
	if (f && fclose(f) != 0)
		rc = -1;
	if (v)
		virStorageVolFree(v);
	return rc;
}

int lab_store_take(struct lab_store *st, const char *name, const char *local)
{
	char *at = lab_store_path(st, name);
	int rc = -1;

	/* on this machine the file is moved by a link, not copied */
	if (st->here && link(at, local) == 0)
		rc = 0;
	else
		rc = lab_store_fetch(st, name, local);
	g_mutex_lock(&io_lock);
	refresh_locked(st);
	g_mutex_unlock(&io_lock);
	lab_store_drop(st, name);
	g_free(at);
	return rc;
}

/* ---- what a store holds ---- */

static gint64 vol_mtime(virStorageVolPtr v)
{
	char *xml = virStorageVolGetXMLDesc(v, 0), *m;
	gint64 t = 0;

	if (xml && (m = strstr(xml, "<mtime>")))
		t = g_ascii_strtoll(m + 7, NULL, 10);
	free(xml);
	return t;
}

static void vol_free(gpointer p)
{
	struct lab_store_vol *v = p;

	g_free(v->name);
	g_free(v);
}

static gint by_name(gconstpointer a, gconstpointer b)
{
	const struct lab_store_vol *x = *(struct lab_store_vol *const *)a;
	const struct lab_store_vol *y = *(struct lab_store_vol *const *)b;

	return strcmp(x->name, y->name);
}

GPtrArray *lab_store_list(struct lab_store *st, const char *prefix)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(vol_free);
	virStorageVolPtr *vols = NULL;
	int n, i;

	lab_store_refresh(st);
	n = virStoragePoolListAllVolumes(st->pool, &vols, 0);
	for (i = 0; i < n; i++) {
		const char *name = virStorageVolGetName(vols[i]);
		virStorageVolInfo vi;

		if (name && g_str_has_prefix(name, prefix)) {
			struct lab_store_vol *v = g_new0(struct lab_store_vol, 1);

			v->name = g_strdup(name);
			if (virStorageVolGetInfo(vols[i], &vi) == 0)
				v->bytes = vi.allocation;
			v->mtime = vol_mtime(vols[i]);
			g_ptr_array_add(out, v);
		}
		virStorageVolFree(vols[i]);
	}
	free(vols);
	g_ptr_array_sort(out, by_name);
	return out;
}
