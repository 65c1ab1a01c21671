# tests/corpus/gen-topologies.py - writes tests/corpus/topologies/*.ini and
# expected.tsv: one hostile file per rule of the topology loader (bytes a
# text editor mangles: NUL, invalid UTF-8, CR, BOM), and the edges that must
# load. Run from the repository: python3 tests/corpus/gen-topologies.py
# tests/corpus/topologies
import os, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)

HEAD = b"[topology]\nname=bad\n\n[network lab0]\n\n"          # lines 1-5
def guest(name=b"a", extra=b"", role=b"smoke", addr=b"169.254.1.1/16", net=b"lab0"):
    s = b"[guest " + name + b"]\n"
    if role is not None: s += b"role=" + role + b"\n"
    s += extra
    if net is not None: s += b"network=" + net + b"\n"
    if addr is not None: s += b"address=" + addr + b"\n"
    return s
def one(extra=b"", **kw):   # [guest a] at line 6, role line 7, extra from line 8
    return HEAD + guest(extra=extra, **kw)
def many(n, extra=b"", first=1):
    s = HEAD
    for i in range(n):
        s += guest(name=b"g%d" % i, extra=extra, addr=b"169.254.1.%d/16" % (i + first)) + b"\n"
    return s

cases = []
def case(name, data, expect):
    cases.append((name, data, expect))

# the former tests/unit/topologies
case("bad-integer", one(b"vcpus=two\n"), ":8: [guest a] vcpus: 'two' is not a plain decimal number")
case("bad-kernel", one(b"kernel=mainline\n"), ":8: [guest a] kernel: 'mainline' is not baseline, patched or debian")
case("export-bad", one(b"export=maybe\n", role=b"nfs-server"), ":8: [guest a] export: 'maybe' is neither sync nor async")
case("export-not-server", one(b"export=async\n"), ":8: [guest a] export: is for role nfs-server only")
case("duplicate-address", HEAD + guest() + b"\n" + guest(name=b"b", role=b"tty"), ":14: [guest b] address: address 169.254.1.1 is used by guest a too")
case("duplicate-guest", HEAD + guest() + b"\n" + guest(role=b"tty", addr=b"169.254.1.2/16"), ":11: [guest a]: duplicate section (first at line 6)")
case("malformed", b"[topology]\nname=bad\nthis line is not a key\n", ":3: 'this line is not a key' is not a [section], key=value or # comment")
case("missing-network", b"[topology]\nname=bad\n\n[guest a]\nrole=smoke\nnetwork=lab9\naddress=169.254.1.1/16\n", ":6: [guest a] network: no [network lab9] section")
case("private-address", one(addr=b"192.168.1.5/24"), ":9: [guest a] address: '192.168.1.5/24' is not IPv4 link-local")
case("too-much-memory", HEAD + guest(extra=b"memory=16384\n") + b"\n" + guest(name=b"b", extra=b"memory=16384\n", addr=b"169.254.1.2/16"), ":1: [topology]: the guests need 32768 MiB of memory")
case("unknown-role", one(role=b"webserver"), ":7: [guest a] role: 'webserver' is not a known role")
case("unknown-section", HEAD + b"[gueststuff a]\nrole=smoke\n", ":6: [gueststuff a]: unknown section")

# keys
case("unknown-key", one(b"memroy=512\n"), ":8: [guest a] memroy: unknown key (known here: role, vcpus, memory")
case("unknown-key-topology", b"[topology]\nname=bad\nkernal=patched\n", ":3: [topology] kernal: unknown key (known here: name, description, kernel)")
case("unknown-key-network", b"[topology]\nname=bad\n\n[network lab0]\nbridge=virbr0\n", ":5: [network lab0] bridge: unknown key (known here: none)")
case("locale-key", one(b"role[de]=tty\n"), ":8: [guest a] role[de]: unknown key")
case("control-in-key", one(b"ro\x01le=tty\n"), ":8: [guest a] ro\\001le: unknown key")
case("duplicate-key", one(b"memory=512\nmemory=1024\n"), ":9: [guest a] memory: duplicate key (first at line 8)")
case("duplicate-key-topology", b"[topology]\nname=bad\nname=worse\n", ":3: [topology] name: duplicate key (first at line 2)")
case("duplicate-role-spaced", one(b"role = tty\n"), ":8: [guest a] role: duplicate key (first at line 7)")
case("key-before-group", b"name=bad\n[topology]\n", ":1: a key=value line before the first [section]")
case("empty-key", one(b"=smoke\n"), ":8: '=smoke' is not a [section], key=value or # comment")
case("missing-role", one(role=None), ":6: [guest a] role: missing")
case("missing-address", one(addr=None), ":6: [guest a] address: missing")
case("missing-name", b"[topology]\nkernel=patched\n\n[network lab0]\n\n" + guest(), ":1: [topology] name: missing")

