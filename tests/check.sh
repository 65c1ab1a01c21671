#!/usr/bin/env bash
# `make check`: every test of the project, as one TAP stream.
#   1. unit tests (cmocka, TAP output), cppcheck, the hostile topology
#      corpus through `lab up`, valgrind, and the parsers' fuzzers;
#   2. integration: build both kernels (cached by content hash), check the
#      series, build the guest image, boot the smoke topology on each kernel,
#      run seed 010's reproducer there with `lab run` (fail on baseline, pass
#      on patched), check the guest agent, tear down, and prove that bad
#      input and Ctrl-C leave nothing behind.
# LAB_INTEGRATION=0 runs only part 1. Every step has a timeout, so a hang
# fails the step instead of the whole run. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 2
export LAB_SRC=$PWD
export LAB_INSTANCE=${LAB_INSTANCE:-ci}
logs=$(mktemp -d /tmp/lab-check.XXXXXX)
pass=0
fail=0
n=0

say() { printf '%s\n' "$*"; }

# is_number S: S is a plain decimal number (safe in $((...)))
is_number() { [[ $1 =~ ^[0-9]{1,18}$ ]]; }

# record NAME STATUS [DETAIL]
record() {
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1))
		say "ok $n - $1"
	else
		fail=$((fail + 1))
		say "not ok $n - $1"
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/#   /'
	fi
}

# step NAME TIMEOUT CMD...: run with a time bound, log kept for the report.
step() {
	local name=$1 limit=$2 t0 rc log
	shift 2
	log="$logs/$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_').log"
	t0=$(date +%s.%N)
	timeout --foreground -k 10 "$limit" "$@" >"$log" 2>&1
	rc=$?
	[ $rc -eq 124 ] && echo "timed out after $limit s" >>"$log"
	printf '# %s: %.1f s\n' "$name" "$(echo "$(date +%s.%N) - $t0" | bc)"
	record "$name" $rc "$(tail -n 15 "$log")"
	return $rc
}

# leftovers: this instance's domains and networks, known by lab's owner
# tag (instance ci-b's network is named ci-b-lab0, not one of ci's).
leftovers() {
	local v="virsh -c qemu:///system" x
	for x in $($v list --all --name 2>/dev/null); do
		$v dumpxml "$x" 2>/dev/null | grep -q "<lab:owner [^>]*instance=\"$LAB_INSTANCE\"" && echo "$x"
	done
	for x in $($v net-list --all --name 2>/dev/null); do
		$v net-dumpxml "$x" 2>/dev/null | grep -q "<lab:owner [^>]*instance=\"$LAB_INSTANCE\"" && echo "$x"
	done
	true
}

# own_instances: every instance this check brings up (spread jobs run as
# <instance>-b, -p, -h1, -h2; second_instance as <instance>2).
own_instances() {
	local s
	for s in "" 2 -b -p -h1 -h2; do echo "$LAB_INSTANCE$s"; done
}

# Objects lab never created but named as if it had: a running VM and a
# network made by hand. lab must leave them alone (ownership is by tag).
foreign_create() {
	local v="virsh -c qemu:///system"
	$v destroy "$LAB_INSTANCE-foreign-vm" >/dev/null 2>&1
	$v net-destroy "$LAB_INSTANCE-foreignnet" >/dev/null 2>&1
	printf '%s\n' "<domain type='qemu'><name>$LAB_INSTANCE-foreign-vm</name>" \
		"<memory unit='MiB'>32</memory><vcpu>1</vcpu>" \
		"<os><type arch='x86_64' machine='pc'>hvm</type></os>" \
		"<devices><memballoon model='none'/></devices></domain>" >"$logs/foreign-vm.xml"
	printf '%s\n' "<network><name>$LAB_INSTANCE-foreignnet</name>" \
		"<bridge name='labforeign0' stp='off'/></network>" >"$logs/foreign-net.xml"
	$v create "$logs/foreign-vm.xml" >/dev/null && $v net-create "$logs/foreign-net.xml" >/dev/null
}

foreign_check() {
	local v="virsh -c qemu:///system" alive
	alive=$({ $v list --name; $v net-list --name; } 2>/dev/null | grep -c -- "^$LAB_INSTANCE-foreign")
	[ "$alive" = 2 ]
	record "a foreign VM and network named '$LAB_INSTANCE-*' survive lab up/run/down" $? \
		"alive: $alive of 2"
	$v destroy "$LAB_INSTANCE-foreign-vm" >/dev/null 2>&1
	$v net-destroy "$LAB_INSTANCE-foreignnet" >/dev/null 2>&1
}

