/* topology.c - parse and validate a topology key file.
 *
 * GKeyFile does the parsing. It reports neither line numbers for values
 * nor duplicate groups (it merges them), so a small pre-scan records where
 * each group and key sits, purely to name the line in error messages.
 */
#include "topology.h"
#include "util.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const lab_known_roles[] = {
	"nfs-server", "nfs-client", "conntrack", "tty", "smoke", "ganesha", NULL
};

#define MAX_VCPUS 8
#define MIN_MEMORY_MIB 256

struct loader {
	const char *path;
	GKeyFile *kf;
	GHashTable *lines; /* "group\nkey" or "group" -> line number */
	char *err;
};

static void fail(struct loader *l, const char *group, const char *key,
		 const char *fmt, ...) G_GNUC_PRINTF(4, 5);

static void fail(struct loader *l, const char *group, const char *key,
		 const char *fmt, ...)
{
	char *id = key ? g_strdup_printf("%s\n%s", group, key) : g_strdup(group);
	int line = GPOINTER_TO_INT(g_hash_table_lookup(l->lines, id));
	char *msg;
	va_list ap;

	if (l->err) { /* keep the first error: it is the cause */
		g_free(id);
		return;
	}
	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	if (key)
		l->err = g_strdup_printf("%s:%d: [%s] %s: %s", l->path, line,
					 group, key, msg);
	else
		l->err = g_strdup_printf("%s:%d: [%s]: %s", l->path, line,
					 group, msg);
	g_free(msg);
	g_free(id);
}

/* Record line numbers of groups and keys; catch duplicate groups. */
static void prescan(struct loader *l, const char *data)
{
	gchar **lines = g_strsplit(data, "\n", -1);
	char *group = NULL;
	int i;

	for (i = 0; lines[i] && !l->err; i++) {
		char *s = g_strstrip(lines[i]);
		char *eq;

		if (*s == '[' && s[strlen(s) - 1] == ']') {
			g_free(group);
			group = g_strndup(s + 1, strlen(s) - 2);
			if (g_hash_table_contains(l->lines, group)) {
				l->err = g_strdup_printf(
					"%s:%d: duplicate section [%s] (first at line %d)",
					l->path, i + 1, group,
					GPOINTER_TO_INT(g_hash_table_lookup(l->lines, group)));
				break;
			}
			g_hash_table_insert(l->lines, g_strdup(group),
					    GINT_TO_POINTER(i + 1));
		} else if (group && *s && *s != '#' && (eq = strchr(s, '='))) {
			char *key = g_strstrip(g_strndup(s, eq - s));

			g_hash_table_insert(l->lines,
					    g_strdup_printf("%s\n%s", group, key),
					    GINT_TO_POINTER(i + 1));
			g_free(key);
		}
	}
	g_free(group);
	g_strfreev(lines);
}

static bool role_known(const char *role)
{
	int i;

	for (i = 0; lab_known_roles[i]; i++)
		if (strcmp(role, lab_known_roles[i]) == 0)
			return true;
	return false;
}

static char *get_str(struct loader *l, const char *g, const char *k,
		     const char *def)
{
	char *v = g_key_file_get_string(l->kf, g, k, NULL);

	if (!v && !def) {
		fail(l, g, NULL, "missing key '%s'", k);
		return NULL;
	}
	return v ? g_strstrip(v) : g_strdup(def);
}

static int get_int(struct loader *l, const char *g, const char *k, int def,
		   int min, int max)
{
	GError *e = NULL;
	int v;

	if (!g_key_file_has_key(l->kf, g, k, NULL))
		return def;
	v = g_key_file_get_integer(l->kf, g, k, &e);
	if (e) {
		fail(l, g, k, "not an integer");
		g_error_free(e);
		return def;
	}
	if (v < min || v > max)
		fail(l, g, k, "%d is out of range %d..%d", v, min, max);
	return v;
}

/* Guests may only use addresses that can never be routed: IPv4 link-local
 * 169.254.0.0/16 or IPv6 unique-local fc00::/7, with a prefix length. */
static bool address_ok(const char *a)
{
	char *slash = strchr(a, '/');
	char host[64];
	unsigned char buf[16];
	char *end;
	long plen;

	if (!slash || (size_t)(slash - a) >= sizeof(host))
		return false;
	memcpy(host, a, slash - a);
	host[slash - a] = '\0';
	plen = strtol(slash + 1, &end, 10);
	if (*end || end == slash + 1)
		return false;
	if (inet_pton(AF_INET, host, buf) == 1)
		return buf[0] == 169 && buf[1] == 254 && plen >= 16 && plen <= 30;
	if (inet_pton(AF_INET6, host, buf) == 1)
		return (buf[0] & 0xfe) == 0xfc && plen >= 8 && plen <= 126;
	return false;
}

