# tests/corpus/gen-consoles.py - writes tests/corpus/consoles/*.log: serial
# console logs a guest or a broken line could produce (truncated reports,
# binary garbage, NULs, CRLF and CR, huge lines, hostile markers). The
# scanner must get through each without a crash; expected.tsv pins the
# number of reports it finds, so a change shows.
# Run from the repository: python3 tests/corpus/gen-consoles.py tests/corpus/consoles
import os, random, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rnd = random.Random(20261204)

def k(t, s):
    return b"[%12.6f] " % t + s + b"\n"
WARN = [k(5.0, b"------------[ cut here ]------------"),
        k(5.0, b"WARNING: CPU: 0 PID: 42 at drivers/media/dvb-core/dmxdev.c:99 dvb_dmxdev_start_feed+0x10/0x20"),
        k(5.0, b"Modules linked in:"),
        k(5.0, b"CPU: 0 PID: 42 Comm: t010 Not tainted 6.1.0 #1"),
        k(5.0, b"RIP: 0010:dvb_dmxdev_start_feed+0x10/0x20"),
        k(5.0, b"Call Trace:"),
        k(5.0, b" <TASK>"),
        k(5.0, b" dvb_dmxdev_start_feed+0x10/0x20"),
        k(5.0, b" __x64_sys_ioctl+0x8a/0xc0"),
        k(5.0, b" </TASK>"),
        k(5.0, b"---[ end trace 0000000000000000 ]---")]
OOPS = [k(7.0, b"BUG: kernel NULL pointer dereference, address: 0000000000000008"),
        k(7.0, b"#PF: supervisor read access in kernel mode"),
        k(7.0, b"Oops: 0000 [#1] PREEMPT SMP NOPTI"),
        k(7.0, b"RIP: 0010:regulator_check_constraints+0x5/0x50"),
        k(7.0, b"Call Trace:"),
        k(7.0, b" set_machine_constraints+0x20/0x300"),
        k(7.0, b" regulator_register+0x400/0x900")]
BEGIN = k(4.0, b"lab: BEGIN t010-dvb-demux-feeds")
END = k(9.0, b"lab: END t010-dvb-demux-feeds rc=1")

cases = []
def case(name, data, reports):
    cases.append((name, data, reports))

case("empty", b"", 0)
case("newlines-only", b"\n" * 1000, 0)
case("clean-warning", BEGIN + b"".join(WARN) + END, 1)
case("truncated-in-trace", BEGIN + b"".join(OOPS[:6]), 1)
case("truncated-mid-line", BEGIN + b"".join(OOPS[:2]) + OOPS[2][:20], 1)
case("truncated-stamp", b"".join(WARN[:3]) + b"[   5.00", 1)
case("cut-here-only", k(1.0, b"------------[ cut here ]------------") * 50, 0)
case("crlf", (BEGIN + b"".join(WARN) + END).replace(b"\n", b"\r\n"), 1)
case("cr-only", (BEGIN + b"".join(WARN) + END).replace(b"\n", b"\r"), 0)
case("nul-bytes", BEGIN + b"".join(WARN[:4]) + b"\x00" * 300 + b"".join(WARN[4:]) + END, 1)
case("nul-in-stamp", b"[ \x00 5.000000] WARNING: CPU: 0 PID: 1 at a.c:1 f+0x0/0x0\n", 1)  # a NUL reads as a space
case("binary-garbage", bytes(rnd.getrandbits(8) for _ in range(16384)), 0)
case("garbage-between", b"".join(l + bytes(rnd.getrandbits(8) for _ in range(40)).replace(b"\n", b"") + b"\n" for l in WARN), 1)
case("invalid-utf8-function", k(5.0, b"WARNING: CPU: 0 PID: 1 at a.c:1 f\xff\xfe+0x0/0x0") + k(5.0, b"Call Trace:") + k(5.0, b" \xc0\xaf+0x1/0x2"), 1)
case("ansi-escapes", k(5.0, b"\x1b[31mBUG: \x1b]0;title\x07 scheduling while atomic\x1b[0m") + k(5.0, b"Call Trace:"), 0)  # an escape first: not a report line
case("huge-line", k(5.0, b"BUG: " + b"x" * 100000), 1)
case("huge-brackets", b"[" * 100000 + b"\n", 0)
case("huge-stamps", b"[ 1.0]" * 10000 + b" Oops\n", 0)
case("huge-stamp-value", k(1e30, b"Kernel panic - not syncing: " + b"9" * 400) + k(-0.0, b"Oops") + b"[99999999999999999999999999999999999999.9] Oops\n", 2)
case("deep-trace", k(5.0, b"general protection fault: 0000 [#1]") + k(5.0, b"Call Trace:") + b"".join(k(5.0, b" f%d+0x1/0x2" % i) for i in range(5000)), 1)
case("many-reports", b"".join(k(float(i * 10), b"BUG: soft lockup - CPU#0 stuck for 22s! [t:%d]" % i) for i in range(2000)), 2000)
case("markers-hostile", k(1.0, b"lab: BEGIN <script>alert(1)</script>") + b"".join(WARN) + k(6.0, b"lab: BEGIN " + b"t" * 5000) + k(6.0, b"lab: BEGIN") + b"".join(OOPS) + k(8.0, b"lab: END"), 2)
case("nested-begin", BEGIN + k(4.5, b"lab: BEGIN t009-nfs-umount-race") + b"".join(OOPS) + END + END, 1)
case("interleaved-cpus", b"".join(a + b for a, b in zip(WARN, OOPS)), 1)
case("panic-loop", b"".join(k(10.0 + i, b"Kernel panic - not syncing: Fatal exception") for i in range(500)), 1)  # one panic absorbs the next
case("reboot-midway", b"".join(OOPS[:4]) + k(0.0, b"Linux version 6.1.0 (root@lab) #1 SMP") + b"".join(WARN), 2)
case("kasan-unclosed", k(3.0, b"==================================================================") + k(3.0, b"BUG: KASAN: use-after-free in nfs_umount_begin+0x1/0x2") + k(3.0, b"Read of size 8") * 100, 1)
case("userspace-only", b"WARNING: this is systemd\nBUG: not a kernel line\nOops: no stamp\n" * 100, 0)

with open(os.path.join(out, "expected.tsv"), "w") as tsv:
    tsv.write("# file<TAB>number of reports lab_console_scan_file finds\n")
    for name, data, n in cases:
        with open(os.path.join(out, name + ".log"), "wb") as fh:
            fh.write(data)
        tsv.write("%s.log\t%d\n" % (name, n))
print(len(cases), "cases")
