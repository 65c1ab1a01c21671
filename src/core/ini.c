/* ini.c - see ini.h. */
#include "core/ini.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHOWN_MAX 48 /* characters of a bad value quoted in a message */

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

char *lab_ini_shown(const char *v)
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

bool lab_ini_has_control(const char *s)
{
	const char *p;

	if (!g_utf8_validate(s, -1, NULL))
		return true;
	for (p = s; *p; p = g_utf8_next_char(p))
		if (g_unichar_iscntrl(g_utf8_get_char(p)))
			return true;
	return false;
}

static void vfail_at(struct lab_ini *l, int line, const char *group,
		     const char *key, const char *fmt, va_list ap)
{
	char *where, *g, *k, *msg;

	if (l->err) /* keep the first error: it is the cause */
		return;
	where = line > 0 ? g_strdup_printf("%s:%d", l->path, line) : g_strdup(l->path);
	g = group ? lab_ini_shown(group) : NULL;
	k = key ? lab_ini_shown(key) : NULL;
	msg = g_strdup_vprintf(fmt, ap);
	if (g && k)
		l->err = g_strdup_printf("%s: [%s] %s: %s", where, g, k, msg);
	else if (g)
		l->err = g_strdup_printf("%s: [%s]: %s", where, g, msg);
	else if (k)
		l->err = g_strdup_printf("%s: %s: %s", where, k, msg);
	else
		l->err = g_strdup_printf("%s: %s", where, msg);
	g_free(msg);
	g_free(where);
	g_free(g);
	g_free(k);
}

void lab_ini_fail_at(struct lab_ini *l, int line, const char *group,
		     const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(l, line, group, key, fmt, ap);
	va_end(ap);
}

/* The line of a key, or of its group when the key is absent. */
static int line_of(struct lab_ini *l, const char *group, const char *key)
{
	char *id = key ? g_strdup_printf("%s\n%s", group, key) : NULL;
	gpointer n = id ? g_hash_table_lookup(l->lines, id) : NULL;

	g_free(id);
	return GPOINTER_TO_INT(n ? n : g_hash_table_lookup(l->lines, group));
}

void lab_ini_fail(struct lab_ini *l, const char *group, const char *key,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(l, group ? line_of(l, group, key) : 0, group, key, fmt, ap);
	va_end(ap);
}

void lab_ini_bad_value(struct lab_ini *l, const char *group, const char *key,
		       const char *value, const char *why)
{
	char *v = lab_ini_shown(value);

	lab_ini_fail(l, group, key, "'%s' %s", v, why);
	g_free(v);
}

/* ---- prescan: the lines as GKeyFile reads them ---- */

const struct lab_ini_kind *lab_ini_kind_of(const struct lab_ini *l,
					   const char *group, const char **name)
{
	const struct lab_ini_kind *k;

	for (k = l->kinds; k->prefix; k++) {
		if (!k->named && !strcmp(group, k->prefix)) {
			*name = NULL;
			return k;
		}
		if (k->named && g_str_has_prefix(group, k->prefix)) {
			*name = group + strlen(k->prefix);
			return k;
		}
	}
	return NULL;
}

struct scan {
	struct lab_ini *l;
	char *group; /* current group, NULL before the first */
	const struct lab_ini_kind *kind;
	int line;
};

static void scan_group(struct scan *s, const char *group)
{
	struct lab_ini *l = s->l;
	const char *name, *why;
	int first;

	g_clear_pointer(&s->group, g_free);
	if (!g_utf8_validate(group, -1, NULL)) {
		lab_ini_fail_at(l, s->line, group, NULL, "not valid UTF-8");
		return;
	}
	if (!(s->kind = lab_ini_kind_of(l, group, &name))) {
		lab_ini_fail_at(l, s->line, group, NULL, "unknown section (expected %s)",
				l->expected);
		return;
	}
	if (name && l->name_error && (why = l->name_error(name))) {
		char *v = lab_ini_shown(name);

		lab_ini_fail_at(l, s->line, group, NULL, "the name '%s' %s", v, why);
		g_free(v);
		return;
	}
	first = GPOINTER_TO_INT(g_hash_table_lookup(l->lines, group));
	if (first) {
		lab_ini_fail_at(l, s->line, group, NULL,
				"duplicate section (first at line %d)", first);
		return;
	}
	g_hash_table_insert(l->lines, g_strdup(group), GINT_TO_POINTER(s->line));
	s->group = g_strdup(group);
}

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

