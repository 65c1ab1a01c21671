/* owner.h - what the lab owns. Every domain and network lab creates carries
 * a libvirt <metadata> tag (instance, LAB_HOME, creation time) and lab only
 * ever destroys objects whose tag names this instance and this LAB_HOME:
 * never anything by its name alone. Also the checks of LAB_INSTANCE and
 * LAB_HOME, which reach libvirt names and file paths. */
#ifndef LAB_OWNER_H
#define LAB_OWNER_H

#include <stdbool.h>
#include <glib.h>

#define LAB_OWNER_NS "http://lab.invalid/xmlns/owner/1"
#define LAB_INSTANCE_MAX 16

struct lab_owner {
	char *instance;
	char *home;
	char *machine; /* lab_machine_id() of the machine that made it */
	long created;  /* seconds since the epoch */
};

/* $LAB_INSTANCE or "lab". Only valid after lab_instance_check(). */
const char *lab_instance(void);
/* A short name of [a-z0-9-], starting with a letter or digit. NULL when
 * valid, else why not (to free). */
char *lab_instance_invalid(const char *name);
/* LAB_HOME is absolute, not a symbolic link; where it exists it is ours
 * and not writable by others; every directory above is root's or ours and
 * not writable by others unless sticky. NULL when fine, else why not (to
 * free). */
char *lab_home_invalid(const char *home);
/* Every directory above and at LAB_HOME lets others search it, so QEMU
 * (user libvirt-qemu) can open kernels and disks there. */
char *lab_home_unreachable(const char *home);

/* Eight hex digits of /etc/machine-id (else of the host name): two
 * machines that share a remote host never take each other's objects. */
const char *lab_machine_id(void);
/* The <lab:owner .../> element for this instance, created now. */
char *lab_owner_xml(void);
/* Find our owner element anywhere in XML (a whole network definition).
 * ns_implied: XML is what virDomainGetMetadata returned for our namespace,
 * which gives the element back without prefix or xmlns. false when there
 * is none. */
bool lab_owner_parse(const char *xml, bool ns_implied, struct lab_owner *out);
void lab_owner_clear(struct lab_owner *o);
/* The tag names this instance, this LAB_HOME and this machine. */
bool lab_owner_is_ours(const struct lab_owner *o);

#endif