unit_tests() {
	local out
	say "# unit tests (empty LAB_HOME, as on a fresh machine)"
	for t in tests/unit/test_*.c; do
		t=${t%.c}
		out=$(LAB_HOME=$logs/unit-home LAB_INSTANCE=unit CMOCKA_MESSAGE_OUTPUT=TAP timeout 300 "$t" 2>&1)
		while IFS= read -r line; do
			case "$line" in
			"ok "*) record "${t##*/}: ${line#ok * - }" 0 ;;
			"not ok "*) record "${t##*/}: ${line#not ok * - }" 1 "$out" ;;
			esac
		done <<<"$out"
	done
	step "cppcheck" 300 make -s cppcheck
	step "layers of src/: lower layers only, pure core, no import circle" 60 bash scripts/check-layers.sh
	# shellcheck disable=SC2016 # the $(...) is the hostile input, kept as text
	! is_number 'a[$(touch /tmp/lab-pwned)]' && ! is_number '1+1' && is_number 1796460276 &&
		[ ! -e /tmp/lab-pwned ]
	record "check.sh: guest output reaches arithmetic only as a plain number" $?
	step "shellcheck of the project's scripts" 120 shellcheck tests/check.sh bench/bench.sh scripts/deps.sh scripts/review.sh scripts/start-libvirtd.sh scripts/check-layers.sh .ci/run tests/run-unit.sh tests/valgrind.sh
	step "make -C tests/guest lint (guest scripts: sh -n, shellcheck)" 120 make -s -C tests/guest lint
	# shellcheck disable=SC2016 # the loop runs in bash -c
	step "shellcheck of the image's scripts and every role's user-data (common.sh + ROLE.sh)" 120 \
		bash -c 'shellcheck guests/image/customize.sh guests/image/lab-seed || exit 1
			for r in guests/seed/*.sh; do
				[ "$r" = guests/seed/common.sh ] && continue
				cat guests/seed/common.sh "$r" | shellcheck -s sh - || exit 1
			done'

	step "make -C tests/guest check (host-safe tests, t100 groups on a local directory)" 600 make -s -C tests/guest check
	report_in_browser
	corpus_up
	step "make valgrind (report, compare, topology loading under memcheck)" 900 make -s valgrind
	fuzz
}

# Every hostile corpus topology through `lab up -t` on an empty LAB_HOME:
# exit 2 with the error expected.tsv names, and nothing created or built.
corpus_up() {
	local home=$logs/corpus-home dir=tests/corpus/topologies f want out rc bad="" files=0
	mkdir -p "$home"
	while IFS=$'\t' read -r f want; do
		case "$f" in '#'* | '') continue ;; esac
		[ "$want" = loads ] && continue
		files=$((files + 1))
		out=$(LAB_HOME=$home timeout 60 ./lab up -t "$dir/$f" 2>&1)
		rc=$?
		[ $rc -eq 2 ] && grep -qF -- "$want" <<<"$out" ||
			bad+="$f: exit $rc, want 2 and '$want'; got: ${out:0:300}"$'\n'
	done <"$dir/expected.tsv"
	for f in instances kernels tests; do
		[ -e "$home/$f" ] && bad+="LAB_HOME has $f/ after the bad topologies"$'\n'
	done
	[ -z "$bad" ] && [ "$files" -ge 40 ]
	record "lab up -t each of $files hostile corpus topologies: exit 2, its error, nothing created" $? "$bad"
}

# The parsers' fuzzers (libFuzzer, ASan, UBSan), seeded from tests/corpus:
# 60 s each in CI, 10 s on a developer's machine.
fuzz() {
	local secs=10 f
	[ "${CI:-}" = true ] && secs=60
	step "build the fuzzers (clang, libFuzzer)" 900 make -s -j1 fuzz-build || return
	for f in topology console results hosts stress; do
		step "fuzz $f parser for $secs s: no crash, leak or UB" $((secs + 300)) \
			make -s "fuzz-$f" FUZZ_SECONDS=$secs FUZZ_DIR="$logs/fuzz"
	done
}

# The review's HTML report, rendered from fixture runs, opened in a real
# headless browser (Debian's chromium): it loads and shows eleven rows.
report_in_browser() {
	local d=$logs/report rows fit
	./lab report "$d" tests/unit/runs/baseline tests/unit/runs/patched >"$logs/report.log" 2>&1
	rows=$(timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--dump-dom "file://$d/report.html" 2>>"$logs/report.log" | grep -c '<tr class="row"')
	[ "$rows" = 11 ]
	record "report.html loads in headless chromium and shows 11 rows" $? \
		"rows: $rows; $(tail -n 5 "$logs/report.log")"
	# A copy with a probe (the report itself has no script): in a
	# 1280-pixel window nothing scrolls sideways, and the summary leads.
	{ cat "$d/report.html"; printf '%s\n' '<script>document.body.setAttribute("data-fit",' \
		'document.documentElement.scrollWidth <= window.innerWidth ? "yes" : "no " + document.documentElement.scrollWidth);</script>'; } \
		>"$d/probe.html"
	fit=$(timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=1280,900 \
		--dump-dom "file://$d/probe.html" 2>/dev/null | grep -o 'data-fit="[^"]*"')
	[ "$fit" = 'data-fit="yes"' ] && grep -q '<pre class="summary">review ' "$d/report.html"
	record "report.html fits a 1280-pixel window and opens with its summary" $? "fit: $fit"
}

# verdict RUN_DIR TEST: the test's verdict in the run's results.json
verdict() {
	tr -d ' \n' <"$1/results.json" 2>/dev/null | grep -o "\"name\":\"$2\"[^}]*" |
		grep -o '"verdict":"[a-z]*"' | head -1 | cut -d'"' -f4
}

# evidence RUN_DIR TEST: signature, other or none
evidence() {
	tr -d ' \n' <"$1/results.json" 2>/dev/null | grep -o "\"name\":\"$2\"[^}]*" |
		grep -o '"evidence":"[a-z]*"' | head -1 | cut -d'"' -f4
}

# lab_up NAME ARGS...: `lab up` as a step whose log the caller can read
lab_up() {
	local name=$1
	shift
	step "$name" 900 ./lab up "$@"
	uplog="$logs/$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_').log"
}

# run_tests TAG TESTS...: `lab run`, its run directory copied to $logs/run-TAG
run_tests() {
	local tag=$1 run
	shift
	timeout --foreground 900 ./lab run "$@" >"$logs/run-$tag.log" 2>&1
	run=$(sed -n 's/^# results: //p' "$logs/run-$tag.log" | tail -1)
	[ -n "$run" ] && cp -r "$run/." "$logs/run-$tag" 2>/dev/null
}

# The smoke guest on one kernel: up (the first time: booted, saved and
# restored), down and up again (restored from the saved state), the
# reproducers through `lab run` (t004 spends the kernel: the runner
# restores the guest before t010), agent checks on patched, down.
smoke_kernel() {
	local k=$1 expect out
	lab_up "lab up -t smoke --kernel $k" -t smoke --kernel "$k" || {
		./lab down >/dev/null 2>&1
		return 1
	}
	grep -qE "restored in|saved the ready state" "$uplog"
	record "first lab up ($k) saved the ready state and went on from it" $? "$(tail -5 "$uplog")"
	step "lab down ($k, after the first up)" 300 ./lab down
	lab_up "lab up -t smoke --kernel $k (from the saved state)" -t smoke --kernel "$k" || return 1
	grep -q "smoke .*restored in" "$uplog" && ! grep -q "booted in" "$uplog"
	record "second lab up ($k): the guest was restored, not booted" $? "$(tail -5 "$uplog")"
	if [ "$k" = patched ]; then
		expect=$(make -s -C "$LAB_HOME_DIR/kernel/src" kernelversion 2>/dev/null)
		out=$(timeout 120 ./lab exec smoke -- uname -r 2>&1)
		[ "$out" = "$expect" ]
		record "guest agent: uname -r in the restored guest is the lab's kernel ($expect)" $? "got: $out"
		out=$(timeout 60 ./lab exec smoke -- sh -c 'ip -4 -o addr show dev eth0' 2>&1)
		case "$out" in *169.254.20.1/16*) true ;; *) false ;; esac
		record "restored guest keeps its link-local address from its NoCloud seed" $? "$out"
		out=$(timeout 60 ./lab exec smoke -- sh -c 'hostname; cat /run/lab-seed/status; command -v cloud-init || echo no-cloud-init' 2>&1)
		[ "$out" = "$(printf 'smoke\n0\nno-cloud-init')" ]
		record "lab-seed (no cloud-init in the image) named the guest from its seed's meta-data and ran its user-data" $? "$out"
		out=$(timeout 60 ./lab exec smoke -- date +%s 2>&1)
		# guest output reaches arithmetic only as a plain number: bash would
		# evaluate a[$(cmd)] in it
		is_number "$out" && [ $((out - $(date +%s))) -lt 30 ] && [ $(($(date +%s) - out)) -lt 30 ]
		record "restored guest's clock was set from the host" $? "guest $out, host $(date +%s)"
		timeout 60 ./lab status >"$logs/status.log" 2>&1
		grep -q 'smoke .*running .*restored' "$logs/status.log"
		record "lab status shows the guest running and restored" $? "$(cat "$logs/status.log")"
		crash_restart
		selftest_marker
	fi
	run_tests "$k" t004-tty-fasync-lockdep t010-dvb-demux-feeds
	step "lab down ($k)" 300 ./lab down
	[ -z "$(leftovers)" ]
	record "no domain or network left after lab down ($k)" $? "$(leftovers)"
}

# A guest crashed on purpose (sysrq-c) is back from the saved state.
crash_restart() {
	local t0 secs
	timeout 30 ./lab exec --timeout 5 smoke -- sh -c 'echo c > /proc/sysrq-trigger' >/dev/null 2>&1
	t0=$(date +%s)
	step "lab restart smoke after a crash (sysrq-c)" 600 ./lab restart smoke
	secs=$(($(date +%s) - t0))
	grep -q "restored in" "$logs/lab_restart_smoke_after_a_crash__sysrq_c_.log" &&
		timeout 60 ./lab exec smoke -- true
	record "crashed guest restored from the saved state and answers (${secs} s)" $? \
		"$(tail -5 "$logs/lab_restart_smoke_after_a_crash__sysrq_c_.log")"
}

# Changing only a test program forces no fresh boot, and the restored guest
# runs the new program: a copy of the tree with t099's MARK changed.
selftest_marker() {
	local src mark out run
	run_tests selftest-1 --env LAB_SELFTEST_NOTE=ci-$$ t099-lab-selftest
	grep -q "lab-selftest mark: original" "$logs/run-selftest-1/tests/t099-lab-selftest/output.txt" 2>/dev/null
	record "t099 runs in the restored guest (mark: original)" $? "$(tail -5 "$logs/run-selftest-1.log")"
	grep -q "lab-selftest note: ci-$$" "$logs/run-selftest-1/tests/t099-lab-selftest/output.txt" 2>/dev/null
	record "lab run --env LAB_SELFTEST_NOTE=... reaches the test program" $? \
		"$(tail -3 "$logs/run-selftest-1/tests/t099-lab-selftest/output.txt" 2>&1)"
	step "lab down (before the changed test program)" 300 ./lab down
	src=$(mktemp -d /tmp/lab-src.XXXXXX)
	mark=changed-$$
	tar --exclude=.git --exclude='*.o' -cf - . | tar -xf - -C "$src"
	sed -i "s/^MARK=original$/MARK=$mark/" "$src/tests/guest/t099-lab-selftest.sh"
	(cd "$src" && LAB_SRC=$src ./lab up -t smoke --kernel patched) >"$logs/up-changed.log" 2>&1
	grep -q "smoke .*restored in" "$logs/up-changed.log" && ! grep -q "booted in" "$logs/up-changed.log"
	record "a changed test program does not force a fresh boot" $? "$(tail -5 "$logs/up-changed.log")"
	out=$(cd "$src" && LAB_SRC=$src timeout 300 ./lab run t099-lab-selftest 2>&1)
	run=$(printf '%s\n' "$out" | sed -n 's/^# results: //p' | tail -1)
	grep -q "lab-selftest mark: $mark" "$run/tests/t099-lab-selftest/output.txt" 2>/dev/null
	record "the restored guest runs the changed program (mark: $mark)" $? \
		"$(echo "$out" | tail -5; tail -3 "$run/tests/t099-lab-selftest/output.txt" 2>&1)"
	rm -rf "$src"
}

# CI proves a reproducer can tell the kernels apart: seed 010's test must
# fail on baseline with its own signature and pass on patched.
smoke_ab() {
	local v e
	smoke_kernel baseline
	v=$(verdict "$logs/run-baseline" t010-dvb-demux-feeds)
	e=$(evidence "$logs/run-baseline" t010-dvb-demux-feeds)
	[ "$v" = fail ] && [ "$e" = signature ] &&
		grep -rqE 'list_add corruption|dvb_dmxdev' "$logs/run-baseline/tests"
	record "t010 on baseline: fail, with seed 010's signature (list corruption)" $? \
		"verdict: ${v:-none}/${e:-none}; $(tail -n 8 "$logs/run-baseline.log")"
	v=$(verdict "$logs/run-baseline" t004-tty-fasync-lockdep)
	grep -q "t004-tty-fasync-lockdep spent the kernel of smoke" "$logs/run-baseline.log" &&
		grep -q "smoke .*restored in" "$logs/run-baseline.log" && [ "$v" = fail ]
	record "lab run restored the guest t004 spent, and went on" $? "$(tail -n 8 "$logs/run-baseline.log")"
	smoke_kernel patched
	v=$(verdict "$logs/run-patched" t010-dvb-demux-feeds)
	[ "$v" = pass ]
	record "t010 on patched: pass (console clean, ioctls return 0)" $? \
		"verdict: ${v:-none}; $(tail -n 8 "$logs/run-patched.log")"
}

# A short lab stress on smoke with one injected crash (sysrq-c in the
# first test of iteration 2): counted under its title, dumped, the dump
# opens in crash(8) and shows the panic task's backtrace, the loop went
# on, and --resume continues the counts.
stress_ci() {
	local id dir dump kdir out pid html
	./lab up -t smoke >/dev/null 2>&1
	timeout --foreground 900 ./lab stress -t smoke --loops 2 --inject-crash 2 --keep \
		t099-lab-selftest t010-dvb-demux-feeds >"$logs/stress.log" 2>&1 &
	pid=$!
	# in its first iteration already, --status answers from its state
	for _ in $(seq 1 300); do
		id=$(sed -n 's/^stress \([0-9-]*\): seed .*/\1/p' "$logs/stress.log" | head -1)
		[ -n "$id" ] && break
		sleep 0.2
	done
	./lab stress --status "$id" >"$logs/stress-status.log" 2>&1
	record "lab stress --status answers during the first iteration" $? "$(tail -3 "$logs/stress-status.log")"
	wait "$pid"
	id=$(sed -n 's/^stress \([0-9-]*\): .*report: .*/\1/p' "$logs/stress.log" | tail -1)
	dir=$LAB_HOME_DIR/stress/$id
	[ -n "$id" ] && grep -q '"iteration":2' <(tr -d ' \n' <"$dir/stress.json") &&
		grep -q "Kernel panic - not syncing: sysrq triggered crash" "$dir/report.txt"
	record "lab stress: 2 iterations, the injected crash filed under its title" $? \
		"$(tail -8 "$logs/stress.log")"
	dump=$(find "$dir/dumps" -name '*.kdump' 2>/dev/null | head -1)
	kdir=$(sed -n 's/.*"kernel_dir":"\([^"]*\)".*/\1/p' <(tr -d ' \n' <"$dir/stress.json"))
	out=$(printf 'bt\nquit\n' | timeout 300 crash -s --no_kmem_cache "$kdir/vmlinux" "$dump" 2>&1)
	case "$out" in *PID:*sysrq*) true ;; *) false ;; esac
	record "the dump of the crashed guest opens in crash(8): bt shows the sysrq panic" $? \
		"$(echo "$out" | tail -8)"
	timeout --foreground 600 ./lab stress --resume "$id" --loops 3 >"$logs/stress-resume.log" 2>&1 &
	pid=$!
	# while it runs, a second loop on it is refused
	for _ in $(seq 1 100); do grep -q "resuming" "$logs/stress-resume.log" && break; sleep 0.2; done
	sleep 1
	! ./lab stress --resume "$id" --loops 3 >"$logs/stress-twice.log" 2>&1 &&
		grep -q "is running in another lab" "$logs/stress-twice.log"
	record "a second lab stress --resume of a running loop is refused" $? "$(tail -3 "$logs/stress-twice.log")"
	wait "$pid"
	grep -q '"iteration":3' <(tr -d ' \n' <"$dir/stress.json")
	record "lab stress --resume continues the counts (iteration 3)" $? "$(tail -5 "$logs/stress-resume.log")"
	html=$(timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--dump-dom "file://$dir/report.html" 2>/dev/null)
	grep -q '<rect class="tick"' <<<"$html" && grep -q '<text class="axis"' <<<"$html" &&
		[ "$(grep -n 'class="summary"' <<<"$html" | cut -d: -f1)" -lt "$(grep -n '<svg' <<<"$html" | cut -d: -f1)" ]
	record "stress report.html loads in headless chromium: summary first, timeline with a time axis" $?
	./lab down >/dev/null 2>&1
}

