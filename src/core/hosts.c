/* hosts.c - hosts.ini: the libvirt hosts an instance may run on, read
 * strictly (every error names file:line, group and key). */
#include "core/hosts.h"
#include "util/util.h"

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
