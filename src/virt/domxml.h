/* domxml.h - libvirt network and domain XML for lab guests (pure functions,
 * unit-tested and checked with virt-xml-validate). */
#ifndef LAB_DOMXML_H
#define LAB_DOMXML_H

struct lab_domain_spec {
	const char *name;       /* libvirt domain name */
	const char *type;       /* "kvm" or "qemu" (TCG) */
	int memory_mib;
	int vcpus;
	const char *kernel;     /* bzImage (or vmlinuz) path */
	const char *initrd;     /* initramfs path, or NULL (the lab's kernels) */
	const char *cmdline;    /* full kernel command line */
	const char *root_disk;  /* qcow2 overlay */
	const char *seed_iso;   /* NoCloud seed, read-only */
	const char *tests_iso;  /* tests disk, read-only; may be NULL */
	const char *const *scratch_disks; /* qcow2 paths, NULL-terminated */
	const char *network;    /* libvirt network name */
	const char *mac;
	const char *console_log;
	int intel_hda;          /* add QEMU's intel-hda + hda-duplex */
	const char *owner;      /* lab's <metadata> element (owner.h) or NULL */
};

/* owner: lab's <metadata> element (owner.h) or NULL. */
char *lab_network_xml(const char *name, const char *bridge, const char *owner);
char *lab_domain_xml(const struct lab_domain_spec *s);
/* Deterministic locally administered MAC for a domain name. */
char *lab_mac_for(const char *domain_name);
/* Bridge name (<= 15 chars) for a network name. */
char *lab_bridge_for(const char *network_name);
/* Kernel command line of a guest: the lab's base + the topology's extra. */
char *lab_guest_cmdline(const char *extra);

#endif