# The interop slice: the patched client against one server of each kind
# (knfsd on the lab's kernel, knfsd on Debian's own kernel with its initrd,
# NFS-Ganesha), NFS 4.1, the basic group. Each cell must pass; the matrix
# opens in a browser.
interop_ci() {
	local dir cells rel
	timeout --foreground 1800 ./lab interop --servers knfsd,knfsd-debian,ganesha \
		--vers 4.1 --groups basic --keep >"$logs/interop.log" 2>&1
	record "lab interop ran (client + 3 servers, v4.1, basic)" $? "$(tail -12 "$logs/interop.log")"
	dir=$(sed -n 's/^matrix: \(.*\)\/matrix.html.*/\1/p' "$logs/interop.log" | tail -1)
	cells=$(grep -c '"verdict":"pass"' <(tr -d ' \n' <"$dir/matrix.json" | sed 's/},{/}\n{/g') 2>/dev/null)
	[ "$cells" = 3 ]
	record "interop slice: knfsd, knfsd on Debian's kernel and ganesha pass basic on v4.1" $? \
		"passing cells: $cells; $(grep -A12 'server' "$dir/matrix.txt" 2>/dev/null | head -20)"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--dump-dom "file://$dir/matrix.html" 2>/dev/null | grep -q 'class="cellrow"'
	record "interop matrix.html loads in headless chromium" $?
	rel=$(timeout 60 ./lab exec knfsd-debian -- uname -r 2>&1)
	case "$rel" in *-amd64) true ;; *) false ;; esac
	record "Debian's own kernel (with its initrd) runs knfsd-debian through the same libvirt path" $? "uname -r: $rel"
	./lab down >/dev/null 2>&1
	interop_clients_ci
}

