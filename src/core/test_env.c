/* test_env.c - see test_env.h. */
#include "core/test_env.h"

#include <glib.h>
#include <stdbool.h>
#include <string.h>

#define VALUE_MAX 256

/* Set by the runner (run_test.c) or by the programs for themselves
 * (lab_test.sh): a user's value would contradict what the run records. */
static const char *const reserved[] = {
	"LAB_TEST", "LAB_PART", "LAB_GUESTS", "LAB_NFS_DIR", "LAB_NFS_SERVER",
	"LAB_NFS_EXPORT", "LAB_NFS_VERS", "LAB_INTEROP_SERVER",
	"LAB_INTEROP_GROUP", "LAB_DURATION", "LAB_MIN_HITS", "LAB_BOUNDED",
	NULL,
};

static bool name_ok(const char *n, size_t len)
{
	size_t i;

	if (len <= 4 || strncmp(n, "LAB_", 4) != 0)
		return false;
	for (i = 4; i < len; i++)
		if (!g_ascii_isupper(n[i]) && !g_ascii_isdigit(n[i]) && n[i] != '_')
			return false;
	return true;
}

char *lab_test_env_check(const char *kv)
{
	const char *eq = kv ? strchr(kv, '=') : NULL;
	const char *const *r;
	size_t len;

	if (!eq)
		return g_strdup_printf("'%s' is not NAME=VALUE", kv ? kv : "");
	len = (size_t)(eq - kv);
	if (!name_ok(kv, len))
		return g_strdup_printf("'%.*s' is not a test setting: a name "
				       "LAB_[A-Z0-9_]+", (int)len, kv);
	for (r = reserved; *r; r++)
		if (strlen(*r) == len && !strncmp(*r, kv, len))
			return g_strdup_printf("%s is set by lab itself (see tests/suite.ini)",
					       *r);
	if (strlen(eq + 1) > VALUE_MAX)
		return g_strdup_printf("%.*s: the value is longer than %d characters",
				       (int)len, kv, VALUE_MAX);
	if (strspn(eq + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		   "0123456789._,:/+=-") != strlen(eq + 1))
		return g_strdup_printf("%.*s: the value '%s' has a character other than "
				       "letters, digits and ._,:/+=-", (int)len, kv, eq + 1);
	return NULL;
}

char *lab_test_env_check_all(char *const *env)
{
	size_t i, j;
	char *why;

	for (i = 0; env && env[i]; i++) {
		if ((why = lab_test_env_check(env[i])))
			return why;
		for (j = 0; j < i; j++) {
			size_t len = (size_t)(strchr(env[j], '=') - env[j]);

			if (!strncmp(env[i], env[j], len + 1))
				return g_strdup_printf("%.*s is given twice", (int)len, env[j]);
		}
	}
	return NULL;
}
