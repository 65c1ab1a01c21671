/* hosts.c - hosts.ini: the libvirt hosts an instance may run on, read
 * with the strict INI reader (core/ini.h: every error names file:line,
 * group and key). */
#include "core/hosts.h"
#include "core/ini.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static const char *const host_keys[] = { "uri", "store", "guests", "memory",
					 "allow_programs", NULL };
static const struct lab_ini_kind kinds[] = {
	{ "host ", true, host_keys },
	{ NULL, false, NULL },
};

/* A host's name reaches messages, directories and instance names. */
static const char *name_error(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 32 || strspn(s, "abcdefghijklmnopqrstuvwxyz"
				       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n)
		return "must have 1 to 32 of A-Z, a-z, 0-9, '_' and '-'";
	return NULL;
}

/* libvirt's remote transports that start no program of the URI's choosing */
static const char *const safe_transports[] = { "ssh", "libssh", "libssh2", "tls",
					       "tcp", "unix", NULL };
/* URI parameters that name a program to run or a socket to open */
static const char *const program_params[] = { "command", "netcat", "socket", NULL };

const char *lab_uri_unsafe(const char *uri, bool allow_programs)
{
	const char *sep = strstr(uri, "://"), *q = strchr(uri, '?');
	char *transport, **params;
	const char *why = NULL;
	int i;

	if (!sep || strncmp(uri, "qemu", 4) || (uri[4] != ':' && uri[4] != '+'))
		return "is not a QEMU host (qemu:// or qemu+TRANSPORT://)";
	transport = uri[4] == '+' ? g_strndup(uri + 5, sep - uri - 5) : g_strdup("");
	if (*transport && !g_strv_contains(safe_transports, transport) && !allow_programs)
		why = "uses a transport that runs a program (only ssh, libssh, libssh2, "
		      "tls, tcp and unix; allow_programs = true allows it)";
	params = q ? g_strsplit(q + 1, "&", -1) : g_new0(char *, 1);
	for (i = 0; !why && params[i]; i++) {
		char *name = g_strndup(params[i], strcspn(params[i], "="));

		if (strchr(name, '%'))
			why = "has an escaped parameter name";
		else if (g_strv_contains(program_params, name) && !allow_programs)
			why = "names a program or socket (command=, netcat=, socket=): "
			      "hosts.ini is run as root; allow_programs = true allows it";
		g_free(name);
	}
	g_strfreev(params);
	g_free(transport);
	return why;
}

static void check_uri(struct lab_ini *l, const char *g, const char *v,
		      bool allow_programs)
{
	const char *why;

	if (!strstr(v, ":/") || strchr(v, ' ') || lab_ini_has_control(v))
		lab_ini_bad_value(l, g, "uri", v, "is not a libvirt URI "
				  "(qemu:///system, qemu+ssh://user@host/system)");
	else if ((why = lab_uri_unsafe(v, allow_programs)))
		lab_ini_bad_value(l, g, "uri", v, why);
	else if (strstr(v, "/session"))
		lab_ini_bad_value(l, g, "uri", v, "is a session URI, which cannot own a "
				  "network; use /system");
}

const char *lab_store_dir_invalid(const char *v)
{
	if (v[0] != '/' || strlen(v) > 200 || strpbrk(v, " '\"<>&\\") ||
	    lab_ini_has_control(v))
		return "an absolute directory on that host (no spaces, quotes, "
		       "control or XML characters, at most 200 bytes)";
	/* one spelling per directory: the pool is named by the path */
	if (!strcmp(v, "/") || g_str_has_suffix(v, "/") || strstr(v, "//") ||
	    strstr(v, "/./") || strstr(v, "/../") || g_str_has_suffix(v, "/.") ||
	    g_str_has_suffix(v, "/.."))
		return "a directory in one spelling: not /, no trailing '/', no "
		       "'//', '.' or '..'";
	return NULL;
}