# The clients, features and reboot groups on knfsd, v3 and v4.2: a second
# client guest (the peer) comes up for clients and reboot; on v4.2 the read
# delegation is recalled and the copy is the server's, on v3 locks go
# through NLM; the server reset hard keeps every synced byte and the locks.
# Then the proof that reboot can fail: knfsd with an async export loses
# data it acknowledged.
interop_clients_ci() {
	local dir run out
	timeout --foreground 1800 ./lab interop --servers knfsd --vers 3,4.2 \
		--groups clients,features,reboot >"$logs/interop-clients.log" 2>&1
	dir=$(sed -n 's/^matrix: \(.*\)\/matrix.html.*/\1/p' "$logs/interop-clients.log" | tail -1)
	run=$(readlink -f "$dir/run" 2>/dev/null)
	out=$(cat "$run/tests/"*/output.txt 2>/dev/null)
	grep -q "^knfsd .*clients .*pass, 1 skip .*pass " "$dir/matrix.txt" 2>/dev/null &&
		grep -q "clients/lock-conflict: pass: .*(NLM, v3)" <<<"$out" &&
		grep -q "clients/delegation-recall: pass: .*recalled it (DELEGRETURN" <<<"$out"
	record "interop clients: two client guests on knfsd, v3 locks by NLM, a v4.2 read delegation recalled" $? \
		"$(grep -A8 '^server' "$dir/matrix.txt" 2>/dev/null; tail -5 "$logs/interop-clients.log")"
	grep -q "features/copy-whole: pass: .*the server copied them" <<<"$out" &&
		grep -q "features/xattr: pass" <<<"$out"
	record "interop features: knfsd v4.2 copies on the server (COPY counted) and keeps user xattrs" $? \
		"$(grep 'features/' <<<"$out" | cut -c1-160 | head -10)"
	grep -q "^knfsd .*reboot .*pass .*pass " "$dir/matrix.txt" 2>/dev/null &&
		[ "$(grep -c "reboot/lock-reclaimed: pass" <<<"$out")" = 2 ]
	record "interop reboot: knfsd reset hard under synced data, a lock, an open file and a writer: all kept (v3, v4.2)" $? \
		"$(grep 'reboot/' <<<"$out" | cut -c1-200 | head -12)"
	timeout --foreground 1800 ./lab interop -t interop-async --servers knfsd-async --vers 4.2 \
		--groups reboot >"$logs/interop-async.log" 2>&1
	dir=$(sed -n 's/^matrix: \(.*\)\/matrix.html.*/\1/p' "$logs/interop-async.log" | tail -1)
	grep -q "^knfsd-async .*reboot .*fail " "$dir/matrix.txt" 2>/dev/null &&
		grep -q "failed reboot/.*lost synced data" "$dir/matrix.txt"
	record "interop reboot can fail: knfsd with an async export loses acknowledged data, and the matrix says which" $? \
		"$(sed -n '/not a pass/,/Every check/p' "$dir/matrix.txt" 2>/dev/null | head -8; tail -3 "$logs/interop-async.log")"
}

