/* test_save_image.c - a libvirt save file's head renamed for another
 * instance: same length (the stream after it stays put), the XML and the
 * cookie name the new domain and UUID, and anything lab cannot rewrite
 * safely is refused with its reason, the head untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "store/save_image.h"

#define XML "<domain type='qemu'>\n  <name>lab-nfs-server</name>\n" \
	"  <uuid>0a0b0c0d-0000-4000-8000-000000000001</uuid>\n" \
	"  <devices><interface type='network'><mac address='52:54:00:01:02:03'/>" \
	"</interface></devices>\n</domain>\n"
#define COOKIE "<qemu-migration>\n  <name>lab-nfs-server</name>\n" \
	"  <uuid>0a0b0c0d-0000-4000-8000-000000000001</uuid>\n</qemu-migration>\n"
#define NEW_UUID "11111111-2222-4333-8444-555555555555"

/* A head as libvirt writes it: DATA_LEN bytes of data after 92. */
static guchar *head_of(guint32 version, guint32 compressed, guint32 data_len,
		       const char *magic, gsize *n)
{
	guint32 f[19] = { version, data_len, 1, compressed, 0 };
	guchar *h;

	f[4] = (guint32)strlen(XML) + 1;
	*n = LAB_SAVE_IMAGE_HEAD + data_len;
	h = g_malloc0(*n);
	memcpy(h, magic, 16);
	memcpy(h + 16, f, sizeof(f));
	if (data_len >= strlen(XML) + strlen(COOKIE) + 2) {
		memcpy(h + LAB_SAVE_IMAGE_HEAD, XML, strlen(XML) + 1);
		memcpy(h + LAB_SAVE_IMAGE_HEAD + f[4], COOKIE, strlen(COOKIE) + 1);
	}
	return h;
}

static void test_rename_table(void **st)
{
	static const struct {
		const char *what;
		guint32 version, compressed, data_len;
		const char *magic, *name, *why; /* why NULL: renamed */
	} cases[] = {
		{ "a longer name into libvirt's padding", 2, 0, 4096,
		  "LibvirtQemudSave", "ci-b-nfs-server", NULL },
		{ "a shorter name", 2, 0, 4096, "LibvirtQemudSave", "x-nfs-server", NULL },
		{ "no room left in the head", 2, 0,
		  sizeof(XML) + sizeof(COOKIE), "LibvirtQemudSave",
		  "a-much-longer-instance-name-nfs-server", "does not fit" },
		{ "a partial save", 2, 0, 4096, "LibvirtQemudPart", "ci-nfs-server",
		  "not a libvirt QEMU save file" },
		{ "another format", 3, 0, 4096, "LibvirtQemudSave", "ci-nfs-server",
		  "format 3" },
		{ "compressed", 2, 1, 4096, "LibvirtQemudSave", "ci-nfs-server",
		  "compressed" },
	};
	guint i;

	(void)st;
	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		gsize n;
		guchar *h = head_of(cases[i].version, cases[i].compressed,
				    cases[i].data_len, cases[i].magic, &n);
		guchar *before = g_memdup2(h, n);
		char *why = lab_save_image_rename(h, n, cases[i].name, NEW_UUID), *name;
		const char *data = (const char *)h + LAB_SAVE_IMAGE_HEAD, *cookie;
		guint32 coff;

		if (cases[i].why) {
			if (!why || !strstr(why, cases[i].why))
				fail_msg("%s: want '%s', got '%s'", cases[i].what,
					 cases[i].why, why ? why : "(renamed)");
			assert_memory_equal(h, before, n);
		} else {
			if (why)
				fail_msg("%s: %s", cases[i].what, why);
			memcpy(&coff, h + 32, 4);
			cookie = data + coff;
			assert_int_equal(coff, strlen(data) + 1);
			name = lab_save_image_text(data, "name");
			assert_string_equal(name, cases[i].name);
			g_free(name);
			assert_non_null(strstr(data, NEW_UUID));
			assert_null(strstr(data, "0a0b0c0d"));
			assert_non_null(strstr(data, "52:54:00:01:02:03"));
			assert_non_null(strstr(cookie, cases[i].name));
			assert_non_null(strstr(cookie, NEW_UUID));
		}
		g_free(why);
		g_free(before);
		g_free(h);
	}
}

/* The whole head's length comes from its first 92 bytes; fewer is no
 * head at all. */
static void test_head_len(void **st)
{
	gsize n;
	guchar *h = head_of(2, 0, 4096, "LibvirtQemudSave", &n);
	char *why = NULL;

	(void)st;
	assert_int_equal(lab_save_image_head_len(h, LAB_SAVE_IMAGE_HEAD, &why), n);
	assert_null(why);
	assert_int_equal(lab_save_image_head_len(h, 40, &why), 0);
	assert_non_null(why);
	g_free(why);
	g_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rename_table),
		cmocka_unit_test(test_head_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
