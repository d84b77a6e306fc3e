#!/usr/bin/env bash
# shellcheck disable=SC2317 # every table function is called by its name, "${t//-/_}", which shellcheck cannot follow
# readme-runs.sh — re-measure the result tables of README.md and
# docs/results.md, one run per label, recorded with
# --history bench_history.jsonl --label NAME from a clean build of HEAD.
#
#   scripts/readme-runs.sh [NAME...]     # default: every label, in this order
#
# Labels: peers fronts rest-vs-rest writes transport-versitygw
# transport-minio transport-rustfs transport-close transport-load data-versitygw
# data-minio open-3000 open-7500 capacity-read capacity-write capacity-read-1s
# capacity-read-deployed capacity-read-1s-deployed history-depth history-depth-rest crawl-10k
# crawl-10k-deployed crawl-10k-fixture-pg crawl-2k-deployed
# discovery writes-quiet writes-neighbour sigv4-cost sizing-peers verify-reach verify-kill-grpc verify-kill-postgres-sql verify-kill-postgres-nessie verify-nessie-pg verify-kill-fixture-pg verify-kill-polaris-pg verify-kill-nessie-rocks rustberg-deployed catalogs-deployed capacity-read-rustberg
# history-depth-rustberg transport-floor-versitygw
# transport-floor-minio transport-floor-rustfs transport-floor-one-p, and some that are not one run:
# transport-rate-waits (four runs, transport-rate-wait-WAIT), s3-warehouse
# (nine runs, labelled s3-warehouse), transport-c64-STORE (four runs per
# store: transport-c64-STORE[-hold], transport-rate-STORE[-hold]),
# syscalls (perf or strace counts, printed, not recorded), floor-check
# (the floor's CPU by perf's task clock, printed, not recorded) and
# cpu-clocks (what getrusage and perf's task clock each charge for a
# context switch, scripts/cpu-clocks.c; printed, not recorded). Each starts the servers it needs (containers/*_up.sh, state in
# KATBENCH_STATE_DIR, default a dir of its own) and stops them after.
#
# A table marker <!-- katbench:table NAME --> shows the newest run labelled
# NAME, so after the runs `katbench readme` regenerates the tables; nobody
# edits a marker. Run it on a quiet machine: every number is compared within
# one run, but a busy machine still moves the ratios (docs/methodology.md).
# The binary is built from HEAD into a temp dir; a dirty work tree is
# refused, because every line records the commit it was measured on and a
# dirty one cannot be reproduced. READMERUNS_HISTORY names another history
# file (a scratch one, to try a recipe without recording it).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "$(git status --porcelain)" ]; then
	echo "readme-runs: the work tree is dirty (git status); commit first, so every line names a reproducible commit" >&2
	exit 2
fi
export KATBENCH_STATE_DIR=${KATBENCH_STATE_DIR:-/tmp/katbench-readme-runs}
bin=$(mktemp -d)/katbench
go build -buildvcs=true -o "$bin" ./cmd/katbench # stamp the commit (GOFLAGS may say -buildvcs=false)
hist=${READMERUNS_HISTORY:-bench_history.jsonl}
log=${READMERUNS_LOG:-/tmp/readme-runs.log}

failed=()

# kb LABEL ARGS... runs katbench ARGS (output to $log), records its lines
# with --label LABEL and prints the run id of the lines it added. A run that
# exits non-zero (failed operations make a run red) is reported and
# remembered: the script goes on with the next table and exits 1 at the end.
kb() {
	local label=$1 before after rc=0
	shift
	before=$(wc -l <"$hist")
	echo "== $(date -u +%H:%M:%S) katbench $* --label $label" | tee -a "$log" >&2
	"$bin" "$@" --history "$hist" --label "$label" >>"$log" 2>&1 || rc=$?
	after=$(wc -l <"$hist")
	echo "   exit $rc, run $(tail -n 1 "$hist" | sed -E 's/.*"run_id":"([0-9a-f]+)".*/\1/') ($((after - before)) lines)" | tee -a "$log" >&2
	[ "$rc" -eq 0 ] && [ "$after" -gt "$before" ] || failed+=("katbench $* (exit $rc)")
}

