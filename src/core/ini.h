/* ini.h - the strict INI reader every file of lab is read with
 * (topologies, tests/suite.ini, hosts.ini): GKeyFile does the parsing, a
 * prescan first walks the lines the way GKeyFile reads them, records the
 * line of every group and key, and refuses what GKeyFile would take
 * silently or refuse without a line (duplicate groups and keys, unknown
 * groups and keys, `key[xx]=`, a NUL byte, a byte order mark, invalid
 * UTF-8). Every error reads "FILE:LINE: [GROUP] KEY: why"; only the first
 * is kept (it is the cause); values are shown with control characters
 * escaped, so a bad file cannot write to a terminal. */
#ifndef LAB_INI_H
#define LAB_INI_H

#include <stdbool.h>
#include <glib.h>

/* A kind of group: "topology" alone, or "guest NAME" (NAMED: PREFIX is
 * "guest " and a name follows), with the keys it may hold. */
struct lab_ini_kind {
	const char *prefix;
	bool named;
	const char *const *keys;
};

struct lab_ini {
	const char *path;
	const struct lab_ini_kind *kinds; /* ended by a NULL prefix */
	const char *what;      /* "a topology": the file in a message */
	const char *expected;  /* the kinds for a message: "[test NAME] or ..." */
	/* NULL when a group's NAME is fine, else why not */
	const char *(*name_error)(const char *name);
	GKeyFile *kf;
	GHashTable *lines;     /* "group\nkey" or "group" -> line number */
	char *err;
};

/* Read L->path (at most MAX_BYTES) and load it. 0, or -1 with l->err. */
int lab_ini_load_file(struct lab_ini *l, gsize max_bytes);
/* The same from text already read. */
int lab_ini_load_data(struct lab_ini *l, const char *data, gsize len);
void lab_ini_clear(struct lab_ini *l);

/* The kind of GROUP, or NULL; *name: what follows a named kind's prefix. */
const struct lab_ini_kind *lab_ini_kind_of(const struct lab_ini *l,
					   const char *group, const char **name);
/* Record an error at GROUP/KEY's line (KEY NULL: the group's). */
void lab_ini_fail(struct lab_ini *l, const char *group, const char *key,
		  const char *fmt, ...) G_GNUC_PRINTF(4, 5);
/* The same at LINE (0: the file as a whole). */
void lab_ini_fail_at(struct lab_ini *l, int line, const char *group,
		     const char *key, const char *fmt, ...) G_GNUC_PRINTF(5, 6);
/* "'VALUE' WHY", the value shown safely. */
void lab_ini_bad_value(struct lab_ini *l, const char *group, const char *key,
		       const char *value, const char *why);
/* A value as a message shows it: control characters escaped, cut short. */
char *lab_ini_shown(const char *v);
/* Text with no control character in it. */
bool lab_ini_has_control(const char *s);

/* KEY's string as GKeyFile unescapes it (\s \n \t \r \\); DEF when
 * absent (DEF NULL: absent is an error). NULL after an error. */
char *lab_ini_str(struct lab_ini *l, const char *g, const char *k, const char *def);
/* A list "a;b;" (empty when absent); NULL after an error. */
char **lab_ini_list(struct lab_ini *l, const char *g, const char *k);
/* A plain decimal number in MIN..MAX (no sign, unit, space or leading
 * zero; WHAT names its unit in the message); DEF when absent. */
int lab_ini_int(struct lab_ini *l, const char *g, const char *k, int def,
		int min, int max, const char *what);
/* Digits only: no sign, unit, space or leading zero; *V, or -1 when it is
 * too long for an int (then out of anyone's range). */
bool lab_ini_plain_number(const char *s, long *v);
/* S as such a number in MIN..MAX; MIN after an error. */
int lab_ini_number(struct lab_ini *l, const char *g, const char *k,
		   const char *s, int min, int max, const char *what);
/* true or false; DEF when absent. */
bool lab_ini_bool(struct lab_ini *l, const char *g, const char *k, bool def);

#endif
