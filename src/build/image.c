/* image.c - `lab image`: a Debian bookworm base image built by mmdebstrap
 * from guests/image/, turned into ext4 with `mkfs.ext4 -d` (no mounting),
 * converted to qcow2 and cached by the recipe's content hash. Also the
 * per-guest NoCloud seeds (cloud-localds): meta-data and a user-data script
 * from guests/seed/, which the image's lab-seed unit runs at first boot. */
#include "build/image.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define IMAGE_RECIPE "lab-image-2"
#define IMAGE_SIZE "3G"
#define MMDEBSTRAP_TIMEOUT_S (30 * 60)

static char *image_key(void)
{
	const char *files[] = { "guests/image/packages",
				"guests/image/customize.sh",
				"guests/image/lab-seed",
				"guests/image/lab-seed.service" };
	lab_hash *h = lab_hash_new();
	size_t i;

	lab_hash_str(h, IMAGE_RECIPE);
	for (i = 0; i < G_N_ELEMENTS(files); i++) {
		char *p = lab_src_path(files[i]);
		int rc = lab_hash_file(h, p);

		g_free(p);
		if (rc != 0) {
			g_free(lab_hash_finish(h, 1));
			return NULL;
		}
	}
	return lab_hash_finish(h, 16);
}

static char *image_file(const char *key)
{
	char *rel = g_build_filename("images", key, "base.qcow2", NULL);
	char *p = lab_path(rel);

	g_free(rel);
	return p;
}

char *lab_image_path(void)
{
	char *key = image_key();
	char *p;

	if (!key)
		return NULL;
	p = image_file(key);
	g_free(key);
	if (!lab_exists(p)) {
		lab_err("the guest image is not built: run `lab image`");
		g_free(p);
		return NULL;
	}
	return p;
}

/* Package list: one name a line, '#' comments. */
static char *package_list(void)
{
	char *path = lab_src_path("guests/image/packages");
	gchar *data = NULL;
	GString *out = g_string_new(NULL);
	gchar **lines;
	int i;

	if (!g_file_get_contents(path, &data, NULL, NULL)) {
		lab_err("cannot read %s", path);
		g_free(path);
		return g_string_free(out, TRUE), NULL;
	}
	lines = g_strsplit(data, "\n", -1);
	for (i = 0; lines[i]; i++) {
		char *l = g_strstrip(lines[i]);

		if (*l && *l != '#')
			g_string_append_printf(out, "%s%s", out->len ? "," : "", l);
	}
	g_strfreev(lines);
	g_free(data);
	g_free(path);
	return g_string_free(out, FALSE);
}

/* The first file in DIR whose name starts with PREFIX, or NULL. */
static char *first_named(const char *dir, const char *prefix)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *n;
	char *out = NULL;

	while (d && !out && (n = g_dir_read_name(d)))
		if (g_str_has_prefix(n, prefix))
			out = g_build_filename(dir, n, NULL);
	if (d)
		g_dir_close(d);
	return out;
}

/* Debian's own kernel, from the image's /boot (the package's vmlinuz and
 * the initrd its postinst made): an interop peer that boots through the
 * same libvirt path as the lab's kernels. Never from the host's /boot.
 * Absent when the package list has no linux-image-amd64. */
static int keep_debian_kernel(const char *rootfs, const char *tmp)
{
	const char *const parts[][2] = {
		{ "vmlinuz-", "vmlinuz" }, { "initrd.img-", "initrd.img" },
		{ "config-", "config" }, { "System.map-", "System.map" },
	};
	char *boot = g_build_filename(rootfs, "boot", NULL);
	char *out = g_build_filename(tmp, "debian", NULL);
	char *first = first_named(boot, "vmlinuz-");
	int rc = 0;
	size_t i;

	if (first) {
		lab_mkdir_p(out);
		for (i = 0; rc == 0 && i < G_N_ELEMENTS(parts); i++) {
			char *from = first_named(boot, parts[i][0]);
			char *to = g_build_filename(out, parts[i][1], NULL);
			gchar *data = NULL;
			gsize len = 0;

			if (!from || !g_file_get_contents(from, &data, &len, NULL) ||
			    lab_write_file(to, data, (gssize)len) != 0) {
				lab_err("cannot keep Debian's kernel file %s", from ? from : parts[i][0]);
				rc = -1;
			}
			g_free(data);
			g_free(from);
			g_free(to);
		}
		lab_info("image: Debian's kernel %s kept for kernel=debian", first);
	}
	g_free(first);
	g_free(boot);
	g_free(out);
	return rc;
}

