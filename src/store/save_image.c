/* save_image.c - see save_image.h. */
#include "store/save_image.h"

#include <string.h>

#define MAGIC "LibvirtQemudSave"
#define VERSION 2u

enum { F_VERSION, F_DATA_LEN, F_WAS_RUNNING, F_COMPRESSED, F_COOKIE };

static guint32 field(const guchar *head, int i)
{
	guint32 v;

	memcpy(&v, head + 16 + 4 * i, sizeof(v));
	return v;
}

static void set_field(guchar *head, int i, guint32 v)
{
	memcpy(head + 16 + 4 * i, &v, sizeof(v));
}

gsize lab_save_image_head_len(const guchar *head, gsize n, char **why)
{
	*why = NULL;
	if (n < LAB_SAVE_IMAGE_HEAD || memcmp(head, MAGIC, 16) != 0)
		*why = g_strdup("not a libvirt QEMU save file (no " MAGIC ")");
	else if (field(head, F_VERSION) != VERSION)
		*why = g_strdup_printf("save file format %u, lab reads %u",
				       field(head, F_VERSION), VERSION);
	else if (field(head, F_COMPRESSED) != 0)
		*why = g_strdup("a compressed save file");
	else if (field(head, F_DATA_LEN) == 0 || field(head, F_DATA_LEN) > (64u << 20))
		*why = g_strdup_printf("a save file head of %u bytes",
				       field(head, F_DATA_LEN));
	return *why ? 0 : LAB_SAVE_IMAGE_HEAD + field(head, F_DATA_LEN);
}

/* The NUL-terminated string at OFF of the data, or NULL when it runs out. */
static const char *data_str(const guchar *head, gsize n, gsize off)
{
	const guchar *s = head + LAB_SAVE_IMAGE_HEAD + off;

	if (LAB_SAVE_IMAGE_HEAD + off >= n || !memchr(s, 0, n - LAB_SAVE_IMAGE_HEAD - off))
		return NULL;
	return (const char *)s;
}

char *lab_save_image_text(const char *xml, const char *tag)
{
	char *open = g_strdup_printf("<%s>", tag), *close = g_strdup_printf("</%s>", tag);
	const char *a = xml ? strstr(xml, open) : NULL, *b;
	char *out = NULL;

	if (a && (b = strstr(a, close)))
		out = g_strndup(a + strlen(open), (gsize)(b - a - strlen(open)));
	g_free(open);
	g_free(close);
	return out;
}

/* S with the first <TAG>...</TAG> holding VALUE instead. */
static char *replace(const char *s, const char *tag, const char *value)
{
	char *old = lab_save_image_text(s, tag), *from, *to, *out;
	const char *at;

	if (!old)
		return g_strdup(s);
	from = g_strdup_printf("<%s>%s</%s>", tag, old, tag);
	to = g_strdup_printf("<%s>%s</%s>", tag, value, tag);
	at = strstr(s, from);
	out = g_strdup_printf("%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
	g_free(old);
	g_free(from);
	g_free(to);
	return out;
}

static char *renamed(const char *s, const char *name, const char *uuid)
{
	char *a = replace(s, "name", name), *b = replace(a, "uuid", uuid);

	g_free(a);
	return b;
}

char *lab_save_image_rename(guchar *head, gsize n, const char *name,
			    const char *uuid)
{
	gsize len, data_len;
	const char *xml, *cookie = NULL;
	char *why = NULL, *nx = NULL, *nc = NULL, *old;
	guint32 coff;

	if (!(len = lab_save_image_head_len(head, n, &why)))
		return why;
	if (len != n)
		return g_strdup_printf("the head is %zu bytes, %zu given", len, n);
	data_len = len - LAB_SAVE_IMAGE_HEAD;
	coff = field(head, F_COOKIE);
	if (!(xml = data_str(head, n, 0)) || (coff && !(cookie = data_str(head, n, coff))))
		return g_strdup("its XML or cookie is not NUL-terminated in the head");
	if (!(old = lab_save_image_text(xml, "name")))
		return g_strdup("its XML names no domain");
	g_free(old);
	nx = renamed(xml, name, uuid);
	nc = cookie ? renamed(cookie, name, uuid) : NULL;
	if (strlen(nx) + 1 + (nc ? strlen(nc) + 1 : 0) > data_len) {
		why = g_strdup_printf("the renamed XML does not fit the head's %zu bytes",
				      data_len);
	} else {
		guchar *data = head + LAB_SAVE_IMAGE_HEAD;

		memset(data, 0, data_len);
		memcpy(data, nx, strlen(nx) + 1);
		if (nc) {
			memcpy(data + strlen(nx) + 1, nc, strlen(nc) + 1);
			set_field(head, F_COOKIE, (guint32)(strlen(nx) + 1));
		}
	}
	g_free(nx);
	g_free(nc);
	return why;
}