static void scan_key(struct scan *s, const char *key, const char *value)
{
	struct lab_ini *l = s->l;
	char *id, *known;
	int first;

	if (!s->group) {
		lab_ini_fail_at(l, s->line, NULL, NULL,
				"a key=value line before the first [section]");
		return;
	}
	if (!g_utf8_validate(key, -1, NULL) || !g_utf8_validate(value, -1, NULL)) {
		lab_ini_fail_at(l, s->line, s->group, key, "not valid UTF-8");
		return;
	}
	if (!in_list(key, s->kind->keys)) {
		known = g_strjoinv(", ", (char **)s->kind->keys);
		lab_ini_fail_at(l, s->line, s->group, key, "unknown key (known here: %s)",
				*known ? known : "none");
		g_free(known);
		return;
	}
	id = g_strdup_printf("%s\n%s", s->group, key);
	first = GPOINTER_TO_INT(g_hash_table_lookup(l->lines, id));
	if (first) {
		lab_ini_fail_at(l, s->line, s->group, key,
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
			lab_ini_fail_at(s->l, s->line, NULL, NULL, "comment is not valid UTF-8");
	} else if ((group = group_of_line(p))) {
		scan_group(s, group);
		g_free(group);
	} else if ((eq = strchr(p, '=')) && eq != p) {
		key = g_strndup(p, eq - p);
		scan_key(s, g_strchomp(key), eq + 1);
		g_free(key);
	} else {
		char *v = lab_ini_shown(p);

		lab_ini_fail_at(s->l, s->line, NULL, NULL,
				"'%s' is not a [section], key=value or # comment", v);
		g_free(v);
	}
}

/* Record line numbers of groups and keys; refuse what GKeyFile would take
 * silently or refuse without a line. */
static void prescan(struct lab_ini *l, const char *data, gsize len)
{
	struct scan s = { .l = l };
	const char *p = data, *end = data + len;

	if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
		lab_ini_fail_at(l, 1, NULL, NULL,
				"a UTF-8 byte order mark: save the file without it");
		return;
	}
	while (p < end && !l->err) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = (nl ? nl : end) - p;
		char *line;

		s.line++;
		if (memchr(p, '\0', n)) {
			lab_ini_fail_at(l, s.line, s.group, NULL, "a NUL byte");
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

int lab_ini_load_data(struct lab_ini *l, const char *data, gsize len)
{
	GError *e = NULL;

	if (!l->lines)
		l->lines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	if (!l->kf)
		l->kf = g_key_file_new();
	prescan(l, data, len);
	if (!l->err && !g_key_file_load_from_data(l->kf, data, len, G_KEY_FILE_NONE, &e)) {
		lab_ini_fail_at(l, glib_error_line(data, len), NULL, NULL, "%s", e->message);
		g_error_free(e);
	}
	return l->err ? -1 : 0;
}

int lab_ini_load_file(struct lab_ini *l, gsize max_bytes)
{
	GError *e = NULL;
	gchar *data = NULL;
	gsize len = 0;
	int rc = -1;

	if (!g_file_get_contents(l->path, &data, &len, &e)) {
		lab_ini_fail_at(l, 0, NULL, NULL, "%s", e->message);
		g_error_free(e);
	} else if (len > max_bytes) {
		lab_ini_fail_at(l, 0, NULL, NULL, "%zu bytes, more than %s's %zu",
				(size_t)len, l->what ? l->what : "this file", (size_t)max_bytes);
	} else {
		rc = lab_ini_load_data(l, data, len);
	}
	g_free(data);
	return rc;
}

void lab_ini_clear(struct lab_ini *l)
{
	if (l->kf)
		g_key_file_free(l->kf);
	if (l->lines)
		g_hash_table_destroy(l->lines);
	l->kf = NULL;
	l->lines = NULL;
}

/* ---- values ---- */

char *lab_ini_str(struct lab_ini *l, const char *g, const char *k, const char *def)
{
	GError *e = NULL;
	char *v;

	if (!g_key_file_has_key(l->kf, g, k, NULL)) {
		if (!def)
			lab_ini_fail(l, g, k, "missing");
		return g_strdup(def);
	}
	v = g_key_file_get_string(l->kf, g, k, &e);
	if (e) {
		lab_ini_fail(l, g, k, "bad escape sequence (known: \\s \\n \\t \\r \\\\)");
		g_error_free(e);
		g_free(v);
		return NULL;
	}
	return v;
}

char **lab_ini_list(struct lab_ini *l, const char *g, const char *k)
{
	GError *e = NULL;
	char **v;

	if (!g_key_file_has_key(l->kf, g, k, NULL))
		return g_new0(char *, 1);
	v = g_key_file_get_string_list(l->kf, g, k, NULL, &e);
	if (e) {
		lab_ini_fail(l, g, k, "bad escape sequence in the list");
		g_error_free(e);
		g_strfreev(v);
		return NULL;
	}
	return v ? v : g_new0(char *, 1);
}

bool lab_ini_plain_number(const char *s, long *v)
{
	size_t n = strspn(s, "0123456789");

	if (n == 0 || s[n] || (s[0] == '0' && n > 1))
		return false;
	*v = n > 9 ? -1 : strtol(s, NULL, 10);
	return true;
}

int lab_ini_number(struct lab_ini *l, const char *g, const char *k,
		   const char *s, int min, int max, const char *what)
{
	long v;
	char *why;

	if (!lab_ini_plain_number(s, &v)) {
		why = g_strdup_printf("is not a plain decimal number of %s%s", what,
				      strchr(s, '#') ? " (a # comment goes on its own line)" : "");
		lab_ini_bad_value(l, g, k, s, why);
		g_free(why);
		return min;
	}
	if (v < min || v > max) {
		why = g_strdup_printf("is out of range %d..%d", min, max);
		lab_ini_bad_value(l, g, k, s, why);
		g_free(why);
		return min;
	}
	return (int)v;
}

int lab_ini_int(struct lab_ini *l, const char *g, const char *k, int def,
		int min, int max, const char *what)
{
	char *s = lab_ini_str(l, g, k, "");
	int v = def;

	if (s && *s)
		v = lab_ini_number(l, g, k, s, min, max, what);
	else if (s && g_key_file_has_key(l->kf, g, k, NULL))
		lab_ini_fail(l, g, k, "empty: write a number or drop the key");
	g_free(s);
	return v;
}

bool lab_ini_bool(struct lab_ini *l, const char *g, const char *k, bool def)
{
	char *s = lab_ini_str(l, g, k, def ? "true" : "false");
	bool v = def;

	if (s && !strcmp(s, "true"))
		v = true;
	else if (s && !strcmp(s, "false"))
		v = false;
	else if (s)
		lab_ini_bad_value(l, g, k, s, "is neither true nor false");
	g_free(s);
	return v;
}
