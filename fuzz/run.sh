#!/usr/bin/env bash
# fuzz/run.sh NAME SECONDS: run fuzz/bin/fuzz_NAME for SECONDS, seeded from
# the repository's corpus. What it finds (its growing corpus, crash-* and
# leak-* inputs) goes to $FUZZ_DIR/NAME, never into the repository.
# Prints libFuzzer's final stats; exits non-zero when it found something.
set -u
cd "$(dirname "$0")/.." || exit 2
name=$1 seconds=$2
dir=${FUZZ_DIR:-/tmp/lab-fuzz}/$name
mkdir -p "$dir/corpus"
case $name in
topology) seeds=(tests/corpus/topologies topologies) max_len=8192 ;;
console) seeds=(tests/corpus/consoles tests/unit/consoles) max_len=16384 ;;
results) seeds=(tests/corpus/results tests/unit/runs) max_len=16384 ;;
hosts) seeds=(tests/corpus/hosts) max_len=4096 ;;
stress) seeds=(tests/corpus/stress) max_len=16384 ;;
*) echo "fuzz/run.sh: no fuzzer '$name'" >&2; exit 2 ;;
esac
dict=()
[ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
# -close_fd_mask=2: the loaders' own error messages would drown the stats
# (libFuzzer keeps its own stderr for what it reports)
"fuzz/bin/fuzz_$name" -max_total_time="$seconds" -timeout=10 \
	-rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 \
	-close_fd_mask=2 -artifact_prefix="$dir/" "${dict[@]}" \
	"$dir/corpus" "${seeds[@]}" 2>&1 |
	grep -v -e '^#[0-9]' -e '^INFO: ' -e '^MERGE' -e '^\s*$' -e '^"' -e 'recommended dictionary'
rc=${PIPESTATUS[0]}
echo "fuzz $name: exit $rc; corpus and findings in $dir"
exit "$rc"
