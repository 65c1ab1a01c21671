/* domxml.c - see domxml.h. Values are escaped with GLib's markup escaping. */
#include "virt/domxml.h"

#include <glib.h>
#include <string.h>

/* Base command line: serial console, root on the overlay, predictable eth0.
 * A panicked guest stays as it died (panic=0: no reboot), so its memory can
 * be dumped (lab stress) before the runner restores it; the runner sees
 * the panic on the console and the agent fall silent. Warnings stay
 * warnings. Two cuts of the first boot under TCG (measured with
 * initcall_debug): legacy BSD ptys (the tests use /dev/ptmx), whose 512
 * devices were most of udev's coldplug; and ACPI's PCI interrupt routing,
 * whose AML took 1.5 s per PCI device (9 s of the kernel's 15): with
 * acpi=noirq the BIOS's routing table is used, and virtio uses MSI-X. */
#define BASE_CMDLINE \
	"console=ttyS0,115200 root=/dev/vda rw rootfstype=ext4 net.ifnames=0 " \
	"panic=0 panic_on_warn=0 printk.devkmsg=on systemd.show_status=0 " \
	"pty.legacy_count=0 acpi=noirq"

char *lab_guest_cmdline(const char *extra)
{
	if (extra && *extra)
		return g_strdup_printf("%s %s", BASE_CMDLINE, extra);
	return g_strdup(BASE_CMDLINE);
}

/* The owner element is lab's own, already escaped: inserted as it is. */
static char *metadata(const char *owner)
{
	return owner ? g_strdup_printf("  <metadata>\n    %s\n  </metadata>\n", owner)
		     : g_strdup("");
}

char *lab_network_xml(const char *name, const char *bridge, const char *owner)
{
	/* No <forward> and no <ip>: an isolated bridge with no host address,
	 * no DHCP and no DNS from the host. */
	char *meta = metadata(owner);
	char *body = g_markup_printf_escaped(
		"  <name>%s</name>\n"
		"  <bridge name='%s' stp='off' delay='0'/>\n",
		name, bridge);
	char *xml = g_strdup_printf("<network>\n%s%s</network>\n", body, meta);

	g_free(meta);
	g_free(body);
	return xml;
}

static void add_disk(GString *x, const char *path, const char *format,
		     const char *dev, int readonly)
{
	char *d = g_markup_printf_escaped(
		"    <disk type='file' device='disk'>\n"
		"      <driver name='qemu' type='%s' cache='unsafe'/>\n"
		"      <source file='%s'/>\n"
		"      <target dev='%s' bus='virtio'/>\n",
		format, path, dev);

	g_string_append(x, d);
	if (readonly)
		g_string_append(x, "      <readonly/>\n");
	g_string_append(x, "    </disk>\n");
	g_free(d);
}

static void add_devices(GString *x, const struct lab_domain_spec *s)
{
	char dev[] = "vdc";
	char *d;
	int i;

	add_disk(x, s->root_disk, "qcow2", "vda", 0);
	add_disk(x, s->seed_iso, "raw", "vdb", 1);
	for (i = 0; s->scratch_disks && s->scratch_disks[i]; i++) {
		add_disk(x, s->scratch_disks[i], "qcow2", dev, 0);
		dev[2]++;
	}
	if (s->tests_iso)
		add_disk(x, s->tests_iso, "raw", dev, 1);
	d = g_markup_printf_escaped(
		"    <interface type='network'>\n"
		"      <source network='%s'/>\n"
		"      <mac address='%s'/>\n"
		"      <model type='virtio'/>\n"
		"    </interface>\n"
		"    <serial type='pty'>\n"
		"      <log file='%s' append='off'/>\n"
		"      <target port='0'/>\n"
		"    </serial>\n"
		"    <console type='pty'>\n"
		"      <target type='serial' port='0'/>\n"
		"    </console>\n"
		"    <channel type='unix'>\n"
		"      <target type='virtio' name='org.qemu.guest_agent.0'/>\n"
		"    </channel>\n"
		"    <rng model='virtio'>\n"
		"      <backend model='random'>/dev/urandom</backend>\n"
		"    </rng>\n",
		s->network, s->mac, s->console_log);
	g_string_append(x, d);
	g_free(d);
	if (s->intel_hda)
		g_string_append(x,
			"    <sound model='ich6'>\n"
			"      <codec type='duplex'/>\n"
			"      <audio id='1'/>\n"
			"    </sound>\n"
			"    <audio id='1' type='none'/>\n");
	g_string_append(x, "    <memballoon model='none'/>\n");
}

char *lab_domain_xml(const struct lab_domain_spec *s)
{
	GString *x = g_string_new(NULL);
	char *name = g_markup_printf_escaped("<domain type='%s'>\n"
					     "  <name>%s</name>\n", s->type, s->name);
	char *meta = metadata(s->owner);
	char *os = g_markup_printf_escaped(
		"  <memory unit='MiB'>%d</memory>\n"
		"  <vcpu>%d</vcpu>\n"
		"  <os>\n"
		"    <type arch='x86_64' machine='pc'>hvm</type>\n"
		"    <kernel>%s</kernel>\n", s->memory_mib, s->vcpus, s->kernel);
	/* Debian's own kernel needs its initramfs; the lab's boot without */
	char *initrd = s->initrd
		? g_markup_printf_escaped("    <initrd>%s</initrd>\n", s->initrd) : g_strdup("");
	char *rest = g_markup_printf_escaped(
		"    <cmdline>%s</cmdline>\n"
		"  </os>\n"
		"  <features>\n"
		"    <acpi/>\n"
		"  </features>\n"
		"  <clock offset='utc'/>\n"
		"  <on_poweroff>destroy</on_poweroff>\n"
		"  <on_reboot>destroy</on_reboot>\n"
		"  <on_crash>destroy</on_crash>\n"
		"  <devices>\n", s->cmdline);

	g_string_append(x, name);
	g_string_append(x, meta);
	g_string_append(x, os);
	g_string_append(x, initrd);
	g_string_append(x, rest);
	g_free(name);
	g_free(meta);
	g_free(os);
	g_free(initrd);
	g_free(rest);
	add_devices(x, s);
	g_string_append(x, "  </devices>\n</domain>\n");
	return g_string_free(x, FALSE);
}

char *lab_mac_for(const char *domain_name)
{
	char *hex = g_compute_checksum_for_string(G_CHECKSUM_SHA256,
						  domain_name, -1);
	/* 52:54:00 is QEMU's prefix; the rest comes from the name's hash. */
	char *mac = g_strdup_printf("52:54:00:%.2s:%.2s:%.2s", hex, hex + 2,
				    hex + 4);

	g_free(hex);
	return mac;
}

char *lab_bridge_for(const char *network_name)
{
	char *hex = g_compute_checksum_for_string(G_CHECKSUM_SHA256,
						  network_name, -1);
	char *br = g_strdup_printf("labbr%.8s", hex);

	g_free(hex);
	return br;
}
