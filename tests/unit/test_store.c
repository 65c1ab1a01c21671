/* test_store.c - a store's bookkeeping through libvirt's test driver
 * (test:///default keeps pools and volumes in memory): a new store is
 * marked as lab's, a directory with someone's files is never taken over,
 * an instance's own volumes are recorded before they exist and exactly
 * they go at `lab down`, a saved state is discarded by its key alone and
 * listed with its size and completeness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/hosts.h"
#include "guests/instance.h"
#include "store/admin.h"
#include "store/saved.h"
#include "store/store.h"
#include "util/util.h"
#include "virt/conn.h"

#define URI "test:///default"

static virConnectPtr conn(void)
{
	virConnectPtr c = lab_virt_open(URI);

	assert_non_null(c);
	return c;
}

static void vol(struct lab_store *st, const char *name)
{
	assert_int_equal(lab_store_qcow2(st, name, NULL, 16), 0);
}

static void test_new_store_is_marked(void **s)
{
	virConnectPtr c = conn();
	struct lab_store *st = lab_store_open(c, "t", URI, "/unit/new");

	(void)s;
	assert_non_null(st);
	assert_true(lab_store_has(st, "lab-store.ok"));
	assert_false(st->here); /* no such directory on this machine */
	lab_store_close(st);
	/* opened again: the marker says it is ours */
	st = lab_store_open(c, "t", URI, "/unit/new");
	assert_non_null(st);
	lab_store_close(st);
	virConnectClose(c);
}

static void test_foreign_directory_refused(void **s)
{
	virConnectPtr c = conn();
	char *name = lab_store_pool_name("/unit/foreign");
	char *xml = g_strdup_printf("<pool type='dir'><name>%s</name><target>"
				    "<path>/unit/foreign</path></target></pool>", name);
	virStoragePoolPtr p = virStoragePoolDefineXML(c, xml, 0);
	virStorageVolPtr v;

	(void)s;
	assert_non_null(p);
	assert_int_equal(virStoragePoolCreate(p, 0), 0);
	v = virStorageVolCreateXML(p, "<volume><name>notes.txt</name>"
				   "<capacity>1</capacity></volume>", 0);
	assert_non_null(v);
	virStorageVolFree(v);
	assert_null(lab_store_open(c, "t", URI, "/unit/foreign"));
	/* the user's file is still there, and no marker was written */
	v = virStorageVolLookupByName(p, "notes.txt");
	assert_non_null(v);
	virStorageVolFree(v);
	assert_null(virStorageVolLookupByName(p, "lab-store.ok"));
	virStoragePoolFree(p);
	g_free(xml);
	g_free(name);
	virConnectClose(c);
}

/* `lab hosts clean`: every volume lab named goes (a kernel's "bzImage"
 * too: CI once found it left behind), a file someone else put in the
 * store stays, and so does the directory that holds it. */
static void test_clean_deletes_only_lab_names(void **s)
{
	static const char *const ours[] = {
		"kernel-0123456789abcdef-bzImage", "kernel-0123456789abcdef-bzImage.ok",
		"image-0123456789abcdef-base.qcow2", "saved-0123456789abcdef-smoke.state",
		"ci.3d1219c7.smoke-console.log", "seed-0123456789abcdef.iso",
		"saved-0123456789abcdef-claim",
	};
	virConnectPtr c = conn();
	struct lab_store *st = lab_store_open(c, "t", URI, "/unit/clean");
	virStoragePoolPtr p;

	(void)s;
	assert_non_null(st);
	for (size_t i = 0; i < G_N_ELEMENTS(ours); i++) {
		assert_true(lab_store_named(ours[i]));
		vol(st, ours[i]);
	}
	assert_false(lab_store_named("Notes.txt"));
	assert_false(lab_store_named(".hidden.qcow2"));
	assert_false(lab_store_named("my photos.img"));
	vol(st, "Notes.txt");
	lab_store_close(st);
	assert_int_equal(lab_store_remove(c, "t", "/unit/clean"), 0);
	p = lab_store_lookup_pool(c, "/unit/clean");
	assert_null(p); /* undefined: the directory is the user's now */
	virConnectClose(c);
}

