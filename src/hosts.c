/* hosts.c - hosts.ini: the libvirt hosts an instance may run on, read
 * strictly (every error names file:line, group and key), and `lab hosts`,
 * which shows what each host offers and moves the cached files there. */
#include "hosts.h"
#include "store.h"
#include "util.h"
#include "virt.h"

#include <libvirt/libvirt.h>
#include <stdio.h>
#include <string.h>

struct parser {
	const char *path;
	struct lab_hosts *h;
	struct lab_host *cur;
	GHashTable *seen; /* keys of the current group */
	char *err;
};

static void fail(struct parser *p, int line, const char *key,
		 const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static void fail(struct parser *p, int line, const char *key,
		 const char *fmt, ...)
{
	GString *e;
	va_list ap;

	if (p->err)
		return; /* the first error is the one to fix */
	e = g_string_new(NULL);
	g_string_printf(e, "%s:%d: ", p->path, line);
	if (p->cur)
		g_string_append_printf(e, "[host %s] ", p->cur->name);
	if (key)
		g_string_append_printf(e, "%s: ", key);
	va_start(ap, fmt);
	g_string_append_vprintf(e, fmt, ap);
	va_end(ap);
	p->err = g_string_free(e, FALSE);
}

static void host_free(gpointer data)
{
	struct lab_host *h = data;

	g_free(h->name);
	g_free(h->uri);
	g_free(h->store);
	g_free(h);
}

void lab_hosts_free(struct lab_hosts *h)
{
	if (!h)
		return;
	g_ptr_array_free(h->hosts, TRUE);
	g_free(h->path);
	g_free(h);
}

struct lab_host *lab_hosts_find(struct lab_hosts *h, const char *name)
{
	for (guint i = 0; i < h->hosts->len; i++) {
		struct lab_host *x = g_ptr_array_index(h->hosts, i);

		if (strcmp(x->name, name) == 0)
			return x;
	}
	return NULL;
}

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 32)
		return false;
	for (; *s; s++)
		if (!g_ascii_isalnum(*s) && *s != '-' && *s != '_')
			return false;
	return true;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static void open_group(struct parser *p, int line, char *text)
{
	char *name;

	if (!g_str_has_prefix(text, "[host ") || !g_str_has_suffix(text, "]")) {
		p->cur = NULL;
		fail(p, line, NULL, "unknown group %s (only [host NAME])", text);
		return;
	}
	name = g_strstrip(g_strndup(text + 6, strlen(text) - 7));
	if (!name_ok(name))
		fail(p, line, NULL, "host name '%s': 1-32 of [A-Za-z0-9_-]", name);
	else if (lab_hosts_find(p->h, name))
		fail(p, line, NULL, "host '%s' is defined twice", name);
	if (p->err) {
		g_free(name);
		return;
	}
	p->cur = g_new0(struct lab_host, 1);
	p->cur->name = name;
	p->cur->line = line;
	p->cur->guests = 4;
	p->cur->memory_mib = 8192;
	g_ptr_array_add(p->h->hosts, p->cur);
	g_hash_table_remove_all(p->seen);
}

static void set_uri(struct parser *p, int line, const char *v)
{
	if (!strstr(v, ":/") || strchr(v, ' '))
		fail(p, line, "uri", "'%s' is not a libvirt URI "
		     "(qemu:///system, qemu+ssh://user@host/system)", v);
	else if (!g_str_has_prefix(v, "qemu"))
		fail(p, line, "uri", "'%s': only QEMU hosts (qemu:// or qemu+TRANSPORT://)", v);
	else if (strstr(v, "/session"))
		fail(p, line, "uri", "'%s': a session URI cannot own a network; use /system", v);
	else
		p->cur->uri = g_strdup(v);
}

static void set_store(struct parser *p, int line, const char *v)
{
	if (v[0] != '/' || strstr(v, "/..") || strlen(v) > 200 ||
	    strpbrk(v, " '\"<>&"))
		fail(p, line, "store", "'%s': an absolute directory on that host "
		     "(no '..', spaces or XML characters, at most 200 bytes)", v);
	else
		p->cur->store = g_strdup(v);
}