# up starts a server (a no-op when it already runs) and remembers it, so
# whatever is still up when the script ends is stopped; down stops one now.
started=()
# A store variant (up nessie --store jdbc) is remembered with its --store,
# so down stops that variant.
up() {
	eval "$("containers/$1_up.sh" "${@:2}")"
	if [ "${2:-}" = --store ]; then started+=("$1 --store $3"); else started+=("$1"); fi
}
down() { "containers/$1_down.sh" "${@:2}" >/dev/null 2>&1 || true; }
stop_started() {
	local s
	# shellcheck disable=SC2086 # "NAME --store S" splits into its words
	for s in "${started[@]}"; do down $s; done
}
trap stop_started EXIT

reads='control.latency,load_table.*,resolve_metadata.latency,table_exists.latency,create_table.latency,commit_table.latency'

peers() {
	kb peers run embedded sql sql-wal --rounds 3 --threads 1,2,8,32 \
		--scenario "$reads,create_table.durability.immediate,create_table.durability.eventual,create_table.durability.none"
}
fronts() { kb fronts run embedded rest grpc --rounds 3 --threads 1,8,16,32 --scenario "$reads"; }
# What SigV4 costs on the user's path (docs/security.md): rest beside itself signed and verified.
sigv4_cost() {
	kb sigv4-cost run rest rest-sigv4 --tables 1000 --rounds 9 --threads 8 --ops 5000 --duration 3s --warmup 1s \
		--scenario load_table.latency,load_table.throughput.t8
}
# The servers users run, grown to 100k tables beside our front, each setup
# bounded to 9 minutes (README, docs/sizing.md).
sizing_peers() {
	deployed
	kb sizing-peers run rest polaris-pg nessie-pg nessie-rocks fixture-pg sql-pg \
		--tables 1k,10k,100k --setup-budget 9m --setup-parallel 8 \
		--scenario load_table.latency,list_tables.first_page.latency,list_tables.latency,create_table.latency \
		--ops 500 --create-ops 100 --allow-errors
}
# Commit safety (docs/verify.md): the servers checked under contention
# only, our gRPC server crashed, and PostgreSQL crashed under two catalogs
# (restarted on its own data by postgres_restart.sh).
verify_reach() {
	up postgres
	up polaris
	up rustberg
	up rustberg --store postgres
	kb verify-reach verify polaris rustberg rustberg-pg rest-sigv4 --writers 1,16,64 --tables 1
}
verify_kill_grpc() { kb verify-kill-grpc verify grpc --writers 16 --duration 60s --kill-every 2s --seed 2; }
verify_nessie_pg() {
	up postgres
	up nessie --store jdbc
	kb verify-nessie-pg verify nessie-pg --writers 1,16,64 --tables 1
}
verify_kill_fixture_pg() {
	up postgres
	up fixture --store postgres
	kb verify-kill-fixture-pg verify fixture-pg --writers 4 --duration 90s --kill-every 20s --seed 3 \
		--kill-pid-file "$KATBENCH_STATE_DIR/fixture-pg/pid" --restart 'containers/fixture_up.sh --store postgres'
}
verify_kill_polaris_pg() {
	up postgres
	up polaris --store postgres
	kb verify-kill-polaris-pg verify polaris-pg --writers 4 --duration 90s --kill-every 30s --seed 3 \
		--kill-pid-file "$KATBENCH_STATE_DIR/polaris-pg/pid" --restart 'containers/polaris_up.sh --store postgres'
}
verify_kill_nessie_rocks() {
	up nessie --store rocksdb
	kb verify-kill-nessie-rocks verify nessie-rocks --writers 1 --duration 90s --kill-every 30s --seed 3 \
		--kill-pid-file "$KATBENCH_STATE_DIR/nessie-rocks/pid" --restart 'containers/nessie_up.sh --store rocksdb'
}
verify_kill_postgres_sql() {
	up postgres
	kb verify-kill-postgres-sql verify sql-pg --writers 4 --duration 60s --kill-every 5s --seed 7 \
		--kill-pid-file "$KATBENCH_STATE_DIR/postgres/pid" --restart containers/postgres_restart.sh
}
verify_kill_postgres_nessie() {
	up postgres
	up nessie --store jdbc
	kb verify-kill-postgres-nessie verify nessie-pg --writers 4 --duration 60s --kill-every 5s --seed 7 \
		--kill-pid-file "$KATBENCH_STATE_DIR/postgres/pid" --restart containers/postgres_restart.sh
}
# Rustberg on redb and on PostgreSQL beside our front (docs/catalogs.md).
rustberg_deployed() {
	up postgres
	up rustberg
	up rustberg --store postgres
	kb rustberg-deployed run rest rustberg rustberg-pg --quick --rounds 3 --allow-errors
}
# Rustberg's capacity and history depth beside our front (docs/catalogs.md).
capacity_read_rustberg() {
	up postgres
	up rustberg
	up rustberg --store postgres
	capacity capacity-read-rustberg read-heavy rest rustberg rustberg-pg --slo 'p99<=50ms'
}
history_depth_rustberg() {
	up postgres
	up rustberg
	up rustberg --store postgres
	kb history-depth-rustberg run rest rustberg rustberg-pg --quick --snapshots 0,100,1000 --allow-errors
}
# rest-vs-rest and writes share the JVM servers: the first starts them, the
# writes table stops them (or the exit does).
jvms() {
	up fixture
	up nessie
	up polaris
}
rest_vs_rest() {
	jvms
	kb rest-vs-rest run embedded rest fixture nessie polaris --quick --rounds 3 --threads 1,8,32 --scenario "$reads"
}
writes() {
	jvms
	kb writes run embedded sql rest grpc fixture nessie polaris --quick --rounds 3 --threads 1,8,32 --duration 2s \
		--scenario 'create_table.throughput.*,commit_table.throughput.*,commit_table.contended.*'
	down polaris
	down nessie
	down fixture
}
transport_versitygw() {
	up versitygw --port 17457
	kb transport-versitygw transport "$KATBENCH_S3_ENDPOINT" --s3-ops head,get,put --sizes 4KiB,1MiB --concurrency 1,8 --iterations 4000
	down versitygw
}
transport_minio() {
	up minio --port 9100
	kb transport-minio transport "$KATBENCH_S3_ENDPOINT" --control=false --s3-ops head,get,put --sizes 4KiB,1MiB --concurrency 1,8 --iterations 4000
	down minio
}
transport_rustfs() {
	up rustfs --port 19200
	kb transport-rustfs transport "$KATBENCH_S3_ENDPOINT" --control=false --s3-ops head,get,put --sizes 4KiB,1MiB --concurrency 1,8 --iterations 1000
	down rustfs
}
transport_close() { kb transport-close transport --keep-alive=false --s3-ops head,get --sizes 4KiB --concurrency 1,8 --iterations 3000; }
transport_load() {
	up versitygw --port 17457
	kb transport-load transport "$KATBENCH_S3_ENDPOINT" --background-load --s3-ops head,get --sizes 4KiB --concurrency 1,8 --iterations 3000
	down versitygw
}
data_store() {
	kb "$1" data embedded --s3-endpoint "$KATBENCH_S3_ENDPOINT" --warehouse s3://katbench/data --rows 500k --rounds 4 \
		--commit-ops 40 --target-file-size 64MiB
}
data_versitygw() {
	up versitygw --port 17457
	data_store data-versitygw
	down versitygw
}
data_minio() {
	up minio --port 9100
	data_store data-minio
	down minio
}
s3_warehouse() {
	up versitygw --port 17457
	local common=(embedded --peer '' --quick --scenario 'create_table.latency,commit_table.latency' --create-ops 300)
	for r in 1 2 3; do
		kb s3-warehouse "${common[@]}"
		kb s3-warehouse "${common[@]}" --warehouse "s3://kbwh/r$r-http" --transport http
		kb s3-warehouse "${common[@]}" --warehouse "s3://kbwh/r$r-uring" --transport uring
	done
	down versitygw
}
# open-3000, open-7500: closed-loop service time beside open-loop latency at
# a fixed arrival rate, our REST front in-process.
open_rate() {
	kb "open-$1" run rest --quick --rate "$1" --duration 3s \
		--scenario 'control.latency,table_exists.latency,load_table.latency,load_table.throughput.t1,open.*'
}
open_3000() { open_rate 3000; }
open_7500() { open_rate 7500; }