static void test_own_volumes_go_at_down(void **s)
{
	struct lab_host h = { .name = "t", .uri = URI, .store = "/unit/inst" };
	struct lab_inst in;
	char *p, *text, *own;

	(void)s;
	setenv("LAB_INSTANCE", "unit", 1);
	assert_int_equal(lab_inst_open(&in, true), 0);
	assert_int_equal(lab_inst_place(&in, &h, NULL), 0);
	own = lab_inst_vol("a-root.qcow2");
	assert_true(g_str_has_prefix(own, "unit."));
	p = lab_inst_own(&in, own);
	assert_true(g_str_has_suffix(p, own));
	g_free(p);
	/* recorded in state.ini before the volume exists */
	assert_true(g_file_get_contents(in.state_path, &text, NULL, NULL));
	assert_non_null(strstr(text, own));
	g_free(text);
	vol(in.store, own);
	g_free(lab_inst_own(&in, "saved-0123456789abcdef-a-root.qcow2"));
	vol(in.store, "saved-0123456789abcdef-a-root.qcow2");
	vol(in.store, "image-0123456789abcdef-base.qcow2"); /* shared */
	/* a name that is not this instance's, slipped into state.ini */
	vol(in.store, "other.00000000.a-root.qcow2");
	g_key_file_set_string(in.state, "instance", "saved-key", "0123456789abcdef");
	g_free(lab_inst_own(&in, "other.00000000.a-root.qcow2"));
	/* a saved state's disk becomes shared once the state is complete */
	assert_int_equal(lab_inst_disown(&in, "saved-0123456789abcdef-a-root.qcow2"), 0);
	assert_int_equal(lab_inst_teardown(&in), 0);
	assert_false(lab_store_has(in.store, own));
	assert_true(lab_store_has(in.store, "other.00000000.a-root.qcow2"));
	assert_true(lab_store_has(in.store, "saved-0123456789abcdef-a-root.qcow2"));
	assert_true(lab_store_has(in.store, "image-0123456789abcdef-base.qcow2"));
	assert_false(lab_exists(in.state_path));
	lab_inst_close(&in);
	g_free(own);
}

/* A state.ini that names a store hosts.ini does not know is not
 * followed: lab touches no directory a state file alone points at. */
static void test_state_store_checked(void **s)
{
	struct lab_inst in;
	char *state;

	(void)s;
	setenv("LAB_INSTANCE", "unit2", 1);
	assert_int_equal(lab_inst_open(&in, true), 0);
	g_key_file_set_string(in.state, "instance", "host", "local");
	g_key_file_set_string(in.state, "instance", "uri", "test:///default");
	g_key_file_set_string(in.state, "instance", "store", "/etc");
	g_key_file_set_string(in.state, "instance", "volumes", "passwd;");
	assert_int_equal(lab_inst_save(&in), 0);
	assert_int_equal(lab_inst_attach(&in), -1);
	assert_null(in.store);
	state = g_strdup(in.state_path);
	lab_inst_close(&in);
	unlink(state);
	g_free(state);
	setenv("LAB_INSTANCE", "unit", 1);
}

static void test_saved_by_key(void **s)
{
	virConnectPtr c = conn();
	struct lab_store *st = lab_store_open(c, "t", URI, "/unit/saved");
	GPtrArray *all;
	guint i, complete = 0;

	(void)s;
	assert_non_null(st);
	vol(st, "saved-aaaaaaaaaaaaaaaa-g-root.qcow2");
	vol(st, "saved-aaaaaaaaaaaaaaaa-g.state");
	assert_int_equal(lab_store_touch(st, "saved-aaaaaaaaaaaaaaaa.ok"), 0);
	vol(st, "saved-bbbbbbbbbbbbbbbb-g-root.qcow2"); /* being saved: no manifest */
	vol(st, "lab-g-root.qcow2");
	all = lab_saved_list(st, NULL);
	assert_int_equal(all->len, 2);
	for (i = 0; i < all->len; i++) {
		struct lab_saved_entry *e = g_ptr_array_index(all, i);

		complete += e->complete;
		assert_true(e->bytes > 0);
	}
	assert_int_equal(complete, 1);
	g_ptr_array_free(all, TRUE);
	lab_saved_discard(st, "aaaaaaaaaaaaaaaa", NULL);
	assert_false(lab_store_has(st, "saved-aaaaaaaaaaaaaaaa.ok"));
	assert_false(lab_store_has(st, "saved-aaaaaaaaaaaaaaaa-g.state"));
	assert_false(lab_store_has(st, "saved-aaaaaaaaaaaaaaaa-g-root.qcow2"));
	assert_true(lab_store_has(st, "saved-bbbbbbbbbbbbbbbb-g-root.qcow2"));
	assert_true(lab_store_has(st, "lab-g-root.qcow2"));
	lab_store_close(st);
	virConnectClose(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_store_is_marked),
		cmocka_unit_test(test_foreign_directory_refused),
		cmocka_unit_test(test_own_volumes_go_at_down),
		cmocka_unit_test(test_clean_deletes_only_lab_names),
		cmocka_unit_test(test_saved_by_key),
		cmocka_unit_test(test_state_store_checked),
	};

	return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