static void set_key(struct parser *p, int line, const char *k, const char *v)
{
	if (!p->cur) {
		fail(p, line, k, "key outside a [host NAME] group");
		return;
	}
	if (g_hash_table_contains(p->seen, k)) {
		fail(p, line, k, "given twice");
		return;
	}
	g_hash_table_add(p->seen, g_strdup(k));
	if (strcmp(k, "uri") == 0)
		set_uri(p, line, v);
	else if (strcmp(k, "store") == 0)
		set_store(p, line, v);
	else if (strcmp(k, "guests") == 0) {
		if (lab_parse_count(v, 1, 64, &p->cur->guests))
			fail(p, line, k, "'%s': a whole number of guests, 1..64", v);
	} else if (strcmp(k, "memory") == 0) {
		if (lab_parse_count(v, 256, 1 << 20, &p->cur->memory_mib))
			fail(p, line, k, "'%s': MiB as a whole number, 256..1048576", v);
	} else
		fail(p, line, k, "unknown key (known: uri, store, guests, memory)");
}

static void parse_line(struct parser *p, int line, char *s)
{
	char *eq;

	g_strstrip(s);
	if (!*s || *s == '#' || *s == ';')
		return;
	if (!printable(s)) {
		fail(p, line, NULL, "control character in the line");
		return;
	}
	if (*s == '[') {
		open_group(p, line, s);
		return;
	}
	eq = strchr(s, '=');
	if (!eq) {
		fail(p, line, NULL, "expected KEY = VALUE or [host NAME]");
		return;
	}
	*eq = '\0';
	set_key(p, line, g_strstrip(s), g_strstrip(eq + 1));
}

static void check_complete(struct parser *p)
{
	for (guint i = 0; i < p->h->hosts->len && !p->err; i++) {
		struct lab_host *x = g_ptr_array_index(p->h->hosts, i);

		p->cur = x;
		if (!x->uri)
			fail(p, x->line, "uri", "missing: every host needs its libvirt URI");
		if (!x->store)
			x->store = g_strdup(LAB_STORE_DEFAULT);
	}
	if (!p->err && p->h->hosts->len == 0) {
		p->cur = NULL;
		fail(p, 1, NULL, "no [host NAME] group");
	}
}

struct lab_hosts *lab_hosts_parse(const char *path, const char *text,
				  char **err)
{
	struct parser p = { .path = path };
	char **lines;

	p.h = g_new0(struct lab_hosts, 1);
	p.h->path = g_strdup(path);
	p.h->hosts = g_ptr_array_new_with_free_func(host_free);
	p.seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	if (!g_utf8_validate(text, -1, NULL)) {
		fail(&p, 1, NULL, "not UTF-8 text");
		lines = g_new0(char *, 1);
	} else
		lines = g_strsplit(text, "\n", -1);
	for (int i = 0; lines[i] && !p.err; i++)
		parse_line(&p, i + 1, lines[i]);
	g_strfreev(lines);
	if (!p.err)
		check_complete(&p);
	g_hash_table_destroy(p.seen);
	if (p.err) {
		*err = p.err;
		lab_hosts_free(p.h);
		return NULL;
	}
	return p.h;
}

static struct lab_hosts *local_only(void)
{
	char *err = NULL;
	struct lab_hosts *h = lab_hosts_parse("(built in)",
		"[host local]\nuri = qemu:///system\n", &err);

	g_free(err);
	return h;
}

struct lab_hosts *lab_hosts_open(const char *path)
{
	char *def = path ? NULL : lab_path("hosts.ini");
	const char *file = path ? path : def;
	struct lab_hosts *h = NULL;
	char *text = NULL, *err = NULL;
	gsize len;

	if (!path && !lab_exists(file))
		h = local_only();
	else if (!g_file_get_contents(file, &text, &len, NULL))
		lab_err("cannot read hosts file %s", file);
	else if (strlen(text) != len)
		lab_err("%s:1: NUL byte in the file", file);
	else if (!(h = lab_hosts_parse(file, text, &err)))
		lab_err("%s", err);
	if (h && !lab_hosts_find(h, "local")) { /* this machine is always a host */
		struct lab_hosts *l = local_only();

		g_ptr_array_add(h->hosts, g_ptr_array_steal_index(l->hosts, 0));
		lab_hosts_free(l);
	}
	g_free(text);
	g_free(err);
	g_free(def);
	return h;
}

int lab_hosts_check_names(const char *hosts_file, char **names, const char *cmd)
{
	struct lab_hosts *h = lab_hosts_open(hosts_file);
	int rc = h ? 0 : -1;

	for (; h && *names; names++)
		if (!lab_hosts_find(h, *names)) {
			lab_err("%s: no host '%s' in %s (`lab hosts` lists them)", cmd,
				*names, h->path);
			rc = -1;
		}
	lab_hosts_free(h);
	return rc;
}