# capacity-*: the open-loop capacity search of docs/workloads.md, every
# target interleaved step by step; -deployed on the durable stores.
capacity() {
	kb "$1" capacity "${@:3}" --mix "$2" --quick --step-duration 2s --step-ops 500
}
deployed() {
	up postgres
	up fixture --store postgres
	up nessie --store jdbc
	up nessie --store rocksdb
	up polaris --store postgres
}
# catalogs-deployed: the README's table of deployed catalogs, every
# server beside our front, Rustberg (not on the JVM, not ours) included.
catalogs_deployed() {
	jvms
	deployed
	up rustberg
	up rustberg --store postgres
	kb catalogs-deployed run rest nessie nessie-pg nessie-rocks polaris polaris-pg fixture fixture-pg sql sql-pg rustberg rustberg-pg \
		--quick --rounds 3 --threads 8 --ops 300 --create-ops 50 --allow-errors \
		--scenario load_table.latency,load_table.throughput.t8,create_table.latency,commit_table.latency
}
capacity_read() { jvms; capacity capacity-read read-heavy embedded rest grpc nessie polaris fixture --slo 'p99<=50ms'; }
capacity_write() { jvms; capacity capacity-write write-heavy embedded rest grpc nessie polaris fixture --slo 'p99<=200ms'; }
capacity_read_1s() { jvms; capacity capacity-read-1s read-heavy embedded rest grpc nessie polaris fixture --slo 'p99<=1s'; }
capacity_read_deployed() {
	deployed
	capacity capacity-read-deployed read-heavy rest sql-pg nessie-pg nessie-rocks polaris-pg fixture-pg --slo 'p99<=50ms'
}
capacity_read_1s_deployed() {
	deployed
	capacity capacity-read-1s-deployed read-heavy rest sql-pg nessie-pg nessie-rocks polaris-pg fixture-pg --slo 'p99<=1s'
}
# history-depth: docs/history.md, every in-memory server beside ours.
history_depth() { jvms; kb history-depth run embedded rest grpc nessie polaris fixture --quick --snapshots 0,100,1000; }
# history-depth-rest: our REST front's direct load and revalidation at 0
# and 1,000 snapshots, seven interleaved rounds (docs/history.md).
history_depth_rest() {
	kb history-depth-rest run rest --quick --snapshots 0,1000 --rounds 7 \
		--scenario 'load_table.direct.latency,load_table.revalidate.latency'
}
# crawl-10k: the crawl of docs/discovery.md at 10,000 tables, our REST
# front beside Nessie, with its floor
# (load_table.direct: as many loads as the crawl makes, as raw GETs whose
# answers are read but not decoded) and the same loads through the client.
crawl_10k() {
	up nessie
	kb crawl-10k run rest nessie --quick --tables 10000 --ops 10000 \
		--scenario 'catalog_crawl,load_table.latency,load_table.direct.latency'
}
# crawl-10k-deployed: the same crawl on Polaris and every durable server.
# Building 10,000 tables on each takes the most time (tens of minutes on
# 2 cores: a create on polaris-pg is ~0.15 s). Polaris answered about
# 31 ms per call at a load average of 7-11 (1,000 tables), so its crawl of
# 10,000 takes about 5 minutes.
crawl_10k_deployed() {
	up polaris
	deployed
	kb crawl-10k-deployed run rest polaris nessie-pg nessie-rocks polaris-pg fixture-pg sql-pg --quick --tables 10000 --ops 10000 \
		--scenario 'catalog_crawl,load_table.latency,load_table.direct.latency'
}
# crawl-10k-fixture-pg: the 10,000-table crawl on the durable server
# nearest to our front at 2,000 tables, Apache's fixture on PostgreSQL
# (its setup takes minutes, not the tens of minutes of all of them).
crawl_10k_fixture_pg() {
	up postgres
	up fixture --store postgres
	kb crawl-10k-fixture-pg run rest fixture-pg --quick --tables 10000 --ops 10000 \
		--scenario 'catalog_crawl,load_table.latency,load_table.direct.latency'
}
# crawl-2k-deployed: the same at 2,000 tables, a size whose setup fits in
# a quarter of an hour here.
crawl_2k_deployed() {
	up polaris
	deployed
	kb crawl-2k-deployed run rest polaris nessie-pg nessie-rocks polaris-pg fixture-pg sql-pg --quick --tables 2000 --ops 2000 \
		--scenario 'catalog_crawl,load_table.latency,load_table.direct.latency'
}
discovery() {
	jvms
	deployed
	kb discovery run embedded rest grpc nessie polaris fixture sql-pg nessie-pg nessie-rocks polaris-pg fixture-pg --quick --rounds 3 \
		--scenario 'list_namespaces.latency,list_tables.latency,namespace_exists.latency,load_namespace.latency,update_namespace_properties.latency,create_view.latency,load_view.latency,view_exists.latency,list_views.latency,replace_view.latency,load_table.revalidate.latency'
}
# writes-quiet and writes-neighbour: docs/writes.md, the catalog beside its
# floor in every flush mode, alone and beside a 1 GiB neighbour.
writes_floor() {
	kb "$1" run embedded --scenario 'create_table.throughput.*,commit_table.throughput.*,create_table.flush.*,commit_table.flush.*' \
		--threads 1,8,32 --tables 50 --duration 2s --warmup 1s --rounds 3 "${@:2}"
}
writes_quiet() { writes_floor writes-quiet; }
writes_neighbour() { writes_floor writes-neighbour --background-io 1GiB; }
# transport-c64-STORE[-hold]: docs/transport.md, c64 and c256 closed loop,
# the shared ring (KATBENCH_URING_WAIT=shared) and the private ring's hold
# wait; transport-rate-STORE[-hold]: a fixed offered rate at c64.
# only_store STORE PORT stops the catalog servers another table left up
# (nothing else on the cores, and no store of theirs, Nessie's versitygw,
# answering for this one) and starts STORE on PORT.
only_store() {
	down polaris
	down fixture
	down nessie
	up "$1" --port "$2"
}
transport_many() {
	local store=$1 port=$2 w label
	only_store "$store" "$port"
	for w in shared hold; do
		label=transport-c64-$store
		[ "$w" = hold ] && label+=-hold
		KATBENCH_URING_WAIT=$w kb "$label" transport "$KATBENCH_S3_ENDPOINT" --control=false \
			--s3-ops head,get --sizes 4KiB --concurrency 64,256 --iterations 6000 --rounds 10
		KATBENCH_URING_WAIT=$w kb "${label/c64/rate}" transport "$KATBENCH_S3_ENDPOINT" --control=false \
			--s3-ops head,get --sizes 4KiB --concurrency 64 --iterations 4000 --rounds 5 --rate 50%,75% --duration 10s
	done
	down "$store"
}
transport_c64_versitygw() { transport_many versitygw 17171; }
transport_c64_minio() { transport_many minio 19100; }
transport_c64_rustfs() { transport_many rustfs 19200; }
# transport-floor-STORE: docs/transport.md, the fixed offered rate at c64
# in the default wait with the floor lane (--floor) beside the transports:
# the lowest CPU per request any transport could reach in that run.
transport_floor() {
	local store=$1 port=$2
	only_store "$store" "$port"
	kb "transport-floor-$store" transport "$KATBENCH_S3_ENDPOINT" --control=false --floor \
		--s3-ops head,get --sizes 4KiB --concurrency 64 --iterations 4000 --rounds 5 --rate 50%,75% --duration 10s
	down "$store"
}
# transport-rate-waits: docs/transport.md, HEAD at c64 and a fixed rate on
# versitygw in each private-ring wait, one run per wait, labelled
# transport-rate-wait-WAIT.
transport_rate_waits() {
	local w
	only_store versitygw 17171
	for w in hold block adaptive poll; do
		KATBENCH_URING_WAIT=$w kb "transport-rate-wait-$w" transport "$KATBENCH_S3_ENDPOINT" --control=false --floor \
			--s3-ops head --concurrency 64 --iterations 4000 --rounds 5 --rate 50%,75% --duration 10s
	done
	down versitygw
}
transport_floor_versitygw() { transport_floor versitygw 17171; }
transport_floor_minio() { transport_floor minio 19100; }
transport_floor_rustfs() { transport_floor rustfs 19200; }
# transport-floor-one-p: transport-floor-versitygw with the client on one
# P (GOMAXPROCS=1; its lines carry host.gomaxprocs): no second P for the
# scheduler to wake, so no cross-core hand-off inside the client.
transport_floor_one_p() {
	only_store versitygw 17171
	GOMAXPROCS=1 kb transport-floor-one-p transport "$KATBENCH_S3_ENDPOINT" --control=false --floor \
		--s3-ops head,get --sizes 4KiB --concurrency 64 --iterations 4000 --rounds 5 --rate 50%,75% --duration 10s
	down versitygw
}

