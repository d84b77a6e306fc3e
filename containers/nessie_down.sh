#!/usr/bin/env bash
# nessie_down.sh — stop the Nessie that nessie_up.sh started (and its versitygw, if it started that).
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=nessie_down
# shellcheck source=lib.sh
. "$HERE/lib.sh"

kb_usage_if_help "usage: nessie_down.sh

Stops the Nessie recorded in \$KATBENCH_STATE_DIR/nessie (process: TERM, then
KILL after 15s; container: docker rm -f) and removes its state. When
nessie_up.sh started the versitygw holding the warehouse, stops that too (and
with it the bucket); a versitygw it reused keeps running, and the bucket
nessie_up.sh created on it is removed if empty. Exits 0 with a note when
nothing is running." "$@"
[ $# -eq 0 ] || kb_die "unknown argument '$1' (see --help)"

state=$(kb_state_dir nessie)
if [ ! -d "$state" ]; then
	kb_log "Nessie is not running (no state in $state); nothing to do"
	exit 0
fi
started_s3=0
[ -f "$state/started-versitygw" ] && started_s3=1
created_bucket=0
[ -f "$state/created-bucket" ] && created_bucket=1
kb_down "$state" Nessie
if [ "$started_s3" = 1 ]; then
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
			"$KATBENCH_S3_ENDPOINT/katbench-nessie" || true)
		case "$code" in
		2??) kb_log "removed bucket katbench-nessie" ;;
		*) kb_log "left bucket katbench-nessie on the reused versitygw (HTTP $code; not empty?)" ;;
		esac
	fi
fi
