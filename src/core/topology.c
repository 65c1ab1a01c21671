/* topology.c - parse and validate a topology key file (read with the
 * strict INI reader, core/ini.h).
 *
 * Every bad input is refused here, before `lab up` builds or creates
 * anything, with a message FILE:LINE: [GROUP] KEY: why.
 */
#include "core/topology.h"
#include "core/ini.h"
#include "util/util.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const lab_known_roles[] = {
	"nfs-server", "nfs-client", "conntrack", "tty", "smoke", "ganesha", "nfs-peer", NULL
};

#define MAX_FILE_BYTES 65536
#define MAX_NAME 32
#define MAX_GUESTS 16
#define MAX_VCPUS 8
#define VCPUS_PER_HOST_CPU 4
#define MIN_MEMORY_MIB 256
#define MAX_MEMORY_MIB 16384
#define MAX_DISKS 8
#define MIN_DISK_MIB 16
#define MAX_DISK_MIB 65536
/* The kernel keeps 2048 bytes of command line (x86); lab's own part and
 * this one must fit, or the kernel cuts it without a word. Bytes. */
#define MAX_CMDLINE 1024
#define MAX_DESCRIPTION 256 /* characters */

/* Scratch disks are vdc, vdd, ... and the tests disk follows them: all
 * must stay within vdz (domxml.c counts the letter up). */
G_STATIC_ASSERT(MAX_DISKS + 1 <= 'z' - 'c' + 1);

static const char *const topology_keys[] = { "name", "description", "kernel",
					     NULL };
static const char *const network_keys[] = { NULL };
static const char *const guest_keys[] = { "role", "vcpus", "memory", "kernel",
					  "cmdline", "network", "address",
					  "disks", "devices", "export", NULL };
static const struct lab_ini_kind kinds[] = {
	{ "topology", false, topology_keys },
	{ "network ", true, network_keys },
	{ "guest ", true, guest_keys },
	{ NULL, false, NULL },
};

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

/* ---- names ---- */

/* Guest, network and topology names reach libvirt names, paths and the
 * guests' hostnames: one rule for all. NULL when fine, else why. */
static const char *name_error(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > MAX_NAME)
		return "must have 1 to 32 characters";
	if (strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != n)
		return "must use a-z, 0-9 and '-' only";
	if (name[0] == '-')
		return "must not start with '-'";
	return NULL;
}

/* ---- addresses ---- */

struct addr {
	int family;
	unsigned char b[16];
	int plen;
	char text[INET6_ADDRSTRLEN]; /* canonical (inet_ntop) */
};

static bool host_bits(const struct addr *a, bool ones)
{
	int bits = a->family == AF_INET ? 32 : 128, i;

	for (i = a->plen; i < bits; i++)
		if (!!(a->b[i / 8] & (0x80 >> (i % 8))) != ones)
			return false;
	return true;
}

/* The only addresses a guest may have can never be routed: IPv4
 * link-local 169.254.0.0/16 or IPv6 unique-local fc00::/7. NULL when
 * fine, else why. */
static const char *addr_rule(const struct addr *a)
{
	if (a->family == AF_INET) {
		if (a->b[0] != 169 || a->b[1] != 254)
			return "is not IPv4 link-local 169.254.0.0/16 (nor IPv6 ULA fc00::/7)";
		if (a->plen < 16 || a->plen > 30)
			return "needs an IPv4 prefix length of 16..30";
		if (host_bits(a, false))
			return "is the network address of its prefix";
		if (host_bits(a, true))
			return "is the broadcast address of its prefix";
		return NULL;
	}
	if ((a->b[0] & 0xfe) != 0xfc)
		return "is not IPv6 ULA fc00::/7 (nor IPv4 link-local 169.254.0.0/16)";
	if (a->plen < 8 || a->plen > 126)
		return "needs an IPv6 prefix length of 8..126";
	return NULL;
}

