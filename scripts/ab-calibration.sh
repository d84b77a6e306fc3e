#!/usr/bin/env bash
# Measures the false-alarm rate and the power of `katbench ab` on this
# machine: N A/A sessions (the same binary on both sides) and N sessions
# whose new side has a fixed per-operation slowdown injected
# (KATBENCH_TEST_DELAY_US=TARGET:US) at each of the given delays. Every
# session's lines are kept in OUTDIR; a summary line per session says how
# many cells read as regression, slower or faster.
#
#   scripts/ab-calibration.sh [-n SESSIONS] [-r RUNS] [-d "32 80"] [-t TARGET] [-o OUTDIR] [-- RUN ARGS…]
#
# Defaults: 20 sessions, 10 runs a side, delays of 32 and 80 µs on rest
# (≈ +20 % and +50 % of rest's load_table p50 with --quick on a 2-core
# VM), and the gate's scenario set on rest.
set -euo pipefail

sessions=20
runs=10
delays="32 80"
target=rest
outdir=
while getopts "n:r:d:t:o:" opt; do
	case $opt in
	n) sessions=$OPTARG ;;
	r) runs=$OPTARG ;;
	d) delays=$OPTARG ;;
	t) target=$OPTARG ;;
	o) outdir=$OPTARG ;;
	*) echo "usage: $0 [-n SESSIONS] [-r RUNS] [-d \"US …\"] [-t TARGET] [-o OUTDIR] [-- RUN ARGS…]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
if [ $# -eq 0 ]; then
	set -- run rest --quick --rounds 3 --scenario control.latency,load_table.latency,table_exists.latency
fi
runargs=("$@")
root=$(cd "$(dirname "$0")/.." && pwd)
outdir=${outdir:-$(mktemp -d /tmp/ab-calibration.XXXXXX)}
mkdir -p "$outdir"
bin=$outdir/katbench
(cd "$root" && go build -buildvcs=true -o "$bin" ./cmd/katbench) # stamp the commit (GOFLAGS may say -buildvcs=false)

# session NAME [ENV…]: one ab session, ENV added to the new side; prints
# NAME, the exit status and the verdict counts.
session() {
	local name=$1
	shift
	local envs=()
	for e in "$@"; do envs+=(--new-env "$e"); done
	local code=0
	"$bin" ab --old "$bin" --new "$bin" --runs "$runs" --cooldown 1s --max-load 0 \
		--out "$outdir/$name.jsonl" --format jsonl "${envs[@]}" -- "${runargs[@]}" \
		>"$outdir/$name.compare.jsonl" 2>"$outdir/$name.log" || code=$?
	local reg slower faster
	reg=$(grep -c '"regression":true' "$outdir/$name.compare.jsonl" || true)
	slower=$(grep -c '"verdict":"slower"' "$outdir/$name.compare.jsonl" || true)
	faster=$(grep -c '"verdict":"faster"' "$outdir/$name.compare.jsonl" || true)
	echo "$name exit=$code regressions=$reg slower=$slower faster=$faster"
}

echo "# ab calibration: $sessions sessions × $runs runs a side; delays ($target): $delays µs; lines in $outdir"
echo "# command: ${runargs[*]}"
alarms=0
for i in $(seq 1 "$sessions"); do
	r=$(session "aa-$i")
	echo "$r"
	case $r in *"regressions=0 slower=0 faster=0") ;; *) alarms=$((alarms + 1)) ;; esac
done
echo "A/A: $alarms of $sessions sessions reported a regression, slower or faster cell"
for d in $delays; do
	hits=0
	for i in $(seq 1 "$sessions"); do
		r=$(session "delay$d-$i" "KATBENCH_TEST_DELAY_US=$target:$d")
		echo "$r"
		case $r in *"exit=1 regressions=0 "*) echo "$r: the session failed without a verdict (see $outdir/delay$d-$i.log)" >&2 ;; *"exit=1 "*) hits=$((hits + 1)) ;; esac
	done
	echo "+$d µs on $target: $hits of $sessions sessions failed on a regression"
done
