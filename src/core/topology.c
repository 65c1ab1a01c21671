/* topology.c - parse and validate a topology key file.
 *
 * Every bad input is refused here, before `lab up` builds or creates
 * anything, with a message FILE:LINE: [GROUP] KEY: why.
 *
 * GKeyFile does the parsing, but it names no line, merges duplicate groups,
 * keeps the last of duplicate keys, files `key[xx]=` away as a translation,
 * stops at a NUL byte and hands back a default for a value it cannot read.
 * So a prescan first walks the lines the way GKeyFile reads them, records
 * where each group and key sits, and refuses all of that with its line.
 */
#include "core/topology.h"
#include "util/util.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const lab_known_roles[] = {
	"nfs-server", "nfs-client", "conntrack", "tty", "smoke", "ganesha", NULL
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
#define SHOWN_MAX 48 /* characters of a bad value quoted in a message */

/* Scratch disks are vdc, vdd, ... and the tests disk follows them: all
 * must stay within vdz (domxml.c counts the letter up). */
G_STATIC_ASSERT(MAX_DISKS + 1 <= 'z' - 'c' + 1);

enum kind { K_TOPOLOGY, K_NETWORK, K_GUEST };

static const char *const topology_keys[] = { "name", "description", "kernel",
					     NULL };
static const char *const network_keys[] = { NULL };
static const char *const guest_keys[] = { "role", "vcpus", "memory", "kernel",
					  "cmdline", "network", "address",
					  "disks", "devices", NULL };
static const char *const *const keys_of[] = {
	[K_TOPOLOGY] = topology_keys,
	[K_NETWORK] = network_keys,
	[K_GUEST] = guest_keys,
};

struct loader {
	const char *path;
	GKeyFile *kf;
	GHashTable *lines; /* "group\nkey" or "group" -> line number */
	char *err;
};

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

/* One character as a message shows it: \n, \t, \r, \\, \ooo for a control
 * byte or a byte of invalid UTF-8, \u00XX for a C1 control character. */
static void show_char(GString *out, const char *p, bool utf8)
{
	unsigned char c = *p;
	gunichar u = utf8 ? g_utf8_get_char(p) : c;

	if (c == '\n' || c == '\t' || c == '\r' || c == '\\')
		g_string_append_printf(out, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' :
				       c == '\r' ? 'r' : '\\');
	else if (c < 0x20 || c == 0x7f || (!utf8 && c >= 0x80))
		g_string_append_printf(out, "\\%03o", c);
	else if (g_unichar_iscntrl(u))
		g_string_append_printf(out, "\\u%04x", u);
	else
		g_string_append_len(out, p, utf8 ? g_utf8_next_char(p) - p : 1);
}

/* A value as a message shows it: control characters escaped, so a bad
 * file cannot write to the terminal; long values cut short. */
static char *shown(const char *v)
{
	bool utf8 = g_utf8_validate(v, -1, NULL);
	GString *out = g_string_new(NULL);
	const char *p = v;
	int n;

	for (n = 0; *p && n < SHOWN_MAX; n++) {
		show_char(out, p, utf8);
		p = utf8 ? g_utf8_next_char(p) : p + 1;
	}
	if (*p)
		g_string_append(out, "...");
	return g_string_free(out, FALSE);
}

static void vfail_at(struct loader *l, int line, const char *group,
		     const char *key, const char *fmt, va_list ap)
{
	char *where, *g, *k, *msg;

	if (l->err) /* keep the first error: it is the cause */
		return;
	where = line > 0 ? g_strdup_printf("%s:%d", l->path, line) : g_strdup(l->path);
	g = group ? shown(group) : NULL;
	k = key ? shown(key) : NULL;
	msg = g_strdup_vprintf(fmt, ap);
	if (g && k)
		l->err = g_strdup_printf("%s: [%s] %s: %s", where, g, k, msg);
	else if (g)
		l->err = g_strdup_printf("%s: [%s]: %s", where, g, msg);
	else
		l->err = g_strdup_printf("%s: %s", where, msg);
	g_free(msg);
	g_free(where);
	g_free(g);
	g_free(k);
}

static void fail_at(struct loader *l, int line, const char *group,
		    const char *key, const char *fmt, ...) G_GNUC_PRINTF(5, 6);

