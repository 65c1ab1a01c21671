/* fuzz_hosts.c - any bytes as hosts.ini: lab_hosts_parse either refuses
 * them with a message naming the file, or gives hosts that keep the
 * parser's promises; never a crash, leak or undefined behaviour. */
#include <string.h>

#include "core/hosts.h"
#include <stdint.h>
#include <stdlib.h>

/* A store path names one directory in one spelling: no '.' or '..'
 * component, no empty one, no control byte. */
static int one_spelling(const char *p)
{
	gchar **c = g_strsplit(p + 1, "/", -1);
	int ok = p[0] == '/';

	for (int i = 0; ok && c[i]; i++)
		ok = *c[i] && strcmp(c[i], ".") && strcmp(c[i], "..");
	for (const char *s = p; ok && *s; s++)
		ok = (unsigned char)*s >= 0x20 && *s != 0x7f;
	g_strfreev(c);
	return ok;
}

/* What a parsed host promises the code that connects to it. */
static void check(const struct lab_hosts *h)
{
	if (h->hosts->len == 0)
		abort();
	for (guint i = 0; i < h->hosts->len; i++) {
		const struct lab_host *x = g_ptr_array_index(h->hosts, i);

		if (!x->name || !*x->name || strlen(x->name) > 32 || !x->uri ||
		    !g_str_has_prefix(x->uri, "qemu") || !x->store ||
		    !one_spelling(x->store) ||
		    x->guests < 1 || x->guests > 64 || x->memory_mib < 256)
			abort();
		for (guint j = 0; j < i; j++)
			if (!strcmp(x->name, ((struct lab_host *)
					g_ptr_array_index(h->hosts, j))->name))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = g_strndup((const char *)data, size), *err = NULL;
	struct lab_hosts *h = lab_hosts_parse("fuzz.ini", text, &err);

	if (!h == !err || (err && !g_str_has_prefix(err, "fuzz.ini:")))
		abort(); /* hosts or an error naming the file, not both */
	if (h)
		check(h);
	lab_hosts_free(h);
	g_free(err);
	g_free(text);
	return 0;
}