char *lab_image_kernel_dir(void)
{
	char *img = lab_image_path(), *dir, *d;

	if (!img)
		return NULL;
	dir = g_path_get_dirname(img);
	d = g_build_filename(dir, "debian", NULL);
	g_free(img);
	g_free(dir);
	if (!lab_exists(d)) {
		lab_err("the guest image has no Debian kernel: guests/image/packages lacks linux-image-amd64");
		g_clear_pointer(&d, g_free);
	}
	return d;
}

static int build_image(const char *key, const char *dest)
{
	char *rel = g_build_filename("images", key, NULL);
	char *dir = lab_path(rel);
	char *tmp = g_strconcat(dir, ".tmp", NULL);
	char *rootfs = g_build_filename(tmp, "rootfs", NULL);
	char *raw = g_build_filename(tmp, "base.raw", NULL);
	char *qcow = g_build_filename(tmp, "base.qcow2", NULL);
	char *log = g_build_filename(tmp, "image.log", NULL);
	char *pkgs = package_list();
	char *hook_script = lab_src_path("guests/image/customize.sh");
	char *hook = g_strdup_printf("%s \"$1\"", hook_script);
	char *include = g_strdup_printf("--include=%s", pkgs ? pkgs : "");
	char *hookarg = g_strdup_printf("--customize-hook=%s", hook);
	int rc = -1;

	if (!pkgs)
		goto out;
	lab_rm_rf(tmp);
	if (lab_mkdir_p(tmp) != 0)
		goto out;
	lab_phase_begin("mmdebstrap");
	lab_info("mmdebstrap: Debian bookworm from the host's apt sources (about 2 min)");
	{
		/* No mirror argument: mmdebstrap uses the host's apt sources. */
		char *argv[] = { "mmdebstrap", "--variant=minbase", include,
				 hookarg, "bookworm", rootfs, NULL };

		if (lab_run(argv, NULL, log, MMDEBSTRAP_TIMEOUT_S) != 0)
			goto fail;
	}
	if (keep_debian_kernel(rootfs, tmp) != 0)
		goto fail;
	lab_phase_begin("mkfs.ext4 -d + qemu-img");
	{
		char *mkfs[] = { "mkfs.ext4", "-q", "-L", "labroot", "-d", rootfs,
				 raw, IMAGE_SIZE, NULL };
		char *conv[] = { "qemu-img", "convert", "-O", "qcow2", raw, qcow,
				 NULL };

		if (lab_run(mkfs, NULL, log, 600) != 0 ||
		    lab_run(conv, NULL, log, 600) != 0)
			goto fail;
	}
	lab_rm_rf(rootfs);
	unlink(raw);
	lab_rm_rf(dir);
	if (rename(tmp, dir) != 0) {
		lab_err("rename %s: %s", tmp, strerror(errno));
		goto out;
	}
	lab_phase_end();
	lab_info("image: %s", dest);
	rc = 0;
	goto out;
fail:
	{
		char *tail = lab_tail(log, 20);

		lab_err("building the guest image failed (network, apt sources or disk space?); last lines of the log:\n%s",
			tail);
		g_free(tail);
	}
	lab_rm_rf(tmp);
out:
	g_free(rel);
	g_free(dir);
	g_free(tmp);
	g_free(rootfs);
	g_free(raw);
	g_free(qcow);
	g_free(log);
	g_free(pkgs);
	g_free(hook_script);
	g_free(hook);
	g_free(include);
	g_free(hookarg);
	return rc;
}