static void fail_at(struct loader *l, int line, const char *group,
		    const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(l, line, group, key, fmt, ap);
	va_end(ap);
}

/* The line of a key, or of its group when the key is absent. */
static int line_of(struct loader *l, const char *group, const char *key)
{
	char *id = key ? g_strdup_printf("%s\n%s", group, key) : NULL;
	gpointer n = id ? g_hash_table_lookup(l->lines, id) : NULL;

	g_free(id);
	return GPOINTER_TO_INT(n ? n : g_hash_table_lookup(l->lines, group));
}

static void fail(struct loader *l, const char *group, const char *key,
		 const char *fmt, ...) G_GNUC_PRINTF(4, 5);

static void fail(struct loader *l, const char *group, const char *key,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(l, line_of(l, group, key), group, key, fmt, ap);
	va_end(ap);
}

/* "'VALUE' why", the value shown safely. */
static void bad_value(struct loader *l, const char *group, const char *key,
		      const char *value, const char *why)
{
	char *v = shown(value);

	fail(l, group, key, "'%s' %s", v, why);
	g_free(v);
}

/* ---- names, numbers, text ---- */

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

/* Digits only: no sign, unit, space or leading zero. A number too long
 * for an int is reported out of range (*v = -1). */
static bool plain_number(const char *s, long *v)
{
	size_t n = strspn(s, "0123456789");

	if (n == 0 || s[n] || (s[0] == '0' && n > 1))
		return false;
	*v = n > 9 ? -1 : strtol(s, NULL, 10);
	return true;
}

/* Text for a command line or a terminal: no control character. */
static bool has_control(const char *s)
{
	const char *p;

	for (p = s; *p; p = g_utf8_next_char(p))
		if (g_unichar_iscntrl(g_utf8_get_char(p)))
			return true;
	return false;
}

/* ---- prescan: the lines as GKeyFile reads them ---- */

struct scan {
	struct loader *l;
	char *group; /* current group, NULL before the first */
	enum kind kind;
	int line;
};

static bool kind_of(const char *group, enum kind *kind, const char **name)
{
	if (strcmp(group, "topology") == 0) {
		*kind = K_TOPOLOGY;
		*name = NULL;
	} else if (g_str_has_prefix(group, "network ")) {
		*kind = K_NETWORK;
		*name = group + strlen("network ");
	} else if (g_str_has_prefix(group, "guest ")) {
		*kind = K_GUEST;
		*name = group + strlen("guest ");
	} else {
		return false;
	}
	return true;
}

static void scan_group(struct scan *s, const char *group)
{
	struct loader *l = s->l;
	const char *name, *why;
	int first;

	g_clear_pointer(&s->group, g_free);
	if (!g_utf8_validate(group, -1, NULL)) {
		fail_at(l, s->line, group, NULL, "not valid UTF-8");
		return;
	}
	if (!kind_of(group, &s->kind, &name)) {
		fail_at(l, s->line, group, NULL,
			"unknown section (expected [topology], [network NAME], [guest NAME])");
		return;
	}
	if (name && (why = name_error(name))) {
		char *v = shown(name);

		fail_at(l, s->line, group, NULL, "the name '%s' %s", v, why);
		g_free(v);
		return;
	}
	first = GPOINTER_TO_INT(g_hash_table_lookup(l->lines, group));
	if (first) {
		fail_at(l, s->line, group, NULL,
			"duplicate section (first at line %d)", first);
		return;
	}
	g_hash_table_insert(l->lines, g_strdup(group), GINT_TO_POINTER(s->line));
	s->group = g_strdup(group);
}