static struct lab_host *parse_host(struct lab_ini *l, const char *g)
{
	struct lab_host *x = g_new0(struct lab_host, 1);
	const char *why;

	x->name = g_strdup(g + strlen("host "));
	x->allow_programs = lab_ini_bool(l, g, "allow_programs", false);
	if ((x->uri = lab_ini_str(l, g, "uri", NULL)))
		check_uri(l, g, x->uri, x->allow_programs);
	x->store = lab_ini_str(l, g, "store", "");
	if (x->store && !*x->store) {
		g_free(x->store);
		x->store = strcmp(x->name, "local") ? g_strdup(LAB_STORE_DEFAULT)
						    : lab_path("store");
	} else if (x->store && (why = lab_store_dir_invalid(x->store))) {
		lab_ini_bad_value(l, g, "store", x->store, why);
	}
	x->guests = lab_ini_int(l, g, "guests", 4, 1, 64, "guests");
	x->memory_mib = lab_ini_int(l, g, "memory", 8192, 256, 1 << 20, "MiB");
	return x;
}

struct lab_hosts *lab_hosts_parse(const char *path, const char *text,
				  char **err)
{
	struct lab_ini l = { .path = path, .kinds = kinds, .what = "a hosts file",
			     .expected = "[host NAME]", .name_error = name_error };
	struct lab_hosts *h = g_new0(struct lab_hosts, 1);
	gchar **groups = NULL;

	h->path = g_strdup(path);
	h->hosts = g_ptr_array_new_with_free_func(host_free);
	if (lab_ini_load_data(&l, text, strlen(text)) == 0)
		groups = g_key_file_get_groups(l.kf, NULL);
	for (int i = 0; groups && groups[i] && !l.err; i++)
		g_ptr_array_add(h->hosts, parse_host(&l, groups[i]));
	if (groups && !groups[0])
		lab_ini_fail_at(&l, 1, NULL, NULL, "no [host NAME] group");
	g_strfreev(groups);
	lab_ini_clear(&l);
	if (l.err) {
		*err = l.err;
		lab_hosts_free(h);
		return NULL;
	}
	return h;
}

const char *lab_local_uri(void)
{
	const char *env = getenv("LAB_LIBVIRT_URI");

	return env && *env ? env : "qemu:///system";
}

static struct lab_hosts *local_only(void)
{
	/* LAB_LIBVIRT_URI is the user's own word, not a file's */
	char *err = NULL, *text = g_strdup_printf("[host local]\nuri = %s\n"
						  "allow_programs = true\n",
						  lab_local_uri());
	struct lab_hosts *h = lab_hosts_parse("(built in)", text, &err);

	if (!h)
		lab_err("LAB_LIBVIRT_URI: %s", err);
	g_free(err);
	g_free(text);
	return h;
}

const char *lab_hosts_file_unsafe(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return NULL; /* reading it says why */
	if (st.st_uid != geteuid())
		return "is not owned by the user running lab: hosts.ini is read as "
		       "code (its URIs reach libvirt as root)";
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return "is writable by others: hosts.ini is read as code; chmod go-w it";
	return NULL;
}

struct lab_hosts *lab_hosts_open(const char *path)
{
	char *def = path ? NULL : lab_path("hosts.ini");
	const char *file = path ? path : def;
	struct lab_hosts *h = NULL;
	char *text = NULL, *err = NULL;
	const char *why;
	gsize len;

	if (!path && !lab_exists(file))
		h = local_only();
	else if ((why = lab_hosts_file_unsafe(file)))
		lab_err("%s: %s", file, why);
	else if (!g_file_get_contents(file, &text, &len, NULL))
		lab_err("cannot read hosts file %s", file);
	else if (strlen(text) != len)
		lab_err("%s:1: NUL byte in the file", file);
	else if (!(h = lab_hosts_parse(file, text, &err)))
		lab_err("%s", err);
	if (h && !lab_hosts_find(h, "local")) { /* this machine is always a host */
		struct lab_hosts *l = local_only();

		if (l)
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
