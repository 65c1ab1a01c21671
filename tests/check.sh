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

leftovers() {
	{ virsh -c qemu:///system list --all --name; virsh -c qemu:///system net-list --all --name; } 2>/dev/null |
		grep "^$LAB_INSTANCE-" | grep -v -- '-foreign' || true
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
	for f in topology console results; do
		step "fuzz $f parser for $secs s: no crash, leak or UB" $((secs + 300)) \
			make -s "fuzz-$f" FUZZ_SECONDS=$secs FUZZ_DIR="$logs/fuzz"
	done
}

# The review's HTML report, rendered from fixture runs, opened in a real
# headless browser (Debian's chromium): it loads and shows eleven rows.
report_in_browser() {
	local d=$logs/report rows
	./lab report "$d" tests/unit/runs/baseline tests/unit/runs/patched >"$logs/report.log" 2>&1
	rows=$(timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--dump-dom "file://$d/report.html" 2>>"$logs/report.log" | grep -c '<tr class="row"')
	[ "$rows" = 11 ]
	record "report.html loads in headless chromium and shows 11 rows" $? \
		"rows: $rows; $(tail -n 5 "$logs/report.log")"
}

# verdict RUN_DIR TEST: the test's verdict in the run's results.json
verdict() {
	tr -d ' \n' <"$1/results.json" | grep -o "\"name\":\"$2\"[^}]*" |
		grep -o '"verdict":"[a-z]*"' | head -1 | cut -d'"' -f4
}

# The smoke guest on one kernel: up, agent checks (patched), the reproducer
# of seed 010 through `lab run`, down. Prints the run directory.
smoke_kernel() {
	local k=$1 expect out run
	step "lab up -t smoke --kernel $k" 900 ./lab up -t smoke --kernel "$k" || {
		./lab down >/dev/null 2>&1
		return 1
	}
	if [ "$k" = patched ]; then
		expect=$(make -s -C "$LAB_HOME_DIR/kernel/src" kernelversion 2>/dev/null)
		out=$(timeout 120 ./lab exec smoke -- uname -r 2>&1)
		[ "$out" = "$expect" ]
		record "guest agent: uname -r in the guest is the lab's kernel ($expect)" $? "got: $out"
		out=$(timeout 60 ./lab exec smoke -- sh -c 'ip -4 -o addr show dev eth0' 2>&1)
		case "$out" in *169.254.20.1/16*) true ;; *) false ;; esac
		record "guest got its link-local address from its NoCloud seed" $? "$out"
		timeout 60 ./lab status >"$logs/status.log" 2>&1
		grep -q 'smoke .*running' "$logs/status.log"
		record "lab status shows the guest running" $? "$(cat "$logs/status.log")"
	fi
	timeout --foreground 600 ./lab run t010-dvb-demux-feeds >"$logs/run-$k.log" 2>&1
	run=$(sed -n 's/^# results: //p' "$logs/run-$k.log" | tail -1)
	[ -n "$run" ] && cp -r "$run/." "$logs/run-$k" 2>/dev/null
	step "lab down ($k)" 300 ./lab down
	[ -z "$(leftovers)" ]
	record "no domain or network left after lab down ($k)" $? "$(leftovers)"
}

# CI proves a reproducer can tell the kernels apart: seed 010's test must
# fail on baseline with the kernel's own report and pass on patched.
smoke_ab() {
	local v
	smoke_kernel baseline
	v=$(verdict "$logs/run-baseline" t010-dvb-demux-feeds)
	[ "$v" = fail ] && grep -rqE 'list_add corruption|dvb_dmxdev' "$logs/run-baseline/tests"
	record "t010 on baseline: fail, with the kernel's list corruption report" $? \
		"verdict: ${v:-none}; $(tail -n 8 "$logs/run-baseline.log")"
	smoke_kernel patched
	v=$(verdict "$logs/run-patched" t010-dvb-demux-feeds)
	[ "$v" = pass ]
	record "t010 on patched: pass (console clean, ioctls return 0)" $? \
		"verdict: ${v:-none}; $(tail -n 8 "$logs/run-patched.log")"
}

# Bad input and Ctrl-C: nothing may be left behind.
faults() {
	./lab up -t tests/unit/topologies/duplicate-address.ini >"$logs/bad.log" 2>&1
	[ $? -eq 2 ] && grep -q 'duplicate-address.ini:14' "$logs/bad.log" && [ -z "$(leftovers)" ]
	record "malformed topology: exit 2, names file:line, creates nothing" $? "$(cat "$logs/bad.log")"

	./lab up -t smoke >"$logs/int.log" 2>&1 &
	local pid=$!
	for _ in $(seq 1 300); do
		virsh -c qemu:///system list --name 2>/dev/null | grep -q "^$LAB_INSTANCE-smoke$" && break
		sleep 0.2
	done
	kill -INT $pid
	for _ in $(seq 1 60); do kill -0 $pid 2>/dev/null || break; sleep 1; done
	wait $pid
	local rc=$?
	[ $rc -ne 0 ] && [ -z "$(leftovers)" ] && [ ! -e "$LAB_HOME_DIR/instances/$LAB_INSTANCE/state.ini" ]
	record "Ctrl-C during lab up tears down everything it created" $? "rc=$rc; $(tail -5 "$logs/int.log"); left: $(leftovers)"
	./lab down >/dev/null 2>&1
}

integration() {
	LAB_HOME_DIR=$(./lab help | sed -n 's/^LAB_HOME=\([^ ]*\).*/\1/p')
	say "# integration tests (LAB_HOME=$LAB_HOME_DIR, instance $LAB_INSTANCE)"
	step "libvirtd running (started by hand: no systemd here)" 60 scripts/start-libvirtd.sh || return
	./lab down >/dev/null 2>&1 # a previous run's leftovers
	step "lab build all (both kernels; cached by content hash)" 3600 ./lab build all || return
	step "lab build all again is a cache hit" 60 sh -c './lab build all | grep -c "cache hit" | grep -qx 2'
	step "lab check-series (bugs+fixes restore pristine, touched files build)" 1800 ./lab check-series
	step "lab image (Debian guest image; cached)" 1800 ./lab image || return
	foreign_create
	record "create a foreign VM and network named like lab's (virsh)" $?
	smoke_ab
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