/* "HOST/PLEN", strictly; NULL when fine, else why. */
static const char *parse_address(const char *s, struct addr *a)
{
	const char *slash = strchr(s, '/');
	char host[INET6_ADDRSTRLEN];
	long plen;

	if (!slash)
		return "needs a /prefix length";
	if ((size_t)(slash - s) >= sizeof(host))
		return "is not an IPv4 or IPv6 address";
	memcpy(host, s, slash - s);
	host[slash - s] = '\0';
	if (!lab_ini_plain_number(slash + 1, &plen) || plen < 0)
		return "needs a /prefix length of plain digits";
	a->plen = (int)plen;
	if (inet_pton(AF_INET, host, a->b) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, host, a->b) == 1)
		a->family = AF_INET6;
	else
		return "is not an IPv4 or IPv6 address";
	inet_ntop(a->family, a->b, a->text, sizeof(a->text));
	return addr_rule(a);
}

static bool same_prefix(const struct addr *a, const struct addr *b)
{
	int i;

	if (a->family != b->family || a->plen != b->plen)
		return false;
	for (i = 0; i < a->plen; i++)
		if ((a->b[i / 8] ^ b->b[i / 8]) & (0x80 >> (i % 8)))
			return false;
	return true;
}

/* ---- guests ---- */