static void scan_key(struct scan *s, const char *key, const char *value)
{
	struct loader *l = s->l;
	char *id, *known;
	int first;

	if (!s->group) {
		fail_at(l, s->line, NULL, NULL,
			"a key=value line before the first [section]");
		return;
	}
	if (!g_utf8_validate(key, -1, NULL) || !g_utf8_validate(value, -1, NULL)) {
		fail_at(l, s->line, s->group, key, "not valid UTF-8");
		return;
	}
	if (!in_list(key, keys_of[s->kind])) {
		known = g_strjoinv(", ", (char **)keys_of[s->kind]);
		fail_at(l, s->line, s->group, key, "unknown key (known here: %s)",
			*known ? known : "none");
		g_free(known);
		return;
	}
	id = g_strdup_printf("%s\n%s", s->group, key);
	first = GPOINTER_TO_INT(g_hash_table_lookup(l->lines, id));
	if (first) {
		fail_at(l, s->line, s->group, key,
			"duplicate key (first at line %d)", first);
		g_free(id);
		return;
	}
	g_hash_table_insert(l->lines, id, GINT_TO_POINTER(s->line));
}

/* "[name]" then only blanks, as GKeyFile takes a group line; NULL if not. */
static char *group_of_line(const char *s)
{
	const char *close = strchr(s, ']');

	if (*s != '[' || !close || close[1 + strspn(close + 1, " \t")])
		return NULL;
	return g_strndup(s + 1, close - s - 1);
}

static void scan_line(struct scan *s, char *line)
{
	char *p = line, *group, *eq, *key;

	while (g_ascii_isspace(*p))
		p++;
	if (!*p || *p == '#') {
		if (!g_utf8_validate(p, -1, NULL))
			fail_at(s->l, s->line, NULL, NULL, "comment is not valid UTF-8");
	} else if ((group = group_of_line(p))) {
		scan_group(s, group);
		g_free(group);
	} else if ((eq = strchr(p, '=')) && eq != p) {
		key = g_strndup(p, eq - p);
		scan_key(s, g_strchomp(key), eq + 1);
		g_free(key);
	} else {
		char *v = shown(p);

		fail_at(s->l, s->line, NULL, NULL,
			"'%s' is not a [section], key=value or # comment", v);
		g_free(v);
	}
}

/* Record line numbers of groups and keys; refuse what GKeyFile would take
 * silently or refuse without a line. */
static void prescan(struct loader *l, const char *data, gsize len)
{
	struct scan s = { .l = l };
	const char *p = data, *end = data + len;

	if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
		fail_at(l, 1, NULL, NULL,
			"a UTF-8 byte order mark: save the file without it");
		return;
	}
	while (p < end && !l->err) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = (nl ? nl : end) - p;
		char *line;

		s.line++;
		if (memchr(p, '\0', n)) {
			fail_at(l, s.line, s.group, NULL, "a NUL byte");
			break;
		}
		/* GKeyFile drops the \r of a \r\n line end */
		line = g_strndup(p, nl && n && p[n - 1] == '\r' ? n - 1 : n);
		scan_line(&s, line);
		g_free(line);
		p += n + 1;
	}
	g_free(s.group);
}

/* Should GKeyFile refuse what the prescan passed, name the line anyway:
 * the shortest prefix of whole lines that it refuses ends there. */
static int glib_error_line(const char *data, gsize len)
{
	GKeyFile *kf = g_key_file_new();
	int lo = 1, hi = 1, line;
	gsize i;

	for (i = 0; i < len; i++)
		hi += data[i] == '\n';
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		const char *p = data;

		for (line = 0; line < mid && p; line++) {
			p = memchr(p, '\n', data + len - p);
			p = p ? p + 1 : NULL;
		}
		if (g_key_file_load_from_data(kf, data, p ? (gsize)(p - data) : len,
					      G_KEY_FILE_NONE, NULL))
			lo = mid + 1;
		else
			hi = mid;
	}
	g_key_file_free(kf);
	return lo;
}

/* ---- values ---- */

/* The value as GKeyFile unescapes it (\s \n \t \r \\). A key that is there
 * but unreadable is an error, never its default. NULL after an error. */
static char *get_str(struct loader *l, const char *g, const char *k,
		     const char *def)
{
	GError *e = NULL;
	char *v;

	if (!g_key_file_has_key(l->kf, g, k, NULL)) {
		if (!def)
			fail(l, g, k, "missing");
		return g_strdup(def);
	}
	v = g_key_file_get_string(l->kf, g, k, &e);
	if (e) {
		fail(l, g, k, "bad escape sequence (known: \\s \\n \\t \\r \\\\)");
		g_error_free(e);
		g_free(v);
		return NULL;
	}
	return v;
}

