/* plan.c - see plan.h. */
#include "guests/plan.h"
#include "build/image.h"
#include "build/kernel.h"
#include "core/topology.h"
#include "guests/instance.h"
#include "store/saved.h"
#include "store/store.h"
#include "util/util.h"
#include "virt/domxml.h"

#include <string.h>

static void plan_free(struct lab_plan *p)
{
	g_free(p->domain);
	g_free(p->kernel_dir);
	g_free(p->kernel);
	g_free(p->initrd);
	g_free(p->cmdline);
	g_free(p->network);
	g_free(p->mac);
	g_free(p->user_data);
	g_free(p->meta_data);
	g_free(p->seed);
	g_free(p->root);
	g_strfreev(p->disks);
	g_free(p->console_vol);
	g_free(p->console);
	g_free(p->copy);
	g_free(p->xml);
}

void lab_plan_clear(struct lab_up_plan *u)
{
	guint i;

	for (i = 0; u->ps && i < u->n; i++)
		plan_free(&u->ps[i]);
	g_free(u->ps);
	g_free(u->image);
	g_free(u->tests);
	g_free(u->key);
	memset(u, 0, sizeof(*u));
}

static char *in_store(struct lab_inst *in, const char *name)
{
	return name ? lab_store_path(in->store, name) : NULL;
}

/* S for P on ROOT and DISKS (volume names); the paths S points at are
 * PATHS's. */
static void plan_spec(struct lab_inst *in, const struct lab_up_plan *u,
		      const struct lab_plan *p, const char *owner, const char *root,
		      char *const *disks, struct lab_domain_spec *s, GPtrArray *paths)
{
	GPtrArray *scratch = g_ptr_array_new();
	int i;

	for (i = 0; disks && disks[i]; i++)
		g_ptr_array_add(scratch, in_store(in, disks[i]));
	g_ptr_array_add(scratch, NULL);
	memset(s, 0, sizeof(*s));
	s->name = p->domain;
	s->type = u->type;
	s->memory_mib = p->g->memory_mib;
	s->vcpus = p->g->vcpus;
	s->kernel = p->kernel;
	s->initrd = p->initrd;
	s->cmdline = p->cmdline;
	s->root_disk = in_store(in, root);
	s->seed_iso = p->seed;
	s->tests_iso = u->tests;
	s->scratch_disks = (const char *const *)scratch->pdata;
	s->network = p->network;
	s->mac = p->mac;
	s->console_log = in_store(in, p->console_vol);
	s->owner = owner;
	for (i = 0; p->g->devices[i]; i++)
		s->intel_hda |= strcmp(p->g->devices[i], "intel-hda") == 0;
	g_ptr_array_add(paths, (char *)s->root_disk);
	g_ptr_array_add(paths, (char *)s->console_log);
	for (i = 0; disks && disks[i]; i++)
		g_ptr_array_add(paths, g_ptr_array_index(scratch, i));
	g_ptr_array_add(paths, g_ptr_array_free(scratch, FALSE));
}

char *lab_plan_xml(struct lab_inst *in, const struct lab_up_plan *u,
		   const struct lab_plan *p, const char *owner,
		   const char *root, char *const *disks)
{
	GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
	struct lab_domain_spec s;
	char *xml;

	plan_spec(in, u, p, owner, root, disks, &s, paths);
	xml = lab_domain_xml(&s);
	g_ptr_array_free(paths, TRUE);
	return xml;
}

char *lab_plan_copy_vol(const char *guest)
{
	return lab_inst_vol("%s-restore.state", guest);
}

/* A cached file in the store under its content name (put when missing). */
static char *shared(struct lab_inst *in, const char *kind, const char *local)
{
	struct lab_store_stats s = { 0 };
	char *at = lab_store_shared(in->store, kind, local, &s);

	if (at && s.uploaded && !in->store->here)
		lab_info("host %s: uploaded %s: %.1f MiB in %.1f s", in->store->host,
			 local, s.bytes / 1048576.0, s.seconds);
	return at;
}

/* The kernel (bzImage, or Debian's vmlinuz + initrd) in the store. */
static int plan_kernel(struct lab_inst *in, struct lab_plan *p)
{
	char *k = g_build_filename(p->kernel_dir, "bzImage", NULL);
	char *initrd = NULL;
	int rc = 0;

	if (!lab_exists(k)) { /* Debian's own kernel */
		g_free(k);
		k = g_build_filename(p->kernel_dir, "vmlinuz", NULL);
		initrd = g_build_filename(p->kernel_dir, "initrd.img", NULL);
	}
	if (!(p->kernel = shared(in, "kernel", k)) ||
	    (initrd && !(p->initrd = shared(in, "kernel", initrd))))
		rc = -1;
	g_free(k);
	g_free(initrd);
	return rc;
}

