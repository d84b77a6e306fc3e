#!/usr/bin/env bash
# nessie_down.sh — stop a Nessie that nessie_up.sh started (and its versitygw, if it started that).
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=nessie_down
# shellcheck source=lib.sh
. "$HERE/lib.sh"

kb_usage_if_help "usage: nessie_down.sh [--store memory|jdbc|rocksdb] [--keep-store]

Stops the Nessie that nessie_up.sh --store S recorded in \$KATBENCH_STATE_DIR
(nessie, nessie-pg or nessie-rocks; process: TERM, then KILL after 15s;
container: docker rm -f) and removes its state. Then empties its version
store, so the next start begins empty: --store jdbc drops and re-creates
database nessie of the running PostgreSQL (the cluster keeps running; stop it
with postgres_down.sh), --store rocksdb removes the RocksDB directory.
--keep-store leaves the version store as it is (what a failed start does).
When nessie_up.sh started the versitygw holding the warehouse, stops that too
(and with it the bucket); a versitygw it reused keeps running, and the bucket
nessie_up.sh created on it is removed if empty. Exits 0 with a note when
nothing is running." "$@"

kb_down_args memory "$@"
store=$KB_STORE
keep=$KB_KEEP
case "$store" in
memory) name=nessie ;;
jdbc) name=nessie-pg ;;
rocksdb) name=nessie-rocks ;;
*) kb_die "unknown --store '$store' (want memory, jdbc or rocksdb)" ;;
esac
bucket=katbench-$name

empty_store() {
	[ "$keep" = 0 ] || return 0
	case "$store" in
	jdbc) kb_pg_reset_db nessie ;;
	rocksdb)
		if [ -d "$(kb_state_dir nessie-rocks-store)" ]; then
			rm -rf -- "$(kb_state_dir nessie-rocks-store)"
			kb_log "removed the RocksDB version store"
		fi
		;;
	esac
}

state=$(kb_state_dir "$name")
if [ ! -d "$state" ]; then
	kb_log "Nessie ($store) is not running (no state in $state); nothing to do"
	empty_store
	exit 0
fi
started_s3=0
[ -f "$state/started-versitygw" ] && started_s3=1
created_bucket=0
[ -f "$state/created-bucket" ] && created_bucket=1
kb_down "$state" "Nessie ($store)"
empty_store
# The variants share one versitygw: while another one runs, it inherits the
# duty to stop the versitygw this one started.
heir=''
if [ "$started_s3" = 1 ]; then
	for other in nessie nessie-pg nessie-rocks; do
		[ "$other" != "$name" ] || continue
		odir=$(kb_state_dir "$other")
		if [ -d "$odir" ] && kb_pid_alive "$(kb_recorded_pid "$odir")"; then
			heir=$other
			touch "$odir/started-versitygw"
			break
		fi
	done
fi
if [ -n "$heir" ]; then
	kb_log "leaving the versitygw running for $heir, which stores in it too (its down stops it)"
elif [ "$started_s3" = 1 ]; then
	"$HERE/versitygw_down.sh"
elif [ "$created_bucket" = 1 ]; then
	s3state=$(kb_state_dir versitygw)
	if [ -f "$s3state/exports" ]; then
		# shellcheck disable=SC1091 # written by versitygw_up.sh at run time
		. "$s3state/exports"
		code=$(curl -s -o /dev/null -w '%{http_code}' -m 10 -X DELETE \
			-H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
			--aws-sigv4 "aws:amz:${AWS_REGION:-us-east-1}:s3" \
			--user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
			"$KATBENCH_S3_ENDPOINT/$bucket" || true)
		case "$code" in
		2??) kb_log "removed bucket $bucket" ;;
		*) kb_log "left bucket $bucket on the reused versitygw (HTTP $code; not empty?)" ;;
		esac
	fi
fi