bool lab_host_answers(const char *hosts_file, const char *name)
{
	struct lab_hosts *h = lab_hosts_open(hosts_file);
	struct lab_host *x = h ? lab_hosts_find(h, name) : NULL;
	virConnectPtr c = x ? lab_virt_open(x->uri) : NULL;
	bool alive = c && virConnectIsAlive(c) == 1;

	if (c)
		virConnectClose(c);
	lab_hosts_free(h);
	return alive;
}

/* ---- lab hosts ---- */

static void show_host(const struct lab_host *x)
{
	virConnectPtr c = lab_virt_open(x->uri);
	unsigned long long free_b;
	unsigned long ver = 0;
	virNodeInfo ni;
	struct lab_store_info si = { 0 };

	if (!c) {
		printf("%-12s %-40s unreachable: %s\n", x->name, x->uri,
		       lab_virt_error());
		return;
	}
	virConnectGetLibVersion(c, &ver);
	free_b = virNodeGetFreeMemory(c);
	if (virNodeGetInfo(c, &ni) < 0)
		memset(&ni, 0, sizeof(ni));
	lab_store_info(c, x->store, &si);
	printf("%-12s %-40s libvirt %lu.%lu.%lu, %u CPUs, %llu MiB free; capacity %d guests / %d MiB; "
	       "store %s: %s (%u volumes, %.1f MiB)\n",
	       x->name, x->uri, ver / 1000000, ver / 1000 % 1000, ver % 1000,
	       ni.cpus, free_b >> 20, x->guests, x->memory_mib, x->store,
	       si.exists ? "present" : "not created yet", si.volumes,
	       si.bytes / 1048576.0);
	virConnectClose(c);
}

static int hosts_sync(struct lab_hosts *h, const char *name,
		      const char *const *kernels, bool remove)
{
	struct lab_host *x = lab_hosts_find(h, name);
	virConnectPtr c;
	int rc;

	if (!x) {
		lab_err("no host '%s' in %s", name, h->path);
		return 2;
	}
	c = lab_virt_open(x->uri);
	if (!c) {
		lab_err("cannot reach host %s (%s): %s", x->name, x->uri,
			lab_virt_error());
		return 1;
	}
	if (remove)
		rc = lab_store_remove(c, x->name, x->store) ? 1 : 0;
	else
		rc = lab_store_sync(c, x->name, x->store, kernels) ? 1 : 0;
	virConnectClose(c);
	return rc;
}

static void hosts_usage(void)
{
	fprintf(stderr,
		"usage: lab hosts [--hosts FILE]\n"
		"       lab hosts [--hosts FILE] sync NAME [--kernel baseline|patched|all]\n"
		"       lab hosts [--hosts FILE] clean NAME\n"
		"  Lists the hosts of hosts.ini ($LAB_HOME/hosts.ini, else the local\n"
		"  qemu:///system), what each offers, and its lab store (a libvirt\n"
		"  storage pool). `sync` uploads the cached kernels and image to that\n"
		"  store through the storage API, named by content: a second sync\n"
		"  uploads nothing. `clean` deletes that host's lab store.\n");
}

int cmd_hosts(int argc, char **argv)
{
	const char *file = NULL, *sync = NULL, *kernel = "all";
	bool remove = false;
	const char *both[] = { "baseline", "patched", NULL };
	const char *one[] = { NULL, NULL };
	struct lab_hosts *h;
	int rc = 0, i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--hosts") == 0 && i + 1 < argc)
			file = argv[++i];
		else if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc)
			kernel = argv[++i];
		else if ((strcmp(argv[i], "sync") == 0 || strcmp(argv[i], "clean") == 0) &&
			 i + 1 < argc && !sync) {
			remove = argv[i][0] == 'c';
			sync = argv[++i];
		}
		else {
			hosts_usage();
			return 2;
		}
	}
	if (strcmp(kernel, "all") && strcmp(kernel, "baseline") && strcmp(kernel, "patched")) {
		lab_err("--kernel %s: baseline, patched or all", kernel);
		return 2;
	}
	h = lab_hosts_open(file);
	if (!h)
		return 2;
	if (sync) {
		one[0] = kernel;
		rc = hosts_sync(h, sync, strcmp(kernel, "all") ? one : both, remove);
	} else
		for (guint j = 0; j < h->hosts->len; j++)
			show_host(g_ptr_array_index(h->hosts, j));
	lab_hosts_free(h);
	return rc;
}