static void guest_free(gpointer p)
{
	struct lab_guest *g = p;

	g_free(g->name);
	g_free(g->role);
	g_free(g->kernel);
	g_free(g->cmdline);
	g_free(g->export);
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

static void parse_devices(struct lab_ini *l, const char *grp,
			  struct lab_guest *g)
{
	int i;

	g->devices = lab_ini_list(l, grp, "devices");
	if (!g->devices) {
		g->devices = g_new0(char *, 1);
		return;
	}
	for (i = 0; g->devices[i]; i++) {
		if (!in_list(g->devices[i], known_devices))
			lab_ini_bad_value(l, grp, "devices", g->devices[i],
				  "is not a known device (known: intel-hda)");
		else if (g_strv_contains((const char *const *)g->devices + i + 1,
					 g->devices[i]))
			lab_ini_bad_value(l, grp, "devices", g->devices[i], "is listed twice");
	}
}

static void parse_disks(struct lab_ini *l, const char *grp, struct lab_guest *g)
{
	char **v = lab_ini_list(l, grp, "disks");
	guint n = v ? g_strv_length(v) : 0, i;

	if (n > MAX_DISKS) {
		lab_ini_fail(l, grp, "disks", "%u disks, at most %d", n, MAX_DISKS);
		n = 0;
	}
	g->disks_mib = g_new0(int, n + 1);
	for (i = 0; i < n; i++)
		g->disks_mib[i] = lab_ini_number(l, grp, "disks", v[i], MIN_DISK_MIB,
					       MAX_DISK_MIB, "MiB, without a unit");
	g_strfreev(v);
}

static bool kernel_ok(const char *k)
{
	/* debian: Debian's own kernel and initrd, kept from the image */
	return !strcmp(k, "baseline") || !strcmp(k, "patched") || !strcmp(k, "debian");
}

static void parse_role(struct lab_ini *l, const char *grp, struct lab_guest *g)
{
	char *known, *why;

	g->role = lab_ini_str(l, grp, "role", NULL);
	if (!g->role || in_list(g->role, lab_known_roles))
		return;
	known = g_strjoinv(", ", (char **)lab_known_roles);
	why = g_strdup_printf("is not a known role (known: %s)", known);
	lab_ini_bad_value(l, grp, "role", g->role, why);
	g_free(known);
	g_free(why);
}

/* An nfs-server's export: sync (the default: a reply means the data is
 * on its disk) or async (the proof that the reboot group sees data the
 * server acknowledged and lost). */
static void parse_export(struct lab_ini *l, const char *grp, struct lab_guest *g)
{
	g->export = lab_ini_str(l, grp, "export", "sync");
	if (!g->export)
		return;
	if (strcmp(g->export, "sync") && strcmp(g->export, "async"))
		lab_ini_bad_value(l, grp, "export", g->export, "is neither sync nor async");
	else if (strcmp(g->export, "sync") && (!g->role || strcmp(g->role, "nfs-server")))
		lab_ini_fail(l, grp, "export", "is for role nfs-server only");
}

static void parse_cmdline(struct lab_ini *l, const char *grp,
			  struct lab_guest *g)
{
	const char *p;
	int quotes = 0;

	g->cmdline = lab_ini_str(l, grp, "cmdline", "");
	if (!g->cmdline)
		return;
	if (strlen(g->cmdline) > MAX_CMDLINE) {
		lab_ini_fail(l, grp, "cmdline", "longer than %d bytes", MAX_CMDLINE);
		return;
	}
	if (lab_ini_has_control(g->cmdline)) {
		lab_ini_fail(l, grp, "cmdline", "holds a control character");
		return;
	}
	/* the kernel quotes with " only: an open one swallows the rest of
	 * the line, lab's own options included */
	for (p = g->cmdline; *p; p++)
		quotes += *p == '"';
	if (quotes % 2)
		lab_ini_bad_value(l, grp, "cmdline", g->cmdline, "has an unbalanced '\"'");
}

static void parse_address_key(struct lab_ini *l, const char *grp,
			      struct lab_guest *g)
{
	struct addr a;
	const char *why;

	g->address = lab_ini_str(l, grp, "address", NULL);
	if (g->address && (why = parse_address(g->address, &a)))
		lab_ini_bad_value(l, grp, "address", g->address, why);
}

static struct lab_guest *parse_guest(struct lab_ini *l, const char *grp,
				     const char *kernel)
{
	struct lab_guest *g = g_new0(struct lab_guest, 1);

	g->name = g_strdup(grp + strlen("guest "));
	parse_role(l, grp, g);
	g->vcpus = lab_ini_int(l, grp, "vcpus", 1, 1, MAX_VCPUS, "vCPUs");
	g->memory_mib = lab_ini_int(l, grp, "memory", 768, MIN_MEMORY_MIB,
				MAX_MEMORY_MIB, "MiB, without a unit");
	g->kernel = lab_ini_str(l, grp, "kernel", kernel);
	if (g->kernel && !kernel_ok(g->kernel))
		lab_ini_bad_value(l, grp, "kernel", g->kernel, "is not baseline, patched or debian");
	parse_cmdline(l, grp, g);
	parse_export(l, grp, g);
	g->network = lab_ini_str(l, grp, "network", NULL);
	parse_address_key(l, grp, g);
	parse_devices(l, grp, g);
	parse_disks(l, grp, g);
	return g;
}

/* ---- across guests ---- */

/* "169.254.0.0/16": the prefix an address is in. */
static char *prefix_text(const struct addr *a)
{
	struct addr p = *a;
	char text[INET6_ADDRSTRLEN];
	int i;

	for (i = p.plen; i < (p.family == AF_INET ? 32 : 128); i++)
		p.b[i / 8] &= ~(0x80 >> (i % 8));
	inet_ntop(p.family, p.b, text, sizeof(text));
	return g_strdup_printf("%s/%d", text, p.plen);
}

/* Guest i's address against those before it: its own (compared in
 * canonical form, so fd00::1 is FD00:0::1) and in the prefix of the first
 * guest on its network. */
static void check_address(struct lab_ini *l, struct lab_topology *t,
			  struct addr *addrs, guint i)
{
	struct lab_guest *g = g_ptr_array_index(t->guests, i);
	char *grp = g_strdup_printf("guest %s", g->name);
	guint j;

	for (j = 0; j < i; j++) {
		struct lab_guest *o = g_ptr_array_index(t->guests, j);

		if (memcmp(addrs[j].b, addrs[i].b, 16) == 0 &&
		    addrs[j].family == addrs[i].family) {
			lab_ini_fail(l, grp, "address", "address %s is used by guest %s too",
			     addrs[i].text, o->name);
			break;
		}
	}
	for (j = 0; j < i; j++) {
		struct lab_guest *o = g_ptr_array_index(t->guests, j);
		char *prefix;

		if (strcmp(o->network, g->network) != 0)
			continue;
		if (!same_prefix(&addrs[i], &addrs[j])) {
			prefix = prefix_text(&addrs[j]);
			lab_ini_fail(l, grp, "address",
			     "%s is not in %s, the prefix of guest %s on network %s",
			     g->address, prefix, o->name, g->network);
			g_free(prefix);
		}
		break;
	}
	g_free(grp);
}

static void check_networks(struct lab_ini *l, struct lab_topology *t)
{
	struct addr *addrs = g_new0(struct addr, t->guests->len);
	guint i;

	for (i = 0; i < t->guests->len; i++) {
		struct lab_guest *g = g_ptr_array_index(t->guests, i);

		if (!lab_topology_network(t, g->network)) {
			char *grp = g_strdup_printf("guest %s", g->name);

			lab_ini_fail(l, grp, "network", "no [network %s] section", g->network);
			g_free(grp);
		}
		parse_address(g->address, &addrs[i]);
		check_address(l, t, addrs, i);
	}
	g_free(addrs);
}

/* All guests together must fit the host: its memory, and vCPUs at most
 * VCPUS_PER_HOST_CPU per host CPU (TCG guests past that only starve). */
static void check_host(struct lab_ini *l, struct lab_topology *t,
		       long host_mem_mib, int host_cpus)
{
	long mem = 0, vcpus = 0;
	guint i;

	for (i = 0; i < t->guests->len; i++) {
		struct lab_guest *g = g_ptr_array_index(t->guests, i);

		mem += g->memory_mib;
		vcpus += g->vcpus;
	}
	if (host_mem_mib > 0 && mem > host_mem_mib)
		lab_ini_fail(l, "topology", NULL,
		     "the guests need %ld MiB of memory, the host has %ld MiB",
		     mem, host_mem_mib);
	if (host_cpus > 0 && vcpus > (long)host_cpus * VCPUS_PER_HOST_CPU)
		lab_ini_fail(l, "topology", NULL,
		     "the guests need %ld vCPUs, more than %d per host CPU (the host has %d)",
		     vcpus, VCPUS_PER_HOST_CPU, host_cpus);
}

/* ---- the whole file ---- */

static void parse_header(struct lab_ini *l, struct lab_topology *t)
{
	const char *why;

	t->name = lab_ini_str(l, "topology", "name", NULL);
	if (t->name && (why = name_error(t->name)))
		lab_ini_bad_value(l, "topology", "name", t->name, why);
	t->description = lab_ini_str(l, "topology", "description", "");
	if (t->description && g_utf8_strlen(t->description, -1) > MAX_DESCRIPTION)
		lab_ini_fail(l, "topology", "description", "longer than %d characters",
		     MAX_DESCRIPTION);
	else if (t->description && lab_ini_has_control(t->description))
		lab_ini_fail(l, "topology", "description", "holds a control character");
}

static void parse_groups(struct lab_ini *l, struct lab_topology *t,
			 const char *kernel)
{
	gchar **groups = g_key_file_get_groups(l->kf, NULL);
	int i;

	/* the prescan let only known kinds of sections through */
	for (i = 0; groups[i] && !l->err; i++) {
		if (g_str_has_prefix(groups[i], "network ")) {
			struct lab_network *n = g_new0(struct lab_network, 1);

			n->name = g_strdup(groups[i] + strlen("network "));
			g_ptr_array_add(t->networks, n);
		} else if (g_str_has_prefix(groups[i], "guest ")) {
			if (t->guests->len == MAX_GUESTS)
				lab_ini_fail(l, groups[i], NULL, "more than %d guests",
				     MAX_GUESTS);
			else
				g_ptr_array_add(t->guests,
						parse_guest(l, groups[i], kernel));
		}
	}
	g_strfreev(groups);
}

static struct lab_topology *parse(struct lab_ini *l, long host_mem_mib,
				  int host_cpus)
{
	struct lab_topology *t = g_new0(struct lab_topology, 1);
	char *kernel;

	t->path = g_strdup(l->path);
	t->guests = g_ptr_array_new_with_free_func(guest_free);
	t->networks = g_ptr_array_new_with_free_func(network_free);
	if (!g_key_file_has_group(l->kf, "topology")) {
		lab_ini_fail_at(l, 0, NULL, NULL, "missing [topology] section");
		return t;
	}
	parse_header(l, t);
	kernel = lab_ini_str(l, "topology", "kernel", "patched");
	if (kernel && !kernel_ok(kernel))
		lab_ini_bad_value(l, "topology", "kernel", kernel, "is not baseline, patched or debian");
	if (!l->err)
		parse_groups(l, t, kernel);
	g_free(kernel);
	if (!l->err && t->guests->len == 0)
		lab_ini_fail(l, "topology", NULL, "no [guest NAME] sections");
	if (!l->err)
		check_networks(l, t);
	if (!l->err)
		check_host(l, t, host_mem_mib, host_cpus);
	return t;
}

struct lab_topology *lab_topology_load_host(const char *path,
					    long host_mem_mib, int host_cpus,
					    char **err)
{
	struct lab_ini l = { .path = path, .kinds = kinds, .what = "a topology",
			     .expected = "[topology], [network NAME], [guest NAME]",
			     .name_error = name_error };
	struct lab_topology *t = NULL;

	if (lab_ini_load_file(&l, MAX_FILE_BYTES) == 0)
		t = parse(&l, host_mem_mib, host_cpus);
	if (l.err) {
		lab_topology_free(t);
		t = NULL;
	}
	*err = l.err;
	lab_ini_clear(&l);
	return t;
}

struct lab_topology *lab_topology_load(const char *path, long host_mem_mib,
				       char **err)
{
	return lab_topology_load_host(path, host_mem_mib, 0, err);
}

static long host_mem_mib(void)
{
	return sysconf(_SC_PHYS_PAGES) / 1024 * sysconf(_SC_PAGESIZE) / 1024;
}

struct lab_topology *lab_topology_open(const char *name_or_path)
{
	char *path = lab_topology_path(name_or_path);
	char *err = NULL;
	struct lab_topology *t = lab_topology_load_host(path, host_mem_mib(),
		(int)sysconf(_SC_NPROCESSORS_ONLN), &err);

	if (!t && !lab_exists(path) && !strchr(name_or_path, '/')) {
		char *known = lab_topology_names();

		lab_err("no topology '%s' (%s): the topologies are %s", name_or_path, path,
			known);
		g_free(known);
	} else if (!t) {
		lab_err("bad topology: %s", err);
	}
	g_free(err);
	g_free(path);
	return t;
}

char *lab_topology_names(void)
{
	char *dir = g_build_filename(lab_srcdir(), "topologies", NULL);
	GDir *d = g_dir_open(dir, 0, NULL);
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	const char *n;
	char *out;

	while (d && (n = g_dir_read_name(d)))
		if (g_str_has_suffix(n, ".ini"))
			g_ptr_array_add(names, g_strndup(n, strlen(n) - 4));
	g_ptr_array_sort(names, (GCompareFunc)lab_strcmp_p);
	g_ptr_array_add(names, NULL);
	out = names->len > 1 ? g_strjoinv(", ", (char **)names->pdata)
			     : g_strdup("none (no topologies/*.ini)");
	if (d)
		g_dir_close(d);
	g_ptr_array_free(names, TRUE);
	g_free(dir);
	return out;
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

struct lab_network *lab_topology_network(struct lab_topology *t,
					 const char *name)
{
	guint i;

	for (i = 0; name && i < t->networks->len; i++) {
		struct lab_network *n = g_ptr_array_index(t->networks, i);

		if (strcmp(n->name, name) == 0)
			return n;
	}
	return NULL;
}

/* ---- lab check-topology ---- */

static void print_guest(const struct lab_guest *g)
{
	char *devices = g_strjoinv(",", g->devices);
	GString *disks = g_string_new("");
	int i;

	for (i = 0; g->disks_mib[i]; i++)
		g_string_append_printf(disks, "%s%d", i ? "," : "", g->disks_mib[i]);
	printf("  %-12s role=%s kernel=%s vcpus=%d memory=%d network=%s address=%s"
	       " disks=%s devices=%s\n", g->name, g->role, g->kernel, g->vcpus,
	       g->memory_mib, g->network, g->address,
	       disks->len ? disks->str : "-", *devices ? devices : "-");
	g_string_free(disks, TRUE);
	g_free(devices);
}

void lab_topology_print(const struct lab_topology *t)
{
	long mem = 0, vcpus = 0;
	guint i;

	for (i = 0; i < t->guests->len; i++) {
		const struct lab_guest *g = g_ptr_array_index(t->guests, i);

		mem += g->memory_mib;
		vcpus += g->vcpus;
	}
	printf("%s: topology %s: %u guest%s, %u network%s, %ld vCPU%s, %ld MiB\n",
	       t->path, t->name, t->guests->len, t->guests->len == 1 ? "" : "s",
	       t->networks->len, t->networks->len == 1 ? "" : "s", vcpus,
	       vcpus == 1 ? "" : "s", mem);
	for (i = 0; i < t->guests->len; i++)
		print_guest(g_ptr_array_index(t->guests, i));
}