# syntax, encoding
case("group-unclosed", HEAD + b"[guest a\nrole=smoke\n", ":6: '[guest a' is not a [section], key=value or # comment")
case("group-trailing", HEAD + b"[guest a] x\nrole=smoke\n", ":6: '[guest a] x' is not a [section]")
case("utf8-kernel", one(b"kernel=baseline\xe9\n"), ":8: [guest a] kernel: not valid UTF-8")
case("utf8-topology-kernel", b"[topology]\nname=bad\nkernel=patched\xff\n", ":3: [topology] kernel: not valid UTF-8")
case("utf8-group", HEAD + b"[guest \xe9]\nrole=smoke\n", ":6: [guest \\351]: not valid UTF-8")
case("utf8-comment", b"[topology]\n# caf\xe9\nname=bad\n", ":2: comment is not valid UTF-8")
case("utf8-overlong", one(b"cmdline=\xc0\xaf\n"), ":8: [guest a] cmdline: not valid UTF-8")
case("nul-byte", HEAD + b"[guest a]\nrole=smo\x00ke\n", ":7: [guest a]: a NUL byte")
case("bom", b"\xef\xbb\xbf" + one(), ":1: a UTF-8 byte order mark")
case("empty-file", b"", "missing [topology] section")
case("missing-topology", b"[network lab0]\n\n" + guest(), "missing [topology] section")
case("no-guests", b"[topology]\nname=bad\n\n[network lab0]\n", ":1: [topology]: no [guest NAME] sections")
case("huge-file", b"[topology]\nname=bad\n" + (b"#" + b"x" * 1023 + b"\n") * 65, "more than a topology's 65536")
case("huge-line", one(b"cmdline=" + b"a" * 60000 + b"\n"), ":8: [guest a] cmdline: longer than 1024 bytes")

# numbers
case("memory-unit-gib", one(b"memory=512 GiB\n"), ":8: [guest a] memory: '512 GiB' is not a plain decimal number of MiB")
case("memory-unit-m", one(b"memory=512M\n"), ":8: [guest a] memory: '512M' is not a plain decimal number of MiB")
case("memory-plus", one(b"memory=+512\n"), ":8: [guest a] memory: '+512' is not a plain decimal number")
case("memory-negative", one(b"memory=-512\n"), ":8: [guest a] memory: '-512' is not a plain decimal number")
case("memory-leading-zero", one(b"memory=0512\n"), ":8: [guest a] memory: '0512' is not a plain decimal number")
case("memory-trailing-space", one(b"memory=512 \n"), ":8: [guest a] memory: '512 ' is not a plain decimal number")
case("memory-hex", one(b"memory=0x200\n"), ":8: [guest a] memory: '0x200' is not a plain decimal number")
case("memory-inline-comment", one(b"memory=512   # MiB\n"), "(a # comment goes on its own line)")
case("memory-empty", one(b"memory=\n"), ":8: [guest a] memory: empty")
case("memory-too-small", one(b"memory=255\n"), ":8: [guest a] memory: '255' is out of range 256..16384")
case("memory-too-big", one(b"memory=16385\n"), ":8: [guest a] memory: '16385' is out of range 256..16384")
case("memory-overflow", one(b"memory=99999999999999999999\n"), ":8: [guest a] memory: '99999999999999999999' is out of range")
case("vcpus-junk", one(b"vcpus=2x\n"), ":8: [guest a] vcpus: '2x' is not a plain decimal number")
case("vcpus-zero", one(b"vcpus=0\n"), ":8: [guest a] vcpus: '0' is out of range 1..8")
case("vcpus-too-many", one(b"vcpus=9\n"), ":8: [guest a] vcpus: '9' is out of range 1..8")
case("vcpus-total", many(16, b"vcpus=8\nmemory=256\n"), ":1: [topology]: the guests need 128 vCPUs, more than 4 per host CPU")
case("vcpus-cr", HEAD + b"[guest a]\nrole=smoke\nnetwork=lab0\naddress=169.254.1.1/16\nvcpus=1\r", ":10: [guest a] vcpus: '1\\r' is not a plain decimal number")

