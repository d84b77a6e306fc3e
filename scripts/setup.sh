#!/usr/bin/env bash
# setup.sh — the first step of `make test`: install and compile every real
# server and tool the tests use, once, with progress, before any test and its
# start timeout runs. Later runs find everything cached and take seconds.
#
# Where things go:
#   ${KATBENCH_CACHE:-$HOME/.cache/katbench}   versitygw, protoc-gen-go(-grpc),
#       the Nessie runner jar, the REST fixture's classpath, the pyiceberg venv,
#       the Polaris fast-jar, the RustFS binary, the Rustberg build
#   ~/.m2                                       Maven's own repository (Polaris'
#       build dependencies, the jars mvn fetches)
#   ~/go/pkg/mod, ~/.cache/go-build             Go modules and compiled packages
#   system-wide (apt-get, as root or via sudo)  protobuf-compiler (protoc),
#       postgresql, the shellcheck package and chromium — each only when missing
#
# Under CI=true (or KATBENCH_REQUIRE_ALL=1) a part that cannot be had fails
# this step, except RustFS: without Docker, a binary or the prebuilt seed it
# is reported as SKIPPED (its tests skip, saying why). Elsewhere a failed part
# is reported and the tests that need it skip.
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

case "${1:-}" in
-h | --help)
	sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
"") ;;
*)
	echo "setup.sh: unknown argument '$1' (see --help)" >&2
	exit 2
	;;
esac

ci=0
if [ "${CI:-}" = true ] || [ "${KATBENCH_REQUIRE_ALL:-}" = 1 ]; then ci=1; fi
log_dir=$(mktemp -d "${TMPDIR:-/tmp}/katbench-setup.XXXXXX")
trap 'rm -rf -- "$log_dir"' EXIT

steps=(
	"Go modules, compiled (first run ~4 min: iceberg-go, arrow-go, the AWS SDK)|go build ./..."
	"shellcheck (apt, system-wide, when missing)|containers/check.sh --install-only"
	"protoc (apt, system-wide, when missing) and its Go plugins|scripts/install-protoc.sh"
	"PostgreSQL (Debian's postgresql package via apt, system-wide, when missing)|containers/postgres_up.sh --install-only"
	"versitygw v1.8.0 (go install, ~5 min cold)|containers/versitygw_up.sh --install-only"
	"Nessie runner jar (Maven Central)|containers/nessie_up.sh --install-only"
	"Apache Iceberg REST fixture classpath (Maven Central)|containers/fixture_up.sh --install-only"
	"pyiceberg venv (PyPI)|scripts/install-pyiceberg.sh"
	"Apache Polaris 1.4.1 fast-jar (Maven build, 4-13 min cold)|containers/polaris_up.sh --install-only"
	"Chromium for the report screenshot (apt, system-wide, when missing)|scripts/report-screenshot.sh --install-only"
	"REST Compatibility Kit jars (iceberg-open-api 1.10.1 test fixtures, Maven Central)|mvn -B -ntp -q -f integration/rck/pom.xml dependency:go-offline"
	"RustFS 1.0.1 binary (given, cached, or seeded from ../shared/bin)|containers/rustfs_up.sh --install-only"
	"Rustberg 0.3.0 (cargo install from crates.io, ~45 min cold on a busy 2-core machine)|containers/rustberg_up.sh --install-only"
)
# Exit status of rustfs_up.sh when RustFS cannot run here at all (see
# internal/testenv.ExitUnavailable): a skip, not a failure.
unavailable=3

n=${#steps[@]}
failed=()
skipped=()
summary=()
total_start=$SECONDS
for i in "${!steps[@]}"; do
	what=${steps[$i]%%|*}
	cmd=${steps[$i]#*|}
	step_log="$log_dir/step$i.log"
	printf 'setup [%d/%d] %s\n' "$((i + 1))" "$n" "$what" >&2
	start=$SECONDS
	# shellcheck disable=SC2086 # cmd is a command line written above
	$cmd >"$step_log" 2>&1 </dev/null &
	pid=$!
	next=$((start + 30))
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		if [ "$SECONDS" -ge "$next" ]; then
			next=$((next + 30))
			last=$(grep -v '^[[:space:]]*$' "$step_log" 2>/dev/null | tail -n 1 | cut -c1-120 || true)
			printf 'setup [%d/%d]   ... %ds: %s\n' "$((i + 1))" "$n" "$((SECONDS - start))" "${last:-working}" >&2
		fi
	done
	rc=0
	wait "$pid" || rc=$?
	took=$((SECONDS - start))
	if [ "$rc" = 0 ]; then
		line="ok       ${took}s  $what"
	elif [ "$rc" = "$unavailable" ]; then
		reason=$(grep -i 'unavailable' "$step_log" | tail -n 1 | cut -c1-300)
		line="SKIPPED  ${took}s  $what: ${reason:-unavailable}"
		skipped+=("$what")
	else
		printf 'setup [%d/%d] FAILED (exit %d) after %ds; its output:\n' "$((i + 1))" "$n" "$rc" "$took" >&2
		tail -n 40 "$step_log" >&2
		line="FAILED   ${took}s  $what (exit $rc)"
		failed+=("$what")
	fi
	printf 'setup [%d/%d] %s\n' "$((i + 1))" "$n" "$line" >&2
	summary+=("$line")
done

printf '\nsetup summary (%ds):\n' "$((SECONDS - total_start))" >&2
printf '  %s\n' "${summary[@]}" >&2
if [ "${#skipped[@]}" -gt 0 ]; then
	printf 'setup: %d part(s) skipped; their tests will skip and say why\n' "${#skipped[@]}" >&2
fi
if [ "${#failed[@]}" -gt 0 ]; then
	if [ "$ci" = 1 ]; then
		printf 'setup: %d part(s) failed under CI, where every part is required\n' "${#failed[@]}" >&2
		exit 1
	fi
	printf 'setup: %d part(s) failed; the tests that need them will skip (CI=true makes this a failure)\n' "${#failed[@]}" >&2
fi