static void guest_free(gpointer p)
{
	struct lab_guest *g = p;

	g_free(g->name);
	g_free(g->role);
	g_free(g->kernel);
	g_free(g->cmdline);
	g_strfreev(g->devices);
	g_free(g->disks_mib);
	g_free(g->network);
	g_free(g->address);
	g_free(g);
}

static void network_free(gpointer p)
{
	struct lab_network *n = p;

	g_free(n->name);
	g_free(n);
}

static const char *const known_devices[] = { "intel-hda", NULL };

static void parse_devices(struct loader *l, const char *grp,
			  struct lab_guest *g)
{
	int i, j;

	g->devices = g_key_file_get_string_list(l->kf, grp, "devices", NULL,
						NULL);
	if (!g->devices)
		g->devices = g_new0(char *, 1);
	for (i = 0; g->devices[i]; i++) {
		g_strstrip(g->devices[i]);
		for (j = 0; known_devices[j]; j++)
			if (strcmp(g->devices[i], known_devices[j]) == 0)
				break;
		if (!known_devices[j])
			fail(l, grp, "devices", "unknown device '%s' (known: intel-hda)",
			     g->devices[i]);
	}
}

static void parse_disks(struct loader *l, const char *grp, struct lab_guest *g)
{
	gsize n = 0, i;
	gint *v = NULL;
	GError *e = NULL;

	if (g_key_file_has_key(l->kf, grp, "disks", NULL))
		v = g_key_file_get_integer_list(l->kf, grp, "disks", &n, &e);
	if (e) {
		fail(l, grp, "disks", "a list of sizes in MiB, e.g. disks=1024;");
		g_error_free(e);
	}
	g->disks_mib = g_new0(int, n + 1);
	for (i = 0; i < n; i++) {
		if (v[i] < 16 || v[i] > 65536)
			fail(l, grp, "disks", "disk size %d MiB out of range 16..65536",
			     v[i]);
		g->disks_mib[i] = v[i];
	}
	g_free(v);
}

static struct lab_guest *parse_guest(struct loader *l, const char *grp,
				     const char *name, const char *kernel)
{
	struct lab_guest *g = g_new0(struct lab_guest, 1);

	g->name = g_strdup(name);
	if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") !=
	    strlen(name))
		fail(l, grp, NULL, "guest names use a-z, 0-9 and '-'");
	g->role = get_str(l, grp, "role", NULL);
	if (g->role && !role_known(g->role)) {
		char *known = g_strjoinv(", ", (char **)lab_known_roles);

		fail(l, grp, "role", "unknown role '%s' (known: %s)", g->role,
		     known);
		g_free(known);
	}
	g->vcpus = get_int(l, grp, "vcpus", 1, 1, MAX_VCPUS);
	g->memory_mib = get_int(l, grp, "memory", 768, MIN_MEMORY_MIB, 1 << 20);
	g->kernel = get_str(l, grp, "kernel", kernel);
	if (g->kernel && strcmp(g->kernel, "baseline") &&
	    strcmp(g->kernel, "patched") && strcmp(g->kernel, "debian"))
		fail(l, grp, "kernel", "'%s' is not baseline, patched or debian", g->kernel);
	g->cmdline = get_str(l, grp, "cmdline", "");
	g->network = get_str(l, grp, "network", NULL);
	g->address = get_str(l, grp, "address", NULL);
	if (g->address && !address_ok(g->address))
		fail(l, grp, "address",
		     "'%s' must be IPv4 link-local 169.254.0.0/16 or IPv6 ULA fc00::/7, with a /prefix",
		     g->address);
	parse_devices(l, grp, g);
	parse_disks(l, grp, g);
	return g;
}

static void check_guests(struct loader *l, struct lab_topology *t,
			 long host_mem_mib)
{
	GHashTable *addrs = g_hash_table_new_full(g_str_hash, g_str_equal,
						  g_free, NULL);
	long total = 0;
	guint i, j;

	for (i = 0; i < t->guests->len; i++) {
		struct lab_guest *g = g_ptr_array_index(t->guests, i);
		char *grp = g_strdup_printf("guest %s", g->name);
		char *host = g->address ? g_strndup(g->address,
			strcspn(g->address, "/")) : NULL;
		bool net_ok = false;

		for (j = 0; j < t->networks->len; j++) {
			struct lab_network *n = g_ptr_array_index(t->networks, j);

			net_ok |= g->network && strcmp(n->name, g->network) == 0;
		}
		if (g->network && !net_ok)
			fail(l, grp, "network", "no [network %s] section",
			     g->network);
		if (host && g_hash_table_contains(addrs, host)) {
			fail(l, grp, "address", "address %s is used by guest %s too",
			     host, (char *)g_hash_table_lookup(addrs, host));
			g_free(host);
		} else if (host) {
			g_hash_table_insert(addrs, host, g->name);
		}
		total += g->memory_mib;
		g_free(grp);
	}
	if (host_mem_mib > 0 && total > host_mem_mib)
		fail(l, "topology", NULL,
		     "the guests need %ld MiB of memory, the host has %ld MiB",
		     total, host_mem_mib);
	g_hash_table_destroy(addrs);
}