# remote_smoke URI HOSTS STORE: a smoke instance on that host: booted with
# the kernel, disks, seed, tests disk and console log all volumes of its
# store and saved there; exec, console, run and a restart (from the saved
# state in the store) through the remote connection; down removes the
# instance's volumes and keeps the shared ones; up again restores.
remote_smoke() {
	local uri=$1 hf=$2 store=$3 inst=${LAB_INSTANCE}-h1 xml out run
	LAB_INSTANCE=$inst timeout 900 ./lab up -t smoke --kernel patched --host lo \
		--hosts-file "$hf" >"$logs/up-remote.log" 2>&1 && grep -q "smoke .*booted in .*seed done" "$logs/up-remote.log" &&
		grep -q "saved the ready state of 1 guest .* on host lo" "$logs/up-remote.log"
	record "lab up --host lo: smoke boots over qemu+libssh and is saved in the host's store" $? \
		"$(tail -8 "$logs/up-remote.log")"
	xml=$(virsh -c "$uri" dumpxml "$inst-smoke" 2>&1 | grep -E "<kernel>|source file=|log file=")
	[ "$(echo "$xml" | grep -c "$store/")" -ge 5 ] && ! echo "$xml" | grep -qv "$store/"
	record "every file of the remote guest is a volume of the host's store" $? "$xml"
	out=$(LAB_INSTANCE=$inst timeout 60 ./lab exec smoke -- uname -r 2>&1)
	case "$out" in 6.1.*) true ;; *) false ;; esac
	record "lab exec through the remote connection (uname -r: $out)" $?
	LAB_INSTANCE=$inst timeout 60 ./lab exec smoke -- sh -c 'echo lab-remote-console-check >/dev/kmsg' >/dev/null 2>&1
	LAB_INSTANCE=$inst timeout 60 ./lab console --no-follow smoke 2>&1 | grep -q "lab-remote-console-check"
	record "lab console reads the remote log through the storage API" $?
	LAB_INSTANCE=$inst timeout 600 ./lab run t099-lab-selftest t010-dvb-demux-feeds >"$logs/run-remote.log" 2>&1
	run=$(sed -n 's/^# results: //p' "$logs/run-remote.log")
	grep -q "^ok 2 t010" "$logs/run-remote.log" && grep -q "lab: END t010-dvb-demux-feeds" "$run/consoles/smoke.log"
	record "lab run on the remote instance: verdicts from its console followed through the store" $? \
		"$(tail -6 "$logs/run-remote.log")"
	LAB_INSTANCE=$inst timeout 300 ./lab restart smoke >"$logs/restart-remote.log" 2>&1 &&
		grep -q "smoke .*restored in" "$logs/restart-remote.log"
	record "lab restart on the remote host restores from the saved state in its store" $? \
		"$(tail -3 "$logs/restart-remote.log")"
	LAB_INSTANCE=$inst timeout 120 ./lab down >"$logs/down-remote.log" 2>&1 &&
		! virsh -c "$uri" list --name 2>/dev/null | grep -q "^$inst-" &&
		! compgen -G "$store/$inst.*" >/dev/null && compgen -G "$store/image-*" >/dev/null &&
		compgen -G "$store/saved-*.ok" >/dev/null
	record "lab down removes the remote guest and its volumes, keeps the shared ones and the saved state" $? \
		"$(tail -3 "$logs/down-remote.log"); $(find "$store" -maxdepth 1 -printf '%f ')"
	LAB_INSTANCE=$inst timeout 300 ./lab up -t smoke --kernel patched --host lo --hosts-file "$hf" \
		>"$logs/up-remote2.log" 2>&1 && grep -q "smoke .*restored in" "$logs/up-remote2.log" &&
		! grep -q "booted in" "$logs/up-remote2.log"
	record "lab up --host lo again restores from the host's store" $? "$(grep -E "phase|restored" "$logs/up-remote2.log" | tail -6)"
	LAB_INSTANCE=$inst timeout 120 ./lab down >/dev/null 2>&1
}

# lab stress --hosts lo,gone: gone (port 1 of loopback) never answers, so its part is reported
# and goes on on lo after lo's own part; the counts are merged.
spread_stress() {
	local hf=$1 dir id
	LAB_INSTANCE=$LAB_INSTANCE timeout 1200 ./lab stress -t smoke --kernel patched \
		--hosts lo,gone --hosts-file "$hf" --loops 2 t099-lab-selftest >"$logs/stress-spread.log" 2>&1
	id=$(sed -n 's/^stress \([0-9-]*\): spread over.*/\1/p' "$logs/stress-spread.log" | head -1)
	dir=$LAB_HOME_DIR/stress/$id
	[ -n "$id" ] && grep -q "host gone dropped out: gone goes to host lo" "$logs/stress-spread.log" &&
		grep -q '"iteration":2' <(tr -d ' \n' <"$dir/stress.json") &&
		grep -q "gone: 1 loops done, finished on lo" "$logs/stress-spread.log"
	record "lab stress --hosts: a host that drops out is reported, its part runs on the other, counts merged" $? \
		"$(grep -E "error|dropped out|done on|started on|not ready|stopped" "$logs/stress-spread.log" | tail -12)"
}