# limits
case("too-many-guests", many(17, b"memory=256\n"), ":102: [guest g16]: more than 16 guests")
case("disks-too-many", one(b"disks=16;16;16;16;16;16;16;16;16;\n"), ":8: [guest a] disks: 9 disks, at most 8")
case("disk-too-small", one(b"disks=8;\n"), ":8: [guest a] disks: '8' is out of range 16..65536")
case("disk-too-big", one(b"disks=1024;65537;\n"), ":8: [guest a] disks: '65537' is out of range 16..65536")
case("disk-unit", one(b"disks=1G;\n"), ":8: [guest a] disks: '1G' is not a plain decimal number of MiB")
case("disk-spaced", one(b"disks=1024; 2048\n"), ":8: [guest a] disks: ' 2048' is not a plain decimal number")
case("disk-empty-item", one(b"disks=1024;;\n"), ":8: [guest a] disks: '' is not a plain decimal number")
case("device-unknown", one(b"devices=ac97;\n"), ":8: [guest a] devices: 'ac97' is not a known device")
case("device-twice", one(b"devices=intel-hda;intel-hda;\n"), ":8: [guest a] devices: 'intel-hda' is listed twice")

# names
case("name-upper", HEAD + guest(name=b"Web"), ":6: [guest Web]: the name 'Web' must use a-z, 0-9 and '-' only")
case("name-dash", HEAD + guest(name=b"-a"), ":6: [guest -a]: the name '-a' must not start with '-'")
case("name-long", HEAD + guest(name=b"a" * 33), ":6: [guest " + "a" * 33 + "]: the name")
case("name-empty", HEAD + guest(name=b""), ":6: [guest ]: the name '' must have 1 to 32 characters")
case("name-space", HEAD + guest(name=b"a b"), ":6: [guest a b]: the name 'a b' must use a-z")
case("name-network", b"[topology]\nname=bad\n\n[network lab_0]\n", ":4: [network lab_0]: the name 'lab_0' must use a-z")
case("name-topology", b"[topology]\nname=My Lab\n\n[network lab0]\n\n" + guest(), ":2: [topology] name: 'My Lab' must use a-z")

# text
case("cmdline-newline", one(b"cmdline=quiet\\ninit=/bin/sh\n"), ":8: [guest a] cmdline: holds a control character")
case("cmdline-tab", one(b"cmdline=quiet\tloglevel=8\n"), ":8: [guest a] cmdline: holds a control character")
case("cmdline-escape-char", one(b"cmdline=\x1b[31mred\n"), ":8: [guest a] cmdline: holds a control character")
case("cmdline-del", one(b"cmdline=quiet\x7f\n"), ":8: [guest a] cmdline: holds a control character")
case("cmdline-c1", one(b"cmdline=quiet\xc2\x9b\n"), ":8: [guest a] cmdline: holds a control character")
case("cmdline-quote", one(b'cmdline=dyndbg="func print_constraints_debug +p\n'), ":8: [guest a] cmdline: 'dyndbg=\"func print_constraints_debug +p' has an unbalanced")
case("cmdline-long", one(b"cmdline=" + b"x" * 1025 + b"\n"), ":8: [guest a] cmdline: longer than 1024 bytes")
case("cmdline-long-utf8", one(b"cmdline=" + "é".encode() * 513 + b"\n"), ":8: [guest a] cmdline: longer than 1024 bytes")
case("cmdline-bad-escape", one(b"cmdline=a\\qb\n"), ":8: [guest a] cmdline: bad escape sequence")
case("description-control", b"[topology]\nname=bad\ndescription=ding\x07\n", ":3: [topology] description: holds a control character")
case("description-long", b"[topology]\nname=bad\ndescription=" + b"d" * 257 + b"\n", ":3: [topology] description: longer than 256 characters")
case("topology-kernel", b"[topology]\nname=bad\nkernel=mainline\n\n[network lab0]\n\n" + guest(), ":3: [topology] kernel: 'mainline' is not baseline, patched or debian")
case("kernel-bad-escape", b"[topology]\nname=bad\nkernel=base\\line\n\n[network lab0]\n\n" + guest(), ":3: [topology] kernel: bad escape sequence")