/* A list of plain strings (a;b;); NULL after an error. */
static char **get_list(struct loader *l, const char *g, const char *k)
{
	GError *e = NULL;
	char **v;

	if (!g_key_file_has_key(l->kf, g, k, NULL))
		return g_new0(char *, 1);
	v = g_key_file_get_string_list(l->kf, g, k, NULL, &e);
	if (e) {
		fail(l, g, k, "bad escape sequence in the list");
		g_error_free(e);
		g_strfreev(v);
		return NULL;
	}
	return v ? v : g_new0(char *, 1);
}

/* A number in min..max; what says what it counts, for the message. */
static int check_number(struct loader *l, const char *g, const char *k,
			const char *s, int min, int max, const char *what)
{
	long v;
	char *why;

	if (!plain_number(s, &v)) {
		why = g_strdup_printf("is not a plain decimal number of %s%s", what,
				      strchr(s, '#') ? " (a # comment goes on its own line)" : "");
		bad_value(l, g, k, s, why);
		g_free(why);
		return min;
	}
	if (v < min || v > max) {
		why = g_strdup_printf("is out of range %d..%d", min, max);
		bad_value(l, g, k, s, why);
		g_free(why);
		return min;
	}
	return (int)v;
}

static int get_int(struct loader *l, const char *g, const char *k, int def,
		   int min, int max, const char *what)
{
	char *s = get_str(l, g, k, "");
	int v = def;

	if (s && *s)
		v = check_number(l, g, k, s, min, max, what);
	else if (s && g_key_file_has_key(l->kf, g, k, NULL))
		fail(l, g, k, "empty: write a number or drop the key");
	g_free(s);
	return v;
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
	if (!plain_number(slash + 1, &plen) || plen < 0)
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
	int i;

	g->devices = get_list(l, grp, "devices");
	if (!g->devices) {
		g->devices = g_new0(char *, 1);
		return;
	}
	for (i = 0; g->devices[i]; i++) {
		if (!in_list(g->devices[i], known_devices))
			bad_value(l, grp, "devices", g->devices[i],
				  "is not a known device (known: intel-hda)");
		else if (g_strv_contains((const char *const *)g->devices + i + 1,
					 g->devices[i]))
			bad_value(l, grp, "devices", g->devices[i], "is listed twice");
	}
}

static void parse_disks(struct loader *l, const char *grp, struct lab_guest *g)
{
	char **v = get_list(l, grp, "disks");
	guint n = v ? g_strv_length(v) : 0, i;

	if (n > MAX_DISKS) {
		fail(l, grp, "disks", "%u disks, at most %d", n, MAX_DISKS);
		n = 0;
	}
	g->disks_mib = g_new0(int, n + 1);
	for (i = 0; i < n; i++)
		g->disks_mib[i] = check_number(l, grp, "disks", v[i], MIN_DISK_MIB,
					       MAX_DISK_MIB, "MiB, without a unit");
	g_strfreev(v);
}

static bool kernel_ok(const char *k)
{
	/* debian: Debian's own kernel and initrd, kept from the image */
	return !strcmp(k, "baseline") || !strcmp(k, "patched") || !strcmp(k, "debian");
}

static void parse_role(struct loader *l, const char *grp, struct lab_guest *g)
{
	char *known, *why;

	g->role = get_str(l, grp, "role", NULL);
	if (!g->role || in_list(g->role, lab_known_roles))
		return;
	known = g_strjoinv(", ", (char **)lab_known_roles);
	why = g_strdup_printf("is not a known role (known: %s)", known);
	bad_value(l, grp, "role", g->role, why);
	g_free(known);
	g_free(why);
}

static void parse_cmdline(struct loader *l, const char *grp,
			  struct lab_guest *g)
{
	const char *p;
	int quotes = 0;

	g->cmdline = get_str(l, grp, "cmdline", "");
	if (!g->cmdline)
		return;
	if (strlen(g->cmdline) > MAX_CMDLINE) {
		fail(l, grp, "cmdline", "longer than %d bytes", MAX_CMDLINE);
		return;
	}
	if (has_control(g->cmdline)) {
		fail(l, grp, "cmdline", "holds a control character");
		return;
	}
	/* the kernel quotes with " only: an open one swallows the rest of
	 * the line, lab's own options included */
	for (p = g->cmdline; *p; p++)
		quotes += *p == '"';
	if (quotes % 2)
		bad_value(l, grp, "cmdline", g->cmdline, "has an unbalanced '\"'");
}

