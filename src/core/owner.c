/* owner.c - see owner.h. The tag is parsed with GLib's GMarkup: libvirt
 * gives the element back as we wrote it, prefix and namespace included. */
#include "core/owner.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *lab_instance(void)
{
	const char *e = getenv("LAB_INSTANCE");

	return e && *e ? e : "lab";
}

char *lab_instance_invalid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > LAB_INSTANCE_MAX)
		return g_strdup_printf("LAB_INSTANCE '%s' must be 1 to %d characters",
				       name, LAB_INSTANCE_MAX);
	if (strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != n ||
	    name[0] == '-')
		return g_strdup_printf("LAB_INSTANCE '%s' may hold only a-z, 0-9 and '-' (not first)",
				       name);
	return NULL;
}

/* A directory above LAB_HOME: whoever may write it could put another
 * LAB_HOME in its place. Root's or ours, and not writable by others
 * unless sticky (/tmp). NULL when fine. */
static char *parent_unsafe(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) != 0)
		return NULL; /* not there yet: lab makes it */
	if (st.st_uid != 0 && st.st_uid != geteuid())
		return g_strdup_printf("LAB_HOME is under %s, which belongs to uid %u: "
				       "another user could replace it", dir,
				       (unsigned)st.st_uid);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
		return g_strdup_printf("LAB_HOME is under %s, which others may write "
				       "(mode %03o, not sticky): they could replace it",
				       dir, (unsigned)(st.st_mode & 0777));
	return NULL;
}

char *lab_home_invalid(const char *home)
{
	char *dir, *why = NULL;
	struct stat st;

	if (!g_path_is_absolute(home))
		return g_strdup_printf("LAB_HOME '%s' must be an absolute path", home);
	if (strstr(home, "/../") || g_str_has_suffix(home, "/.."))
		return g_strdup_printf("LAB_HOME '%s' must not contain '..'", home);
	for (dir = g_path_get_dirname(home); !why; ) {
		char *up = g_path_get_dirname(dir);

		why = parent_unsafe(dir);
		if (!strcmp(up, dir)) {
			g_free(up);
			break;
		}
		g_free(dir);
		dir = up;
	}
	g_free(dir);
	if (why)
		return why;
	if (lstat(home, &st) != 0)
		return errno == ENOENT ? NULL
			: g_strdup_printf("LAB_HOME %s: %s", home, g_strerror(errno));
	if (S_ISLNK(st.st_mode))
		return g_strdup_printf("LAB_HOME %s is a symbolic link: give the directory "
				       "it points at (a link can be turned elsewhere)", home);
	if (!S_ISDIR(st.st_mode))
		return g_strdup_printf("LAB_HOME %s is not a directory", home);
	if (st.st_uid != geteuid())
		return g_strdup_printf("LAB_HOME %s belongs to uid %u, not to you (uid %u)",
				       home, (unsigned)st.st_uid, (unsigned)geteuid());
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return g_strdup_printf("LAB_HOME %s is writable by others (mode %03o): chmod go-w it",
				       home, (unsigned)(st.st_mode & 0777));
	return NULL;
}

const char *lab_machine_id(void)
{
	static char id[9];
	static gsize once;

	if (g_once_init_enter(&once)) {
		gchar *text = NULL, *h;

		if (g_file_get_contents("/etc/machine-id", &text, NULL, NULL) &&
		    strspn(text, "0123456789abcdef") >= 8) {
			memcpy(id, text, 8);
		} else { /* no machine-id: the host name stands for it */
			h = g_compute_checksum_for_string(G_CHECKSUM_SHA256,
							  g_get_host_name(), -1);
			memcpy(id, h, 8);
			g_free(h);
		}
		g_free(text);
		g_once_init_leave(&once, 1);
	}
	return id;
}

char *lab_home_unreachable(const char *home)
{
	char *dir = g_strdup(home);
	char *why = NULL;

	while (!why && strcmp(dir, "/") != 0) {
		struct stat st;
		char *up;

		if (stat(dir, &st) == 0 && !(st.st_mode & S_IXOTH))
			why = g_strdup_printf("%s (mode %03o) cannot be searched by QEMU's user "
					      "(libvirt-qemu): chmod o+x it or set LAB_HOME elsewhere",
					      dir, (unsigned)(st.st_mode & 0777));
		up = g_path_get_dirname(dir);
		g_free(dir);
		dir = up;
	}
	g_free(dir);
	return why;
}

char *lab_owner_xml(void)
{
	return g_markup_printf_escaped(
		"<lab:owner xmlns:lab='%s' instance='%s' home='%s' machine='%s' created='%ld'/>",
		LAB_OWNER_NS, lab_instance(), lab_home(), lab_machine_id(), (long)time(NULL));
}

struct parse {
	struct lab_owner *out;
	bool ns_implied;
	bool found;
};

static const char *attr(const char **names, const char **values,
			const char *want)
{
	for (; *names; names++, values++)
		if (strcmp(*names, want) == 0)
			return *values;
	return NULL;
}

static void on_start(GMarkupParseContext *ctx, const char *el,
		     const char **names, const char **values, gpointer ud,
		     GError **err)
{
	struct parse *p = ud;
	const char *colon = strchr(el, ':'), *ns, *v;
	char *xmlns;

	(void)ctx;
	(void)err;
	if (p->found)
		return;
	if (!colon) {
		if (!p->ns_implied || strcmp(el, "owner") != 0)
			return;
	} else {
		if (strcmp(colon + 1, "owner") != 0)
			return;
		xmlns = g_strdup_printf("xmlns:%.*s", (int)(colon - el), el);
		ns = attr(names, values, xmlns);
		g_free(xmlns);
		if (!ns || strcmp(ns, LAB_OWNER_NS) != 0)
			return;
	}
	p->found = true;
	p->out->instance = g_strdup(attr(names, values, "instance"));
	p->out->home = g_strdup(attr(names, values, "home"));
	p->out->machine = g_strdup(attr(names, values, "machine"));
	v = attr(names, values, "created");
	p->out->created = v ? strtol(v, NULL, 10) : 0;
}

bool lab_owner_parse(const char *xml, bool ns_implied, struct lab_owner *out)
{
	GMarkupParser parser = { .start_element = on_start };
	struct parse p = { out, ns_implied, false };
	GMarkupParseContext *ctx;

	memset(out, 0, sizeof(*out));
	if (!xml)
		return false;
	ctx = g_markup_parse_context_new(&parser, 0, &p, NULL);
	/* a parse error after our element was seen still counts as found */
	g_markup_parse_context_parse(ctx, xml, -1, NULL);
	g_markup_parse_context_free(ctx);
	return p.found;
}

void lab_owner_clear(struct lab_owner *o)
{
	g_free(o->instance);
	g_free(o->home);
	g_free(o->machine);
	memset(o, 0, sizeof(*o));
}

bool lab_owner_is_ours(const struct lab_owner *o)
{
	/* a tag without machine= is lab 0.1's, from before hosts were shared */
	return o->instance && o->home && strcmp(o->instance, lab_instance()) == 0 &&
	       strcmp(o->home, lab_home()) == 0 &&
	       (!o->machine || strcmp(o->machine, lab_machine_id()) == 0);
}