int lab_image_build(void)
{
	char *key, *dest;
	int rc;

	key = image_key();
	if (!key)
		return 1;
	dest = image_file(key);
	if (lab_exists(dest)) {
		lab_info("image: cache hit %s", dest);
		rc = 0;
	} else if (geteuid() != 0) {
		lab_err("lab image runs mmdebstrap and needs root");
		rc = 1;
	} else {
		rc = build_image(key, dest) == 0 ? 0 : 1;
	}
	g_free(key);
	g_free(dest);
	return rc;
}

static char *read_template(const char *name)
{
	char *file = g_strconcat(name, ".sh", NULL);
	char *rel = g_build_filename("guests", "seed", file, NULL);
	char *path = lab_src_path(rel);
	gchar *data = NULL;

	if (!g_file_get_contents(path, &data, NULL, NULL))
		lab_err("cannot read the user-data template %s", path);
	g_free(file);
	g_free(rel);
	g_free(path);
	return data;
}

static char *replace_all(char *s, const char *marker, const char *value)
{
	gchar **parts = g_strsplit(s, marker, -1);
	char *out = g_strjoinv(value, parts);

	g_strfreev(parts);
	g_free(s);
	return out;
}

char *lab_seed_user_data(const struct lab_guest *g)
{
	char *common = read_template("common");
	char *role = read_template(g->role);
	char *ud;

	if (!common || !role) {
		g_free(common);
		g_free(role);
		return NULL;
	}
	ud = g_strconcat(common, role, NULL);
	ud = replace_all(ud, "@ADDRESS@", g->address);
	ud = replace_all(ud, "@EXPORT@", g->export ? g->export : "sync");
	g_free(common);
	g_free(role);
	return ud;
}

/* Deterministic: the same guest gets the same seed, so the saved ready
 * state's key does not change from one `lab up` to the next. */
char *lab_seed_meta_data(const struct lab_guest *g)
{
	return g_strdup_printf("instance-id: lab-%s\nlocal-hostname: %s\n",
			       g->name, g->name);
}

int lab_seed_write(const char *iso, const char *user_data,
		   const char *meta_data)
{
	char *udp = g_strconcat(iso, ".user-data", NULL);
	char *mdp = g_strconcat(iso, ".meta-data", NULL);
	char *argv[] = { "cloud-localds", (char *)iso, udp, mdp, NULL };
	int rc = -1;

	if (lab_write_file(udp, user_data, -1) == 0 &&
	    lab_write_file(mdp, meta_data, -1) == 0) {
		rc = lab_run(argv, NULL, NULL, 60);
		if (rc != 0)
			lab_err("cloud-localds %s failed (is cloud-image-utils installed?)",
				iso);
	}
	unlink(udp);
	unlink(mdp);
	g_free(udp);
	g_free(mdp);
	return rc == 0 ? 0 : -1;
}

char *lab_seed_iso(const char *user_data, const char *meta_data)
{
	lab_hash *h = lab_hash_new();
	char *key, *dir = lab_path("seeds"), *iso, *tmp;

	lab_hash_str(h, "lab-seed-1");
	lab_hash_str(h, user_data);
	lab_hash_str(h, meta_data);
	key = lab_hash_finish(h, 16);
	iso = g_strdup_printf("%s/%s.iso", dir, key);
	tmp = g_strdup_printf("%s.tmp-%d", iso, (int)getpid());
	if (!lab_exists(iso) &&
	    (lab_mkdir_p(dir) != 0 || lab_seed_write(tmp, user_data, meta_data) != 0 ||
	     rename(tmp, iso) != 0)) {
		lab_err("cannot make the seed %s", iso);
		unlink(tmp);
		g_clear_pointer(&iso, g_free);
	}
	g_free(tmp);
	g_free(key);
	g_free(dir);
	return iso;
}