# addresses
case("addr-prefix-plus", one(addr=b"169.254.1.1/+16"), ":9: [guest a] address: '169.254.1.1/+16' needs a /prefix length of plain digits")
case("addr-prefix-zero", one(addr=b"169.254.1.1/016"), ":9: [guest a] address: '169.254.1.1/016' needs a /prefix length of plain digits")
case("addr-prefix-space", one(addr=b"169.254.1.1/16 "), ":9: [guest a] address: '169.254.1.1/16 ' needs a /prefix length of plain digits")
case("addr-prefix-junk", one(addr=b"169.254.1.1/16junk"), ":9: [guest a] address: '169.254.1.1/16junk' needs a /prefix")
case("addr-no-prefix", one(addr=b"169.254.1.1"), ":9: [guest a] address: '169.254.1.1' needs a /prefix length")
case("addr-prefix-range", one(addr=b"169.254.1.1/8"), ":9: [guest a] address: '169.254.1.1/8' needs an IPv4 prefix length of 16..30")
case("addr-network", one(addr=b"169.254.0.0/16"), ":9: [guest a] address: '169.254.0.0/16' is the network address of its prefix")
case("addr-broadcast", one(addr=b"169.254.255.255/16"), ":9: [guest a] address: '169.254.255.255/16' is the broadcast address of its prefix")
case("addr-broadcast-24", one(addr=b"169.254.1.255/24"), ":9: [guest a] address: '169.254.1.255/24' is the broadcast address")
case("addr-leading-zero", one(addr=b"169.254.01.1/16"), ":9: [guest a] address: '169.254.01.1/16' is not an IPv4 or IPv6 address")
case("addr-ipv6-global", one(addr=b"2001:db8::1/64"), ":9: [guest a] address: '2001:db8::1/64' is not IPv6 ULA fc00::/7")
case("addr-ipv6-zone", one(addr=b"fe80::1%eth0/64"), ":9: [guest a] address: 'fe80::1%eth0/64' is not an IPv4 or IPv6 address")
case("addr-ipv4-mapped", one(addr=b"::ffff:169.254.1.1/120"), "is not IPv6 ULA fc00::/7")
case("addr-ipv6-prefix", one(addr=b"fd00::1/128"), ":9: [guest a] address: 'fd00::1/128' needs an IPv6 prefix length of 8..126")
case("addr-ipv6-duplicate", HEAD + guest(addr=b"fd00::1/64") + b"\n" + guest(name=b"b", role=b"tty", addr=b"FD00:0::1/64"), ":14: [guest b] address: address fd00::1 is used by guest a too")
case("addr-other-prefix", HEAD + guest(addr=b"169.254.1.1/24") + b"\n" + guest(name=b"b", role=b"tty", addr=b"169.254.2.1/24"), ":14: [guest b] address: 169.254.2.1/24 is not in 169.254.1.0/24, the prefix of guest a on network lab0")
case("addr-other-length", HEAD + guest(addr=b"169.254.1.1/24") + b"\n" + guest(name=b"b", role=b"tty", addr=b"169.254.1.2/16"), ":14: [guest b] address: 169.254.1.2/16 is not in 169.254.1.0/24")
case("addr-mixed-family", HEAD + guest() + b"\n" + guest(name=b"b", role=b"tty", addr=b"fd00::2/64"), ":14: [guest b] address: fd00::2/64 is not in 169.254.0.0/16")
case("addr-long", one(addr=b"1" * 300 + b"/16"), ":9: [guest a] address: '" + "1" * 48 + "...' is not an IPv4 or IPv6 address")

# must load: the edges of the rules
case("ok-crlf", one().replace(b"\n", b"\r\n"), "loads")
case("ok-ipv6", HEAD + guest(addr=b"fd00:10::1/64") + b"\n" + guest(name=b"b", role=b"tty", addr=b"fd00:10::2/64"), "loads")
case("ok-max-guests", many(16, b"memory=256\n"), "loads")
case("ok-max-disks", one(b"disks=16;16;16;16;16;16;16;65536;\n"), "loads")
case("ok-limits", b"[topology]\nname=" + b"a" * 32 + b"\ndescription=" + "é".encode() * 256 + b"\nkernel=baseline\n\n[network " + b"n" * 32 + b"]\n\n" + guest(name=b"0-" + b"z" * 30, extra=b"vcpus=8\nmemory=16384\ncmdline=" + b"x" * 1024 + b"\n", net=b"n" * 32, addr=b"169.254.255.254/16"), "loads")
case("ok-escapes", one(b'cmdline=a\\sb dyndbg="x +p"\n'), "loads")

names = set()
with open(os.path.join(out, "expected.tsv"), "w") as tsv:
    tsv.write("# file<TAB>substring of the error lab_topology_load must give (\"loads\": must load)\n")
    for name, data, expect in cases:
        assert name not in names, name
        names.add(name)
        f = name + ".ini"
        with open(os.path.join(out, f), "wb") as fh:
            fh.write(data)
        if expect != "loads" and expect.startswith(":"):
            expect = f + expect
        tsv.write(f + "\t" + expect + "\n")
print(len(cases), "cases")