# lab review --hosts lo,here on smoke: baseline over qemu+libssh and patched
# through the local store at the same time; 010's row is verified from
# the two runs like a review on one host.
spread_review() {
	local hf=$1 dir
	timeout 1800 ./lab review -t smoke --hosts lo,here --hosts-file "$hf" >"$logs/review-spread.log" 2>&1
	dir=$(sed -n 's/^review finished in [0-9]* s: //p' "$logs/review-spread.log")
	grep -q "^baseline: done on host lo" "$logs/review-spread.log" &&
		grep -q "^patched: done on host here" "$logs/review-spread.log" &&
		grep -Eq "^[0-9]+ +010 .*fix verified" "$dir/report.txt"
	record "lab review --hosts lo,here: both kernels at once on two hosts, 010 verified" $? \
		"$(grep -v "^\[" "$logs/review-spread.log" | tail -8)"
}

# Many hosts: a second libvirt endpoint reached over libvirt's remote
# protocol (qemu+libssh to a throwaway sshd on loopback) and this machine
# through a store of its own; the cached kernels and image reach the
# stores through the storage API, intact; a second sync moves nothing;
# clean removes the stores.
hosts_ci() {
	local dir uri hf img port rc
	dir=$(mktemp -d /tmp/lab-hosts.XXXXXX)
	chmod 755 "$dir" # QEMU (user libvirt-qemu) opens the store's files under it
	uri=$(tests/loopback-ssh.sh start "$dir/ssh" 2>"$logs/sshd.log")
	record "a throwaway sshd on 127.0.0.1 for libvirt's remote protocol" $? "$(cat "$logs/sshd.log")"
	hf=$dir/hosts.ini
	port=${uri#*@127.0.0.1:}
	port=${port%%/*}
	printf '[host lo]\nuri = %s\nstore = %s/store\n\n[host here]\nuri = qemu:///system\nstore = %s/here\n\n[host gone]\nuri = %s\nstore = %s/gone\n' \
		"$uri" "$dir" "$dir" "${uri/:$port\//:1/}" "$dir" >"$hf"
	timeout 120 ./lab hosts --hosts-file "$hf" >"$logs/hosts.log" 2>&1
	rc=$?
	grep -q "^lo .*qemu+libssh://.* libvirt [0-9]" "$logs/hosts.log"
	record "lab hosts reaches the host over qemu+libssh" $? "$(cat "$logs/hosts.log")"
	[ $rc -eq 1 ] && grep -q "^gone .*unreachable" "$logs/hosts.log"
	record "lab hosts exits 1 when a host cannot be reached" $? "exit $rc"
	timeout 900 ./lab hosts --hosts-file "$hf" sync lo >"$logs/sync1.log" 2>&1 &&
		grep -q "3 files uploaded" "$logs/sync1.log"
	record "lab hosts sync: both kernels and the image uploaded through the storage API" $? \
		"$(tail -5 "$logs/sync1.log")"
	img=$(./lab cache 2>/dev/null | sed -n 's/^image *\([0-9a-f]*\) .*/\1/p' | head -1)
	cmp -s "$LAB_HOME_DIR/images/$img/base.qcow2" "$dir/store/image-$img-base.qcow2"
	record "the uploaded image is byte for byte the cached one" $? "image key: $img"
	timeout 120 ./lab hosts --hosts-file "$hf" sync lo >"$logs/sync2.log" 2>&1 &&
		grep -q "0 files uploaded.*3 already there" "$logs/sync2.log"
	record "a second sync uploads nothing" $? "$(tail -4 "$logs/sync2.log")"
	remote_smoke "$uri" "$hf" "$dir/store"
	spread_stress "$hf"
	spread_review "$hf"
	# a failed spread job must not outlive its hosts file and sshd
	for i in $(own_instances); do LAB_INSTANCE=$i ./lab down >/dev/null 2>&1; done
	timeout 120 ./lab hosts --hosts-file "$hf" clean lo >"$logs/hosts-clean.log" 2>&1 && [ ! -e "$dir/store" ] &&
		timeout 120 ./lab hosts --hosts-file "$hf" clean here >>"$logs/hosts-clean.log" 2>&1 && [ ! -e "$dir/here" ]
	record "lab hosts clean removes the stores (volumes, directory, pool)" $? "$(cat "$logs/hosts-clean.log")"
	tests/loopback-ssh.sh stop "$dir/ssh"
	rm -rf "$dir"
}

# A store= naming a directory lab did not make (world-writable, a user's
# file in it) is refused, keeps its mode and the file, and leaves no pool.
store_takeover() {
	local d hf pools out
	d=$(mktemp -d /tmp/lab-foreign.XXXXXX)
	chmod 1777 "$d"
	echo "a user's file" >"$d/notes.txt"
	hf=$logs/foreign-hosts.ini
	printf '[host foreign]\nuri = qemu:///system\nstore = %s\n' "$d" >"$hf"
	pools=$(virsh -c qemu:///system pool-list --all --name 2>/dev/null | grep -c .)
	! out=$(timeout 120 ./lab hosts --hosts-file "$hf" sync foreign 2>&1) &&
		grep -q "not a lab store" <<<"$out" &&
		[ "$(stat -c %a "$d")" = 1777 ] && [ -f "$d/notes.txt" ] &&
		[ "$(virsh -c qemu:///system pool-list --all --name 2>/dev/null | grep -c .)" = "$pools" ]
	record "store = a foreign directory: refused, its mode, its file and the pools as they were" $? "$out"
	out=$(timeout 120 ./lab hosts --hosts-file "$hf" clean foreign 2>&1)
	[ -f "$d/notes.txt" ]
	record "lab hosts clean on a foreign directory deletes nothing" $? "$out"
	rm -rf "$d"
}

# saved_count: complete saved states in this machine's store
saved_count() { compgen -G "$LAB_HOME_DIR/store/saved-*.ok" | wc -l; }

# A second instance restores the ready state the first saved (no boot, no
# second copy), both run `lab run` at the same time with correct results,
# and the second survives the first's up and down (ownership by tag, not
# by name prefix).
second_instance() {
	local other=${LAB_INSTANCE}2 alive n0 pa pb ra rb
	n0=$(saved_count)
	LAB_INSTANCE=$other ./lab up -t smoke >"$logs/other-up.log" 2>&1 || {
		record "second instance $other comes up" 1 "$(tail -5 "$logs/other-up.log")"
		return
	}
	grep -q "smoke .*restored in" "$logs/other-up.log" && ! grep -q "booted in" "$logs/other-up.log" &&
		[ "$(saved_count)" = "$n0" ]
	record "instance $other restores the ready state $LAB_INSTANCE saved, storing no second one" $? \
		"saved states $n0 -> $(saved_count); $(tail -3 "$logs/other-up.log")"
	./lab up -t smoke >"$logs/first-up.log" 2>&1
	LAB_INSTANCE=$other timeout 600 ./lab run t099-lab-selftest t010-dvb-demux-feeds \
		>"$logs/other-run.log" 2>&1 &
	pa=$!
	timeout 600 ./lab run t099-lab-selftest t010-dvb-demux-feeds >"$logs/first-run.log" 2>&1 &
	pb=$!
	wait $pa
	ra=$?
	wait $pb
	rb=$?
	[ $ra = 0 ] && [ $rb = 0 ] && grep -q "^ok .*t010-dvb" "$logs/other-run.log" &&
		grep -q "^ok .*t010-dvb" "$logs/first-run.log"
	record "two instances on one saved state run lab run at the same time: both pass" $? \
		"exit $ra and $rb; $(tail -3 "$logs/other-run.log"; tail -3 "$logs/first-run.log")"
	./lab down >/dev/null 2>&1
	alive=$(virsh -c qemu:///system list --name 2>/dev/null | grep -c "^$other-smoke$")
	[ "$alive" = 1 ]
	record "instance $LAB_INSTANCE's up and down leave instance $other's guest running" $? "alive: $alive"
	LAB_INSTANCE=$other ./lab down >/dev/null 2>&1
}

# wait_domain: until the instance's smoke domain exists (at most 60 s)
wait_domain() {
	for _ in $(seq 1 300); do
		virsh -c qemu:///system list --name 2>/dev/null | grep -q "^$LAB_INSTANCE-smoke$" && return 0
		sleep 0.2
	done
	return 1
}

# wait_gone PID SECONDS: until the process has ended; its exit status
wait_gone() {
	local _
	for _ in $(seq 1 "$2"); do kill -0 "$1" 2>/dev/null || break; sleep 1; done
	wait "$1"
}

# Every saved state in this machine's store has its manifest: a save that
# never finished left nothing behind (its volumes were the instance's own).
no_partial_saved() {
	local f k
	for f in "$LAB_HOME_DIR"/store/saved-*; do
		[ -e "$f" ] || continue
		k=${f##*/saved-}
		k=${k:0:16}
		[ -e "$LAB_HOME_DIR/store/saved-$k.ok" ] || return 1
	done
}

# Bad input, Ctrl-C, SIGKILL, a closed pipe, a dead libvirtd: nothing may
# be left behind, and no error may pass for a verdict.
faults() {
	local pid rc
	./lab up -t tests/unit/topologies/duplicate-address.ini >"$logs/bad.log" 2>&1
	[ $? -eq 2 ] && grep -q 'duplicate-address.ini:14' "$logs/bad.log" && [ -z "$(leftovers)" ]
	record "malformed topology: exit 2, names file:line, creates nothing" $? "$(cat "$logs/bad.log")"

	./lab up -t smoke >"$logs/int.log" 2>&1 &
	pid=$!
	wait_domain
	kill -INT $pid
	wait_gone $pid 60
	rc=$?
	[ $rc -ne 0 ] && [ -z "$(leftovers)" ] && no_partial_saved &&
		[ ! -e "$LAB_HOME_DIR/instances/$LAB_INSTANCE/state.ini" ]
	record "Ctrl-C during lab up (restore) tears down everything it created" $? \
		"rc=$rc; $(tail -5 "$logs/int.log"); left: $(leftovers)"
	./lab down >/dev/null 2>&1

	./lab up -t smoke | head -1 >"$logs/pipe.log" 2>&1
	timeout 60 ./lab status >"$logs/pipe-status.log" 2>&1
	grep -q 'smoke .*running' "$logs/pipe-status.log"
	record "lab up | head -1: lab finishes the bring-up (no SIGPIPE death)" $? "$(cat "$logs/pipe-status.log")"

	./lab run --duration 30 t099-lab-selftest >"$logs/run-int.log" 2>&1 &
	pid=$!
	sleep 8
	kill -INT $pid
	wait_gone $pid 60
	rc=$?
	[ $rc -eq 130 ] && timeout 30 ./lab exec smoke -- true &&
		python3 -c "import json,sys; json.load(open(sys.argv[1]))" \
			"$(sed -n 's/^lab: error: interrupted: [0-9]* results kept in //p' "$logs/run-int.log")/results.json"
	record "Ctrl-C during lab run: exit 130, the guest is fine, results.json whole" $? \
		"rc=$rc; $(tail -5 "$logs/run-int.log")"

	./lab run --duration 40 t099-lab-selftest >"$logs/run-nolibvirt.log" 2>&1 &
	pid=$!
	sleep 8
	pkill -x libvirtd
	wait_gone $pid 90
	rc=$?
	scripts/start-libvirtd.sh >/dev/null 2>&1
	[ $rc -ne 0 ] && grep -q "libvirtd" "$logs/run-nolibvirt.log" &&
		! grep -q "^not ok .*# the kernel" "$logs/run-nolibvirt.log"
	record "libvirtd stopped during lab run: bounded error naming libvirtd, no verdict on the kernel" $? \
		"rc=$rc; $(tail -5 "$logs/run-nolibvirt.log")"
	./lab down >/dev/null 2>&1

	./lab up -t smoke >"$logs/kill9.log" 2>&1 &
	pid=$!
	wait_domain
	kill -KILL $pid
	wait $pid 2>/dev/null
	./lab down >"$logs/kill9-down.log" 2>&1
	[ -z "$(leftovers)" ] && no_partial_saved
	record "lab SIGKILLed during lab up, then lab down: nothing left" $? \
		"$(tail -3 "$logs/kill9-down.log"); left: $(leftovers)"
}

# Bad input to lab build --series: each a named error (exit 2) before
# anything is built, and no definition left behind.
user_kernel_bad_input() {
	local d=$logs/series-bad out ok=0
	mkdir -p "$d/wrong"
	sed 's/timer_setup(&dmxdevfilter->timer/timer_setup(\&dmxdevfilter->not_this_timer/' \
		tests/series/regress/0002-*.patch >"$d/wrong/0001-context-that-is-not-there.patch"
	printf 'not a patch\n' >"$d/not-a-diff.patch"
	printf 'not-a-diff.patch\n' >"$d/series"
	while IFS='|' read -r what want args; do
		# shellcheck disable=SC2086
		out=$(timeout 300 ./lab build $args 2>&1)
		if [ $? -ne 2 ] || ! grep -q -- "$want" <<<"$out" || [ -e "$LAB_HOME_DIR/named-kernels/ci-bad" ]; then
			ok=1
			say "#   $what: $(tail -3 <<<"$out")"
		fi
	done <<EOF2
missing series|no such series file|ci-bad --series $d/none --base patched
not a diff|not-a-diff.patch, is not a unified diff|ci-bad --series $d/series --base patched
does not apply|0001-context-that-is-not-there.patch does not apply.*nothing was built|ci-bad --series $d/wrong --base patched
hunk named|Hunk #1 FAILED|ci-bad --series $d/wrong --base patched
built-in name|built-in kernel's name|baseline --series tests/series/regress
unknown base|--base nope is no kernel lab knows|ci-bad --series tests/series/regress --base nope
EOF2
	record "lab build --series: a missing series, a non-diff, a patch that does not apply (its file and hunk), a built-in name, a bad base: exit 2, nothing defined" $ok
}

# A series of the project's own (tests/series/regress: three patches on
# patched, the second re-adds seed 010's bug): defined and built, listed;
# the candidate review finds t010 regressed and the rest unchanged; the
# bisection names the second patch.
user_kernels_ci() {
	local out rep dir
	user_kernel_bad_input
	timeout 1800 ./lab build ci-regress --series tests/series/regress --base patched \
		>"$logs/build-series.log" 2>&1 && ./lab kernels >"$logs/kernels.log" 2>&1 &&
		grep -q "^ci-regress  *patched  *3 (+23) .*MiB" "$logs/kernels.log"
	record "lab build ci-regress --series (3 patches on patched), listed by lab kernels" $? \
		"$(tail -4 "$logs/build-series.log"; cat "$logs/kernels.log")"
	out=$(timeout 60 ./lab build ci-regress --series tests/series/regress --base ci-regress@1 2>&1)
	[ $? = 2 ] && grep -q "is built on ci-regress itself" <<<"$out" &&
		grep -q "^base=patched" "$LAB_HOME_DIR/named-kernels/ci-regress/kernel.ini"
	record "a kernel built on itself is refused, its definition kept" $? "$out"
	timeout 2400 ./lab review --base patched --candidate ci-regress --reruns 2 -t smoke \
		>"$logs/review-candidate.log" 2>&1
	out=$?
	rep=$(sed -n 's/^report: \(.*\) (and.*/\1/p' "$logs/review-candidate.log")
	[ "$out" = 1 ] && grep -q "^t010-dvb-demux-feeds  *pass 3/3  *fail 3/3  *regressed" "$rep" &&
		grep -q "^t099-lab-selftest  *pass 1/1  *pass 1/1  *unchanged" "$rep" &&
		grep -q "^1 regressed, 0 fixed, 0 flaky, 0 changed, 1 unchanged" "$rep" &&
		grep -q "lab bisect --good patched --bad ci-regress -t smoke t010-dvb-demux-feeds" "$rep"
	record "lab review --candidate: t010 regressed (3 of 3 runs), the rest unchanged, the bisect offered; exit 1" $? \
		"exit $out; $(cat "$rep" 2>/dev/null || tail -8 "$logs/review-candidate.log")"
	timeout 2400 ./lab bisect --good patched --bad ci-regress -t smoke t010-dvb-demux-feeds \
		>"$logs/bisect.log" 2>&1
	out=$?
	dir=$(sed -n 's/^bisect: \(.*\) (and bisect.json)/\1/p' "$logs/bisect.log")
	[ "$out" = 0 ] && grep -q "^# first bad patch: 2 of 3, 0002-media-dvb-core-initialize-the-feeds-list-once-at-open.patch" "$dir/bisect.log" &&
		grep -q '"first_bad_step":2' "$dir/bisect.json"
	record "lab bisect names the patch that re-adds seed 010's bug (2 of 3)" $? \
		"exit $out; $(cat "$dir/bisect.log" 2>/dev/null || tail -8 "$logs/bisect.log")"
}

# A kernel tree of a user's (tests/make-user-tree.sh: linux-source-6.1 + the
# patched series as one commit, tests/series/regress as three on it): bad
# input named with nothing made, the tree's HEAD built from the lab's own
# copy (ccache shared with the lab's tree), the user's tree never written,
# and `lab bisect` between two of its commits names the commit that re-adds
# seed 010's bug.
user_tree_ci() {
	local tree=/var/tmp/lab-ci-user-tree out dir def stamp="$logs/user-tree.stamp"
	timeout 900 bash tests/make-user-tree.sh "$tree" >"$logs/user-tree.log" 2>&1
	record "a kernel git tree of a user's: linux-source-6.1 + patched, three commits on it" $? \
		"$(tail -5 "$logs/user-tree.log")" || return
	touch "$stamp"
	sleep 1
	def=$(cat "$LAB_HOME_DIR/named-kernels/ci-tree/kernel.ini" 2>/dev/null) # a warm machine has it
	out=$( (./lab build ci-tree --tree tests; echo "exit $?"
		./lab build ci-tree --tree "$tree" --rev nosuch; echo "exit $?"
		./lab build ci-tree --tree "$tree" --series tests/series/regress; echo "exit $?") 2>&1)
	[ "$(grep -c '^exit 2$' <<<"$out")" = 3 ] && grep -q "tests is not a kernel tree: it has no Makefile" <<<"$out" &&
		grep -q "nosuch is no commit there" <<<"$out" && grep -q "give one" <<<"$out" &&
		[ "$(cat "$LAB_HOME_DIR/named-kernels/ci-tree/kernel.ini" 2>/dev/null)" = "$def" ]
	record "lab build --tree: not a kernel tree, no such commit, --series with --tree: exit 2, named, the definition untouched" $? "$out"
	timeout 3600 ./lab build ci-tree --tree "$tree" >"$logs/build-tree.log" 2>&1 &&
		./lab kernels >"$logs/kernels-tree.log" 2>&1 &&
		grep -q "^ci-tree  *$tree@[0-9a-f]\{12\} .*MiB" "$logs/kernels-tree.log"
	record "lab build ci-tree --tree DIR (its HEAD, from the lab's copy), listed by lab kernels" $? \
		"$(grep -E 'phase|cache|error' "$logs/build-tree.log" | tail -12; cat "$logs/kernels-tree.log")"
	out=$(timeout 120 ./lab bisect --good ci-tree --bad ci-tree@~3 -t smoke t010-dvb-demux-feeds 2>&1)
	[ $? = 2 ] && grep -q "is not an ancestor of" <<<"$out"
	record "lab bisect with good and bad the wrong way round: exit 2, named" $? "$out"
	timeout 2400 ./lab bisect --good ci-tree@~3 --bad ci-tree -t smoke t010-dvb-demux-feeds \
		>"$logs/bisect-tree.log" 2>&1
	out=$?
	dir=$(sed -n 's/^bisect: \(.*\) (and bisect.json)/\1/p' "$logs/bisect-tree.log")
	[ "$out" = 0 ] && grep -q "^# first bad commit: 2 of 3, [0-9a-f]\{12\} media: dvb-core: initialize the feeds list once, at open" "$dir/bisect.log"
	record "lab bisect between two commits of the tree names the commit that re-adds seed 010's bug" $? \
		"exit $out; $(cat "$dir/bisect.log" 2>/dev/null || tail -8 "$logs/bisect-tree.log")"
	out=$(find "$tree" -newer "$stamp" | head -5)
	[ -z "$out" ]
	record "the user's tree was not written (nothing in it newer than before lab ran)" $? "$out"
}

integration() {
	LAB_HOME_DIR=$(./lab help | sed -n 's/^LAB_HOME=\([^ ]*\).*/\1/p')
	say "# integration tests (LAB_HOME=$LAB_HOME_DIR, instance $LAB_INSTANCE)"
	step "libvirtd running (started by hand: no systemd here)" 60 scripts/start-libvirtd.sh || return
	# a previous, interrupted run's leftovers
	for i in $(own_instances); do LAB_INSTANCE=$i ./lab down >/dev/null 2>&1; done
	step "lab build all (both kernels; cached by content hash)" 3600 ./lab build all || return
	step "lab build all again is a cache hit" 60 sh -c './lab build all | grep -c "cache hit" | grep -qx 2'
	step "lab check-series (bugs+fixes restore pristine, touched files build)" 1800 ./lab check-series
	step "lab image (Debian guest image; cached)" 1800 ./lab image || return
	foreign_create
	record "create a foreign VM and network named like lab's (virsh)" $?
	store_takeover
	hosts_ci
	smoke_ab
	user_kernels_ci
	user_tree_ci
	stress_ci
	second_instance
	interop_ci
	faults
	foreign_check
}

t0=$(date +%s)
unit_tests
if [ "${LAB_INTEGRATION:-1}" != 0 ]; then
	integration
else
	say "# integration tests skipped (LAB_INTEGRATION=0)"
fi
say "1..$n"
say "# logs: $logs; total $(($(date +%s) - t0)) s"
say "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