static void parse_address_key(struct loader *l, const char *grp,
			      struct lab_guest *g)
{
	struct addr a;
	const char *why;

	g->address = get_str(l, grp, "address", NULL);
	if (g->address && (why = parse_address(g->address, &a)))
		bad_value(l, grp, "address", g->address, why);
}

static struct lab_guest *parse_guest(struct loader *l, const char *grp,
				     const char *kernel)
{
	struct lab_guest *g = g_new0(struct lab_guest, 1);

	g->name = g_strdup(grp + strlen("guest "));
	parse_role(l, grp, g);
	g->vcpus = get_int(l, grp, "vcpus", 1, 1, MAX_VCPUS, "vCPUs");
	g->memory_mib = get_int(l, grp, "memory", 768, MIN_MEMORY_MIB,
				MAX_MEMORY_MIB, "MiB, without a unit");
	g->kernel = get_str(l, grp, "kernel", kernel);
	if (g->kernel && !kernel_ok(g->kernel))
		bad_value(l, grp, "kernel", g->kernel, "is not baseline, patched or debian");
	parse_cmdline(l, grp, g);
	g->network = get_str(l, grp, "network", NULL);
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
static void check_address(struct loader *l, struct lab_topology *t,
			  struct addr *addrs, guint i)
{
	struct lab_guest *g = g_ptr_array_index(t->guests, i);
	char *grp = g_strdup_printf("guest %s", g->name);
	guint j;

	for (j = 0; j < i; j++) {
		struct lab_guest *o = g_ptr_array_index(t->guests, j);

		if (memcmp(addrs[j].b, addrs[i].b, 16) == 0 &&
		    addrs[j].family == addrs[i].family) {
			fail(l, grp, "address", "address %s is used by guest %s too",
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
			fail(l, grp, "address",
			     "%s is not in %s, the prefix of guest %s on network %s",
			     g->address, prefix, o->name, g->network);
			g_free(prefix);
		}
		break;
	}
	g_free(grp);
}

static void check_networks(struct loader *l, struct lab_topology *t)
{
	struct addr *addrs = g_new0(struct addr, t->guests->len);
	guint i;

	for (i = 0; i < t->guests->len; i++) {
		struct lab_guest *g = g_ptr_array_index(t->guests, i);

		if (!lab_topology_network(t, g->network)) {
			char *grp = g_strdup_printf("guest %s", g->name);

			fail(l, grp, "network", "no [network %s] section", g->network);
			g_free(grp);
		}
		parse_address(g->address, &addrs[i]);
		check_address(l, t, addrs, i);
	}
	g_free(addrs);
}

/* All guests together must fit the host: its memory, and vCPUs at most
 * VCPUS_PER_HOST_CPU per host CPU (TCG guests past that only starve). */
static void check_host(struct loader *l, struct lab_topology *t,
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
		fail(l, "topology", NULL,
		     "the guests need %ld MiB of memory, the host has %ld MiB",
		     mem, host_mem_mib);
	if (host_cpus > 0 && vcpus > (long)host_cpus * VCPUS_PER_HOST_CPU)
		fail(l, "topology", NULL,
		     "the guests need %ld vCPUs, more than %d per host CPU (the host has %d)",
		     vcpus, VCPUS_PER_HOST_CPU, host_cpus);
}

/* ---- the whole file ---- */

static void parse_header(struct loader *l, struct lab_topology *t)
{
	const char *why;

	t->name = get_str(l, "topology", "name", NULL);
	if (t->name && (why = name_error(t->name)))
		bad_value(l, "topology", "name", t->name, why);
	t->description = get_str(l, "topology", "description", "");
	if (t->description && g_utf8_strlen(t->description, -1) > MAX_DESCRIPTION)
		fail(l, "topology", "description", "longer than %d characters",
		     MAX_DESCRIPTION);
	else if (t->description && has_control(t->description))
		fail(l, "topology", "description", "holds a control character");
}

static void parse_groups(struct loader *l, struct lab_topology *t,
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
				fail(l, groups[i], NULL, "more than %d guests",
				     MAX_GUESTS);
			else
				g_ptr_array_add(t->guests,
						parse_guest(l, groups[i], kernel));
		}
	}
	g_strfreev(groups);
}

