/* fuzz_topology.c - any bytes as a topology file: lab_topology_load either
 * refuses them with a message naming the file, or gives a topology that
 * keeps the loader's promises; never a crash, leak or undefined behaviour. */
#include <stdbool.h>
#include <string.h>

#include "core/topology.h"
#include "fuzz.h"

/* What a loaded topology promises the code that brings it up. */
static void check(const struct lab_topology *t)
{
	guint i;

	if (!t->name || t->guests->len == 0 || t->guests->len > 16)
		abort();
	for (i = 0; i < t->guests->len; i++) {
		const struct lab_guest *g = g_ptr_array_index(t->guests, i);
		int d;

		if (!g->role || !g->kernel || !g->network || !g->address ||
		    !g->cmdline || !g->devices || g->vcpus < 1 ||
		    g->memory_mib < 256 || strchr(g->cmdline, '\n'))
			abort();
		for (d = 0; g->disks_mib[d]; d++)
			if (d >= 8 || g->disks_mib[d] < 16)
				abort();
	}
}

/* GKeyFile's own message right after "FILE:LINE: " means the prescan let
 * through a line GKeyFile refuses (text the file echoes is quoted or
 * follows "[group] key:", so it cannot start there). */
static bool glib_message(const char *err, size_t path_len)
{
	const char *p = err + path_len;

	if (p[0] == ':' && g_ascii_isdigit(p[1]))
		p += 1 + strspn(p + 1, "0123456789");
	return g_str_has_prefix(p, ": Key file");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	char *err = NULL;
	struct lab_topology *t = lab_topology_load_host(path, 24000, 4, &err);

	if (!t == !err || (err && strncmp(err, path, strlen(path)) != 0))
		abort(); /* a topology or an error naming the file, not both */
	if (err && glib_message(err, strlen(path)))
		abort();
	if (t)
		check(t);
	lab_topology_free(t);
	g_free(err);
	return 0;
}
