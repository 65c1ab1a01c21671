/* instance.c - see instance.h.
 *
 * Everything lab creates is transient (virNetworkCreateXML,
 * virDomainCreateXML, virDomainRestoreFlags), named "<instance>-<name>",
 * tagged with the instance's owner element, and recorded in state.ini
 * before it is created, so `lab down` can clean up after Ctrl-C or a crash
 * of lab, and never touches anything it did not create. Its volumes in the
 * store are recorded the same way, by name, before they are created.
 */
#include "guests/instance.h"
#include "core/hosts.h"
#include "core/owner.h"
#include "store/store.h"
#include "util/util.h"
#include "virt/conn.h"

#include <errno.h>
#include <fcntl.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define GRP "instance"

char *lab_inst_dir(void)
{
	char *rel = g_build_filename("instances", lab_instance(), NULL);
	char *dir = lab_path(rel);

	g_free(rel);
	return dir;
}

static void inst_init(struct lab_inst *in)
{
	memset(in, 0, sizeof(*in));
	in->lock_fd = -1;
	in->dir = lab_inst_dir();
	in->state_path = g_build_filename(in->dir, "state.ini", NULL);
	in->state = g_key_file_new();
	g_mutex_init(&in->mu);
}

int lab_inst_open(struct lab_inst *in, bool create)
{
	char *lock;

	inst_init(in);
	if (create && lab_mkdir_p(in->dir) != 0)
		return -1;
	if (!lab_exists(in->dir))
		return 0;
	lock = g_build_filename(in->dir, "lock", NULL);
	in->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	g_free(lock);
	if (in->lock_fd < 0 || flock(in->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		lab_err("another lab command is using instance '%s' (%s/lock)",
			lab_instance(), in->dir);
		return -1;
	}
	g_key_file_load_from_file(in->state, in->state_path, G_KEY_FILE_NONE,
				  NULL);
	return 0;
}

int lab_inst_open_unlocked(struct lab_inst *in)
{
	inst_init(in);
	return g_key_file_load_from_file(in->state, in->state_path, G_KEY_FILE_NONE,
					 NULL) ? 0 : -1;
}

/* What to do about a connection that failed: start libvirtd only when
 * this machine's socket is not there, never for a bad URI. */
static const char *connect_hint(const char *uri, const char *why)
{
	bool here = strstr(uri, ":///") != NULL;

	if (here && (strstr(why, "Failed to connect socket") ||
		     strstr(why, "No such file or directory")))
		return "\n  is libvirtd running? start it with: virtlogd -d && libvirtd -d"
		       "\n  (or `systemctl start libvirtd` where systemd runs)";
	if (!here)
		return "\n  is the host up, and does `virsh -c URI uri` reach it?";
	return "";
}

static int connect_to(struct lab_inst *in, const char *uri)
{
	if (!in->conn && !(in->conn = lab_virt_open(uri))) {
		char *why = g_strdup(lab_virt_error());

		lab_err("cannot connect to libvirt (%s): %s%s", uri, why,
			connect_hint(uri, why));
		g_free(why);
		return -1;
	}
	return 0;
}

/* The host state.ini names must be that host of hosts.ini, URI and store
 * alike: a state file is not trusted to point lab at a directory. NULL
 * when it is, else why not. */
static char *host_mismatch(struct lab_inst *in, const char *host,
			   const char *uri, const char *dir)
{
	char *file = g_key_file_get_string(in->state, GRP, "hosts-file", NULL);
	struct lab_hosts *hosts = lab_hosts_open(file);
	struct lab_host *h = hosts && host ? lab_hosts_find(hosts, host) : NULL;
	char *why = NULL;

	if (!hosts)
		why = g_strdup("its hosts file cannot be read (see above)");
	else if (!h)
		why = g_strdup_printf("host '%s' is not in %s", host ? host : "?",
				      hosts->path);
	else if (strcmp(h->store, dir) || strcmp(h->uri, uri))
		why = g_strdup_printf("host %s of %s has store %s (%s), the state says "
				      "%s (%s)", host, hosts->path, h->store, h->uri,
				      dir, uri);
	lab_hosts_free(hosts);
	g_free(file);
	return why;
}

int lab_inst_attach(struct lab_inst *in)
{
	char *uri = g_key_file_get_string(in->state, GRP, "uri", NULL);
	char *host = g_key_file_get_string(in->state, GRP, "host", NULL);
	char *dir = g_key_file_get_string(in->state, GRP, "store", NULL);
	char *why = dir ? host_mismatch(in, host, uri ? uri : "", dir) : NULL;
	int rc = -1;

	if (why)
		lab_err("%s: %s; lab touches no store it is not told of (fix hosts.ini, "
			"or remove the state file once its guests are gone)",
			in->state_path, why);
	else if (connect_to(in, uri ? uri : lab_local_uri()) == 0 &&
		 (!dir || in->store ||
		  (in->store = lab_store_open(in->conn, host, uri, dir))))
		rc = 0;
	g_free(why);
	g_free(uri);
	g_free(host);
	g_free(dir);
	return rc;
}

int lab_inst_place(struct lab_inst *in, const struct lab_host *h,
		   const char *hosts_file)
{
	g_key_file_set_string(in->state, GRP, "host", h->name);
	g_key_file_set_string(in->state, GRP, "uri", h->uri);
	g_key_file_set_string(in->state, GRP, "store", h->store);
	if (hosts_file) {
		char *abs = g_canonicalize_filename(hosts_file, NULL);

		g_key_file_set_string(in->state, GRP, "hosts-file", abs);
		g_free(abs);
	}
	if (lab_inst_save(in) != 0 || connect_to(in, h->uri) != 0)
		return -1;
	in->store = lab_store_open(in->conn, h->name, h->uri, h->store);
	return in->store ? 0 : -1;
}

void lab_inst_close(struct lab_inst *in)
{
	lab_store_close(in->store); /* its pool belongs to conn */
	if (in->conn)
		virConnectClose(in->conn);
	if (in->lock_fd >= 0)
		close(in->lock_fd);
	if (in->state)
		g_key_file_free(in->state);
	g_free(in->dir);
	g_free(in->state_path);
	g_mutex_clear(&in->mu);
	memset(in, 0, sizeof(*in));
	in->lock_fd = -1;
}

int lab_inst_save(struct lab_inst *in)
{
	gsize len;
	gchar *data;
	int rc;

	g_mutex_lock(&in->mu);
	data = g_key_file_to_data(in->state, &len, NULL);
	rc = lab_write_file(in->state_path, data, len);
	g_mutex_unlock(&in->mu);
	g_free(data);
	return rc;
}

bool lab_inst_is_up(const struct lab_inst *in)
{
	return lab_exists(in->state_path);
}

char *lab_inst_name(const char *name)
{
	return g_strdup_printf("%s-%s", lab_instance(), name);
}

char *lab_inst_file(const struct lab_inst *in, const char *name)
{
	return g_build_filename(in->dir, name, NULL);
}

char **lab_inst_guests(GKeyFile *state)
{
	gchar **groups = g_key_file_get_groups(state, NULL);
	GPtrArray *out = g_ptr_array_new();
	int i;

	for (i = 0; groups && groups[i]; i++)
		if (g_str_has_prefix(groups[i], "guest "))
			g_ptr_array_add(out, g_strdup(groups[i] + strlen("guest ")));
	g_strfreev(groups);
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

char *lab_inst_guest_get(struct lab_inst *in, const char *guest, const char *key)
{
	char *grp = g_strdup_printf("guest %s", guest), *v;

	g_mutex_lock(&in->mu);
	v = g_key_file_get_string(in->state, grp, key, NULL);
	g_mutex_unlock(&in->mu);
	g_free(grp);
	return v;
}

bool lab_inst_any_uses(const char *text)
{
	char *root = lab_path("instances");
	GDir *d = g_dir_open(root, 0, NULL);
	const char *n;
	bool used = false;

	while (d && !used && (n = g_dir_read_name(d))) {
		char *p = g_build_filename(root, n, "state.ini", NULL);
		gchar *data = NULL;

		if (g_file_get_contents(p, &data, NULL, NULL))
			used = strstr(data, text) != NULL;
		g_free(data);
		g_free(p);
	}
	if (d)
		g_dir_close(d);
	g_free(root);
	return used;
}

/* ---- the instance's own volumes ---- */

char *lab_inst_vol(const char *fmt, ...)
{
	va_list ap;
	char *rest, *name;

	va_start(ap, fmt);
	rest = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	name = g_strdup_printf("%s.%s.%s", lab_instance(), lab_machine_id(), rest);
	g_free(rest);
	return name;
}

/* A name the instance may own: under its own prefix, or a volume of the
 * saved state it is saving. Anything else in state.ini is not trusted. */
static bool may_own(struct lab_inst *in, const char *name)
{
	char *prefix = lab_inst_vol("%s", ""), *key, *saved = NULL;
	bool ok = g_str_has_prefix(name, prefix);

	key = g_key_file_get_string(in->state, GRP, "saved-key", NULL);
	if (!ok && key && strlen(key) == 16) {
		saved = g_strdup_printf("saved-%s-", key);
		ok = g_str_has_prefix(name, saved);
	}
	ok = ok && !strchr(name, '/') && strcmp(name, "..") && name[0] != '.';
	g_free(prefix);
	g_free(key);
	g_free(saved);
	return ok;
}

/* The recorded list without NAME, plus NAME when ADD. */
static int record_volume(struct lab_inst *in, const char *name, bool add)
{
	gsize n = 0, i;
	char **v;
	GPtrArray *a = g_ptr_array_new();

	g_mutex_lock(&in->mu);
	v = g_key_file_get_string_list(in->state, GRP, "volumes", &n, NULL);
	for (i = 0; i < n; i++)
		if (strcmp(v[i], name))
			g_ptr_array_add(a, v[i]);
	if (add)
		g_ptr_array_add(a, (char *)name);
	g_key_file_set_string_list(in->state, GRP, "volumes",
				   (const char *const *)a->pdata, a->len);
	g_mutex_unlock(&in->mu);
	g_ptr_array_free(a, TRUE);
	g_strfreev(v);
	return lab_inst_save(in);
}

char *lab_inst_own(struct lab_inst *in, const char *name)
{
	/* recorded first: if lab dies after the create, down still finds it */
	if (record_volume(in, name, true) != 0)
		return NULL;
	return lab_store_path(in->store, name);
}

int lab_inst_disown(struct lab_inst *in, const char *name)
{
	return record_volume(in, name, false);
}

static int remove_own(struct lab_inst *in)
{
	gsize n = 0, i;
	char **v = g_key_file_get_string_list(in->state, GRP, "volumes", &n, NULL);
	int rc = 0;

	if (n && !in->store) /* a store named, but not reachable now */
		rc = -1;
	if (in->store)
		lab_store_refresh(in->store);
	for (i = 0; in->store && i < n; i++) {
		virStorageVolPtr vol;

		if (!may_own(in, v[i])) {
			lab_err("%s names volume '%s', which is not this instance's: left alone",
				in->state_path, v[i]);
			continue;
		}
		vol = virStorageVolLookupByName(in->store->pool, v[i]);

		if (vol && virStorageVolDelete(vol, 0) < 0) {
			lab_err("host %s: cannot delete %s: %s", in->store->host, v[i],
				lab_virt_error());
			rc = -1;
		}
		if (vol)
			virStorageVolFree(vol);
	}
	g_strfreev(v);
	return rc;
}

/* The last of every console into the local copy, which outlives `lab down`. */
static void keep_consoles(struct lab_inst *in)
{
	char **guests = lab_inst_guests(in->state);

	for (int i = 0; in->store && guests[i]; i++) {
		char *vol = lab_inst_guest_get(in, guests[i], "console-vol");
		char *local = lab_inst_guest_get(in, guests[i], "console");

		if (vol && local)
			lab_store_follow(in->store, vol, local);
		g_free(vol);
		g_free(local);
	}
	g_strfreev(guests);
}

/* ---- teardown: only what carries our owner tag ---- */

static bool domain_is_ours(virDomainPtr d)
{
	char *meta = virDomainGetMetadata(d, VIR_DOMAIN_METADATA_ELEMENT,
					  LAB_OWNER_NS, 0);
	struct lab_owner o = { 0 };
	bool ours = lab_owner_parse(meta, true, &o) && lab_owner_is_ours(&o);

	lab_owner_clear(&o);
	free(meta);
	return ours;
}

static bool network_is_ours(virNetworkPtr n)
{
	/* libvirt 9.0 keeps a network's <metadata> but has no API for it */
	char *xml = virNetworkGetXMLDesc(n, 0);
	struct lab_owner o = { 0 };
	bool ours = lab_owner_parse(xml, false, &o) && lab_owner_is_ours(&o);

	lab_owner_clear(&o);
	free(xml);
	return ours;
}

/* A destroy that finds the object gone (it died, or libvirtd dropped a
 * start its killed client never finished) has nothing left to do. */
static int gone_already(void)
{
	int code = virGetLastErrorCode();

	return code == VIR_ERR_NO_DOMAIN || code == VIR_ERR_NO_NETWORK ||
	       code == VIR_ERR_OPERATION_INVALID;
}

int lab_inst_destroy_domain(virConnectPtr c, const char *name)
{
	virDomainPtr d = virDomainLookupByName(c, name);
	int rc = 0;

	if (!d)
		return 0;
	if (!domain_is_ours(d)) {
		lab_err("domain %s does not carry instance '%s''s owner tag: left alone",
			name, lab_instance());
		virDomainFree(d);
		return 0;
	}
	if (virDomainDestroy(d) != 0 && !gone_already()) {
		lab_err("cannot destroy domain %s: %s", name, lab_virt_error());
		rc = -1;
	}
	virDomainFree(d);
	return rc;
}

static int destroy_network(virConnectPtr c, const char *name)
{
	virNetworkPtr n = virNetworkLookupByName(c, name);
	int rc = 0;

	if (!n)
		return 0;
	if (!network_is_ours(n)) {
		lab_err("network %s does not carry instance '%s''s owner tag: left alone",
			name, lab_instance());
		virNetworkFree(n);
		return 0;
	}
	if (virNetworkDestroy(n) != 0 && !gone_already()) {
		lab_err("cannot destroy network %s: %s", name, lab_virt_error());
		rc = -1;
	}
	virNetworkFree(n);
	return rc;
}

/* Also sweep what carries our tag but the state file does not know (lab
 * died between create and save). Names play no part: a foreign domain
 * named like ours is never touched. */
int lab_inst_sweep(virConnectPtr c)
{
	virDomainPtr *doms = NULL;
	virNetworkPtr *nets = NULL;
	int i, n, rc = 0;

	n = virConnectListAllDomains(c, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	for (i = 0; i < n; i++) {
		if (domain_is_ours(doms[i]) && virDomainDestroy(doms[i]) != 0 &&
		    !gone_already()) {
			char *msg = g_strdup(lab_virt_error());

			lab_err("cannot destroy domain %s: %s", virDomainGetName(doms[i]), msg);
			g_free(msg);
			rc = -1;
		}
		virDomainFree(doms[i]);
	}
	free(doms);
	n = virConnectListAllNetworks(c, &nets, VIR_CONNECT_LIST_NETWORKS_ACTIVE);
	for (i = 0; i < n; i++) {
		if (network_is_ours(nets[i]) && virNetworkDestroy(nets[i]) != 0 &&
		    !gone_already()) {
			char *msg = g_strdup(lab_virt_error());

			lab_err("cannot destroy network %s: %s", virNetworkGetName(nets[i]), msg);
			g_free(msg);
			rc = -1;
		}
		virNetworkFree(nets[i]);
	}
	free(nets);
	return rc;
}

/* Local files of the instance: the domain XML and temporary seeds. */
static void remove_files(struct lab_inst *in)
{
	GDir *d = g_dir_open(in->dir, 0, NULL);
	const char *f;

	if (!d)
		return;
	while ((f = g_dir_read_name(d))) {
		if (g_str_has_suffix(f, ".xml") || g_str_has_suffix(f, ".iso")) {
			char *p = g_build_filename(in->dir, f, NULL);

			unlink(p);
			g_free(p);
		}
	}
	g_dir_close(d);
}

/* Destroy what the state names, then whatever else carries our tag. The
 * state file and the volumes stay until every destroy was confirmed, so a
 * failed teardown can be retried by `lab down`. */
int lab_inst_teardown(struct lab_inst *in)
{
	gchar **groups = g_key_file_get_groups(in->state, NULL);
	int i, rc = 0;

	for (i = 0; groups && groups[i]; i++) {
		char *dom = g_key_file_get_string(in->state, groups[i], "domain", NULL);

		if (dom && lab_inst_destroy_domain(in->conn, dom) != 0)
			rc = -1;
		g_free(dom);
	}
	for (i = 0; groups && groups[i]; i++) {
		char *net = g_key_file_get_string(in->state, groups[i],
						  "libvirt-network", NULL);

		if (net && destroy_network(in->conn, net) != 0)
			rc = -1;
		g_free(net);
	}
	g_strfreev(groups);
	if (lab_inst_sweep(in->conn) != 0)
		rc = -1;
	if (rc != 0) {
		lab_err("teardown incomplete: %s kept; run `lab down` again", in->state_path);
		return rc;
	}
	keep_consoles(in);
	if (remove_own(in) != 0) {
		lab_err("volumes in the store kept: %s kept; run `lab down` again",
			in->state_path);
		return -1;
	}
	remove_files(in);
	unlink(in->state_path);
	return 0;
}

int lab_down(bool quiet)
{
	struct lab_inst in;
	int rc = 1;

	if (lab_inst_open(&in, false) != 0 || lab_inst_attach(&in) != 0)
		goto out;
	if (!quiet && !lab_exists(in.state_path))
		lab_info("instance '%s' is not up; removing anything left with its owner tag",
			 lab_instance());
	if (lab_inst_teardown(&in) != 0)
		goto out;
	if (!quiet)
		lab_info("instance '%s' is down", lab_instance());
	rc = 0;
out:
	lab_inst_close(&in);
	return rc;
}