static struct lab_topology *parse(struct loader *l, long host_mem_mib,
				  int host_cpus)
{
	struct lab_topology *t = g_new0(struct lab_topology, 1);
	char *kernel;

	t->path = g_strdup(l->path);
	t->guests = g_ptr_array_new_with_free_func(guest_free);
	t->networks = g_ptr_array_new_with_free_func(network_free);
	if (!g_key_file_has_group(l->kf, "topology")) {
		fail_at(l, 0, NULL, NULL, "missing [topology] section");
		return t;
	}
	parse_header(l, t);
	kernel = get_str(l, "topology", "kernel", "patched");
	if (kernel && !kernel_ok(kernel))
		bad_value(l, "topology", "kernel", kernel, "is not baseline, patched or debian");
	if (!l->err)
		parse_groups(l, t, kernel);
	g_free(kernel);
	if (!l->err && t->guests->len == 0)
		fail(l, "topology", NULL, "no [guest NAME] sections");
	if (!l->err)
		check_networks(l, t);
	if (!l->err)
		check_host(l, t, host_mem_mib, host_cpus);
	return t;
}

/* The file's bytes, refused when unreadable or too big for a topology. */
static gchar *read_topology(struct loader *l, gsize *len)
{
	GError *e = NULL;
	gchar *data = NULL;

	if (!g_file_get_contents(l->path, &data, len, &e)) {
		fail_at(l, 0, NULL, NULL, "%s", e->message);
		g_error_free(e);
		return NULL;
	}
	if (*len > MAX_FILE_BYTES) {
		fail_at(l, 0, NULL, NULL, "%zu bytes, more than a topology's %d",
			(size_t)*len, MAX_FILE_BYTES);
		g_free(data);
		return NULL;
	}
	return data;
}

struct lab_topology *lab_topology_load_host(const char *path,
					    long host_mem_mib, int host_cpus,
					    char **err)
{
	struct loader l = { .path = path };
	struct lab_topology *t = NULL;
	GError *e = NULL;
	gchar *data;
	gsize len = 0;

	l.lines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	l.kf = g_key_file_new();
	data = read_topology(&l, &len);
	if (data)
		prescan(&l, data, len);
	if (data && !l.err &&
	    !g_key_file_load_from_data(l.kf, data, len, G_KEY_FILE_NONE, &e)) {
		fail_at(&l, glib_error_line(data, len), NULL, NULL, "%s", e->message);
		g_error_free(e);
	}
	if (!l.err)
		t = parse(&l, host_mem_mib, host_cpus);
	if (l.err) {
		lab_topology_free(t);
		t = NULL;
	}
	*err = l.err;
	g_key_file_free(l.kf);
	g_hash_table_destroy(l.lines);
	g_free(data);
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

static const char check_usage[] =
	"usage: lab check-topology [TOPOLOGY...]\n"
	"  Load and validate each topology (a name from topologies/ or a path;\n"
	"  default: default) against this host's memory and CPUs, as `lab up`\n"
	"  does, and print a summary. Nothing is built or created.\n"
	"  Exit 0 when all are valid, 2 when one is not.\n";

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

static void print_summary(const struct lab_topology *t)
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

int cmd_check_topology(int argc, char **argv)
{
	const char *def[] = { "default" };
	const char *const *names = argc > 1 ? (const char *const *)argv + 1 : def;
	int n = argc > 1 ? argc - 1 : 1, i, rc = 0;

	for (i = 0; i < n; i++) {
		struct lab_topology *t;

		if (!strcmp(names[i], "-h") || !strcmp(names[i], "--help")) {
			fputs(check_usage, stdout);
			return 0;
		}
		if (names[i][0] == '-') {
			lab_err("check-topology: unknown option %s\n%s", names[i],
				check_usage);
			return 2;
		}
		t = lab_topology_open(names[i]);
		if (t)
			print_summary(t);
		else
			rc = 2;
		lab_topology_free(t);
	}
	return rc;
}