static int plan_guest(struct lab_inst *in, const struct lab_guest *g,
		      struct lab_plan *p)
{
	GPtrArray *disks = g_ptr_array_new();
	char *iso;
	int i;

	p->g = g;
	p->domain = lab_inst_name(g->name);
	if (!(p->kernel_dir = lab_kernel_dir(LAB_REVIEW_DEFAULT, g->kernel)) ||
	    plan_kernel(in, p) != 0)
		goto fail;
	p->cmdline = lab_guest_cmdline(g->cmdline);
	p->network = lab_inst_name(g->network);
	/* the topology's, in every instance: a restore must match it */
	p->mac = lab_mac_for(g->name);
	p->user_data = lab_seed_user_data(g);
	p->meta_data = lab_seed_meta_data(g);
	if (!p->user_data || !(iso = lab_seed_iso(p->user_data, p->meta_data)))
		goto fail;
	p->seed = shared(in, "seed", iso);
	g_free(iso);
	if (!p->seed)
		goto fail;
	p->root = lab_inst_vol("%s-root.qcow2", g->name);
	for (i = 0; g->disks_mib[i]; i++)
		g_ptr_array_add(disks, lab_inst_vol("%s-disk%d.qcow2", g->name, i));
	g_ptr_array_add(disks, NULL);
	p->disks = (char **)g_ptr_array_free(disks, FALSE);
	p->console_vol = lab_inst_vol("%s-console.log", g->name);
	p->console = g_strdup_printf("%s/consoles/%s.log", in->dir, g->name);
	p->copy = lab_plan_copy_vol(g->name);
	return 0;
fail:
	g_ptr_array_free(disks, TRUE);
	return -1;
}

static char *networks_of(const struct lab_topology *t)
{
	GString *s = g_string_new("");
	guint i;

	for (i = 0; i < t->networks->len; i++)
		g_string_append_printf(s, "%s;",
			((struct lab_network *)g_ptr_array_index(t->networks, i))->name);
	return g_string_free(s, FALSE);
}

static void plan_key(struct lab_inst *in, const struct lab_topology *t,
		     struct lab_up_plan *u)
{
	struct lab_saved_input *inputs = g_new0(struct lab_saved_input, u->n);
	char *versions = lab_saved_versions(in->conn, u->type);
	char *nets = networks_of(t);
	guint i;

	for (i = 0; i < u->n; i++) {
		struct lab_plan *p = &u->ps[i];

		GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
		struct lab_domain_spec s;

		plan_spec(in, u, p, NULL, p->root, p->disks, &s, paths);
		p->xml = lab_saved_key_xml(&s, p->g->name, p->g->network);
		g_ptr_array_free(paths, TRUE);
		inputs[i].guest = p->g->name;
		inputs[i].domain_xml = p->xml;
		inputs[i].user_data = p->user_data;
		inputs[i].meta_data = p->meta_data;
	}
	u->key = lab_saved_key(versions, u->image, nets, inputs, u->n);
	g_free(versions);
	g_free(nets);
	g_free(inputs);
}

/* The tests disk is the instance's own volume under a steady name: a
 * guest restored from a saved state sees today's tests under the path it
 * was saved with (the key leaves the tests out). */
static char *put_tests(struct lab_inst *in, const char *tests_iso)
{
	char *name = lab_inst_vol("tests.iso");
	char *at = lab_inst_own(in, name);

	if (at && lab_store_put(in->store, tests_iso, name) != 0)
		g_clear_pointer(&at, g_free);
	g_free(name);
	return at;
}

int lab_plan_up(struct lab_inst *in, const struct lab_topology *t,
		const char *type, const char *image, const char *tests_iso,
		struct lab_up_plan *u)
{
	guint i;

	memset(u, 0, sizeof(*u));
	u->type = type;
	u->n = t->guests->len;
	u->ps = g_new0(struct lab_plan, u->n);
	if (!(u->image = shared(in, "image", image)))
		return -1;
	if (tests_iso && !(u->tests = put_tests(in, tests_iso)))
		return -1;
	for (i = 0; i < u->n; i++)
		if (lab_interrupted ||
		    plan_guest(in, g_ptr_array_index(t->guests, i), &u->ps[i]) != 0)
			return -1;
	plan_key(in, t, u);
	return 0;
}