static struct lab_topology *parse(struct loader *l, long host_mem_mib)
{
	struct lab_topology *t = g_new0(struct lab_topology, 1);
	gchar **groups = g_key_file_get_groups(l->kf, NULL);
	char *kernel;
	int i;

	t->path = g_strdup(l->path);
	t->guests = g_ptr_array_new_with_free_func(guest_free);
	t->networks = g_ptr_array_new_with_free_func(network_free);
	if (!g_key_file_has_group(l->kf, "topology")) {
		l->err = g_strdup_printf("%s: missing [topology] section", l->path);
		g_strfreev(groups);
		return t;
	}
	t->name = get_str(l, "topology", "name", NULL);
	t->description = get_str(l, "topology", "description", "");
	kernel = get_str(l, "topology", "kernel", "patched");
	for (i = 0; groups[i]; i++) {
		if (g_str_has_prefix(groups[i], "network ")) {
			struct lab_network *n = g_new0(struct lab_network, 1);

			n->name = g_strdup(groups[i] + 8);
			g_ptr_array_add(t->networks, n);
		} else if (g_str_has_prefix(groups[i], "guest ")) {
			g_ptr_array_add(t->guests, parse_guest(l, groups[i],
				groups[i] + 6, kernel));
		} else if (strcmp(groups[i], "topology") != 0) {
			fail(l, groups[i], NULL,
			     "unknown section (expected [topology], [network NAME], [guest NAME])");
		}
	}
	if (t->guests->len == 0)
		fail(l, "topology", NULL, "no [guest NAME] sections");
	check_guests(l, t, host_mem_mib);
	g_free(kernel);
	g_strfreev(groups);
	return t;
}

struct lab_topology *lab_topology_load(const char *path, long host_mem_mib,
				       char **err)
{
	struct loader l = { .path = path };
	struct lab_topology *t = NULL;
	GError *e = NULL;
	gchar *data = NULL;
	gsize len;

	*err = NULL;
	if (!g_file_get_contents(path, &data, &len, &e)) {
		*err = g_strdup_printf("%s: %s", path, e->message);
		g_error_free(e);
		return NULL;
	}
	l.lines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	l.kf = g_key_file_new();
	prescan(&l, data);
	if (!l.err && !g_key_file_load_from_data(l.kf, data, len,
						 G_KEY_FILE_NONE, &e)) {
		l.err = g_strdup_printf("%s: %s", path, e->message);
		g_error_free(e);
	}
	if (!l.err)
		t = parse(&l, host_mem_mib);
	if (l.err) {
		lab_topology_free(t);
		t = NULL;
		*err = l.err;
	}
	g_key_file_free(l.kf);
	g_hash_table_destroy(l.lines);
	g_free(data);
	return t;
}

struct lab_topology *lab_topology_open(const char *name_or_path)
{
	char *path = lab_topology_path(name_or_path);
	long mem = sysconf(_SC_PHYS_PAGES) / 1024 * sysconf(_SC_PAGESIZE) / 1024;
	char *err = NULL;
	struct lab_topology *t = lab_topology_load(path, mem, &err);

	if (!t) {
		lab_err("bad topology: %s", err);
		g_free(err);
	}
	g_free(path);
	return t;
}

char *lab_topology_path(const char *name)
{
	char *file;
	char *path;

	if (strchr(name, '/') || g_str_has_suffix(name, ".ini"))
		return g_strdup(name);
	file = g_strconcat(name, ".ini", NULL);
	path = g_build_filename(lab_srcdir(), "topologies", file, NULL);
	g_free(file);
	return path;
}

void lab_topology_free(struct lab_topology *t)
{
	if (!t)
		return;
	g_free(t->name);
	g_free(t->path);
	g_free(t->description);
	g_ptr_array_free(t->guests, TRUE);
	g_ptr_array_free(t->networks, TRUE);
	g_free(t);
}

void lab_topology_set_kernel(struct lab_topology *t, const char *kernel)
{
	guint i;

	for (i = 0; i < t->guests->len; i++) {
		struct lab_guest *g = g_ptr_array_index(t->guests, i);

		g_free(g->kernel);
		g->kernel = g_strdup(kernel);
	}
}

struct lab_guest *lab_topology_guest(struct lab_topology *t, const char *name)
{
	guint i;

	for (i = 0; i < t->guests->len; i++) {
		struct lab_guest *g = g_ptr_array_index(t->guests, i);

		if (strcmp(g->name, name) == 0)
			return g;
	}
	return NULL;
}