# syscalls: system calls per HEAD request of the client process (Go
# runtime calls included), from the difference of a 2,200- and a
# 200-iteration run, so setup and warm-up cancel out: counted by
# `perf stat -e raw_syscalls:sys_enter` (every thread; it barely slows the
# process) when perf can count that event, by `strace -f -c` otherwise
# (which slows every thread, inflating futex and nanosleep alike for both
# transports). Not recorded in the history: it prints a table.
syscalls() {
	up versitygw --port 17457
	local mode c n t w
	local count=syscalls_strace
	if perf stat -x, -e raw_syscalls:sys_enter -- true >/dev/null 2>&1; then
		count=syscalls_perf
	fi
	printf '| transport (%s) | c1 | c8 | c64 |\n|---|---|---|---|\n' "${count#syscalls_}"
	for mode in http uring:auto uring:poll uring:block uring:adaptive uring:hold uring:sqpoll uring:shared; do
		t=${mode%%:*}
		w= # net/http: no wait mode (katbench refuses an unknown one)
		[ "$t" = uring ] && w=${mode#*:}
		printf '| %s |' "$mode"
		for c in 1 8 64; do
			declare -A sum=()
			for n in 200 2200; do
				sum[$n]=$(KATBENCH_URING_WAIT=$w "$count" "$bin" transport "$KATBENCH_S3_ENDPOINT" --control=false --s3-ops head \
					--concurrency "$c" --iterations "$n" --rounds 1 --transports "$t" --format jsonl)
			done
			printf ' %s |' "$(awk -v a="${sum[200]}" -v b="${sum[2200]}" 'BEGIN { printf "%.2f", (b - a) / 2000 }')"
		done
		printf '\n'
	done
	down versitygw
}

# floor-check: the floor's CPU per request measured a second way, by the
# kernel's task clock instead of getrusage: three alternated pairs of
# processes offer HEAD at c64 a fixed 3,500 ops/s on both transports, one
# without and one with the floor (--floor); the difference of their
# task-clock over the floor's requests is the floor's cost. Not recorded:
# it prints a table.
floor_check() {
	need_perf floor-check || return 1
	up versitygw --port 17457
	local i a b n own
	local args=(transport "$KATBENCH_S3_ENDPOINT" --control=false --s3-ops head --concurrency 64 --iterations 200 --rounds 1
		--rate 3500 --duration 10s --format jsonl)
	printf '| pair | task-clock ms: without floor | with floor | floor requests | floor µs/request: task-clock difference | floor µs/request: its open-loop line |\n|---|---|---|---|---|---|\n'
	for i in 1 2 3; do
		a=$(task_clock /tmp/readme-runs-floor-a.jsonl "$bin" "${args[@]}")
		b=$(task_clock /tmp/readme-runs-floor-b.jsonl "$bin" "${args[@]}" --floor)
		# The floor's requests: its closed loop's measured and warm-up
		# operations, and every request its open loop completed.
		n=$(grep '"target":"floor"' /tmp/readme-runs-floor-b.jsonl | awk '
			/"loop":"open"/ { match($0, /"completed":[0-9]+/); n += substr($0, RSTART + 12, RLENGTH - 12); next }
			{ match($0, /"ops":[0-9]+/); n += substr($0, RSTART + 6, RLENGTH - 6)
			  match($0, /"warmup":[0-9]+/); n += substr($0, RSTART + 9, RLENGTH - 9) }
			END { print n }')
		own=$(grep '"target":"floor"' /tmp/readme-runs-floor-b.jsonl | grep '"loop":"open"' |
			sed -E 's/.*"cpu_us_per_op":\{"value":([0-9.]+).*/\1/')
		printf '| %d | %.0f | %.0f | %d | %s | %.1f |\n' "$i" "$a" "$b" "$n" \
			"$(awk -v a="$a" -v b="$b" -v n="$n" 'BEGIN { printf "%.1f", (b - a) * 1000 / n }')" "$own"
	done
	down versitygw
}

# cpu-clocks: the two CPU clocks floor-check compares, set beside each
# other on the simplest load that switches: scripts/cpu-clocks.c's two
# processes passing a byte back and forth, pinned to one CPU and on two,
# three runs each. Not recorded: it prints a table.
cpu_clocks() {
	need_perf cpu-clocks || return 1
	local prog i cpus ru sw tc
	prog=$(dirname "$bin")/cpu-clocks
	gcc -O2 -o "$prog" scripts/cpu-clocks.c
	printf '| CPUs | getrusage ms | perf task-clock ms | context switches | getrusage − task-clock per switch, µs |\n|---|---|---|---|---|\n'
	for cpus in 0 0,1; do
		for i in 1 2 3; do
			ru=$(taskset -c "$cpus" perf stat -x, -o /tmp/readme-runs-perf.txt -e task-clock,context-switches -- "$prog" 200000 |
				sed -E 's/getrusage ms ([0-9.]+),.*/\1/')
			tc=$(perf_count task-clock)
			sw=$(perf_count context-switches)
			printf '| %s | %.0f | %.0f | %d | %s |\n' "$cpus" "$ru" "$tc" "$sw" "$(awk -v a="$ru" -v b="$tc" -v n="$sw" 'BEGIN { printf "%.1f", (a - b) * 1000 / n }')"
		done
	done
}

# need_perf NAME says whether perf stat works here, and when it does not
# tells why table NAME cannot run.
need_perf() {
	perf stat -x, -e task-clock -- true >/dev/null 2>&1 && return 0
	echo "readme-runs: $1 needs perf stat (linux-perf)" >&2
	return 1
}

# perf_count EVENT prints EVENT's count from the last perf stat -x, -o
# /tmp/readme-runs-perf.txt.
perf_count() { awk -F, -v e="$1" '$3 == e { print $1 }' /tmp/readme-runs-perf.txt; }

# task_clock OUT CMD... runs CMD (stdout to OUT, stderr to the log) and
# prints its task-clock in ms (every thread), as perf stat counts it.
task_clock() {
	local out=$1
	shift
	perf stat -x, -o /tmp/readme-runs-perf.txt -e task-clock -- "$@" >"$out" 2>>"$log"
	perf_count task-clock
}

# syscalls_perf CMD... runs CMD (stdout discarded, stderr to the log) and
# prints the system calls its threads made, as perf stat counts them.
syscalls_perf() {
	perf stat -x, -o /tmp/readme-runs-perf.txt -e raw_syscalls:sys_enter -- "$@" >/dev/null 2>>"$log"
	perf_count raw_syscalls:sys_enter
}

# syscalls_strace CMD... is syscalls_perf with strace -f -c.
syscalls_strace() {
	strace -f -c -o /tmp/readme-runs-strace.txt "$@" >/dev/null 2>>"$log"
	awk '$NF == "total" { print $4 }' /tmp/readme-runs-strace.txt
}

all=(peers fronts rest-vs-rest writes transport-versitygw transport-minio transport-rustfs transport-close transport-load
	data-versitygw data-minio open-3000 open-7500 s3-warehouse syscalls
	capacity-read capacity-write capacity-read-1s capacity-read-deployed capacity-read-1s-deployed
	history-depth history-depth-rest crawl-10k crawl-10k-deployed crawl-10k-fixture-pg crawl-2k-deployed discovery writes-quiet writes-neighbour sigv4-cost sizing-peers verify-reach verify-kill-grpc verify-kill-postgres-sql verify-kill-postgres-nessie verify-nessie-pg verify-kill-fixture-pg verify-kill-polaris-pg verify-kill-nessie-rocks rustberg-deployed catalogs-deployed capacity-read-rustberg history-depth-rustberg transport-c64-versitygw transport-c64-minio transport-c64-rustfs
	transport-floor-versitygw transport-floor-minio transport-floor-rustfs transport-floor-one-p transport-rate-waits floor-check cpu-clocks)
# The tables named run (every table when none is) inside one { } that ends
# in exit, so bash has read all of it before the first table starts:
# editing this script during a run of an hour changes nothing in that run.
{
	[ $# -gt 0 ] || set -- "${all[@]}"
	for t in "$@"; do
		case " ${all[*]} " in *" $t "*) ;; *)
			echo "readme-runs: unknown table '$t' (tables: ${all[*]})" >&2
			exit 2
			;;
		esac
	done
	for t in "$@"; do
		# A table that fails (a server that does not start) is reported at the
		# end; the others still run.
		"${t//-/_}" || failed+=("table $t")
	done
	if [ ${#failed[@]} -gt 0 ]; then
		printf 'readme-runs: failed: %s\n' "${failed[@]}" >&2
		exit 1
	fi
	exit 0
}
