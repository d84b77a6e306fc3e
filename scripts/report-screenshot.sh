#!/usr/bin/env bash
# report-screenshot.sh — opens a katbench report (katbench report -o FILE)
# in headless Chromium from Debian's packages and writes a PNG screenshot,
# so a person (or CI) can see what the page shows. Offline: every network
# feature Chromium has is switched off, and the report fetches nothing.
#
# --readme regenerates the README's picture, docs/img/report.png: the
# report of the newest run labelled LABEL (default rest-vs-rest) in
# bench_history.jsonl, or of the run docs/labels.tsv names, at 1280×720 (the runs and the throughput chart).
set -euo pipefail

usage() {
	printf 'usage: report-screenshot.sh REPORT.html OUT.png [WIDTH,HEIGHT]\n       report-screenshot.sh --readme [LABEL]\n\nWrites a PNG of REPORT.html as headless Chromium renders it (default window 1400,2400).\n--readme writes docs/img/report.png from the report of the run labelled LABEL (default rest-vs-rest).\nInstalls chromium with apt-get when missing and run as root; exits non-zero when it cannot be had\nor no PNG was written. --install-only installs (or finds) chromium and exits.\n'
}
install_only=0
case "${1:-}" in
-h | --help)
	usage
	exit 0
	;;
--install-only)
	install_only=1
	;;
--readme)
	cd "$(dirname "$0")/.."
	label=${2:-rest-vs-rest}
	run=$(grep -F "\"label\":\"$label\"" bench_history.jsonl | tail -n 1 | sed -E 's/.*"run_id":"([0-9a-f]+)".*/\1/' || true)
	[ -n "$run" ] || run=$(awk -v l="$label" '$1 == l { print $2 }' docs/labels.tsv)
	if [ -z "$run" ]; then
		echo "report-screenshot.sh: no run labelled $label in bench_history.jsonl or docs/labels.tsv" >&2
		exit 2
	fi
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	grep -F "\"run_id\":\"$run\"" bench_history.jsonl >"$work/$label.jsonl"
	go build -o "$work/katbench" ./cmd/katbench
	(cd "$work" && ./katbench report "$label.jsonl" -o report.html --title "katbench: run $run ($label)")
	mkdir -p docs/img
	# The picture is the report's throughput chart: a page that frames the
	# report opened at that section (a screenshot shows a page's top only).
	printf '<!doctype html><html><body style="margin:0"><iframe src="report.html#throughput" style="border:0;width:1280px;height:720px"></iframe></body></html>\n' >"$work/frame.html"
	"$0" "$work/frame.html" docs/img/report.png 1280,720
	exit
	;;
esac
if [ "$install_only" = 0 ] && [ $# -lt 2 ]; then
	usage >&2
	exit 2
fi
report=${1:-}
out=${2:-}
size=${3:-1400,2400}
if [ "$install_only" = 0 ] && [ ! -r "$report" ]; then
	echo "report-screenshot.sh: cannot read $report" >&2
	exit 2
fi

browser=""
for b in chromium chromium-browser; do
	if command -v "$b" >/dev/null 2>&1; then
		browser=$b
		break
	fi
done
if [ -z "$browser" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "report-screenshot.sh: installing chromium from Debian" >&2
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >&2 || true
	command -v chromium >/dev/null 2>&1 && browser=chromium
fi
if [ -z "$browser" ]; then
	echo "report-screenshot.sh: chromium is not installed (apt-get install -y chromium)" >&2
	exit 1
fi
if [ "$install_only" = 1 ]; then
	echo "report-screenshot.sh: $browser is ready" >&2
	exit 0
fi

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
abs=$(cd "$(dirname -- "$report")" && pwd)/$(basename -- "$report")
rm -f "$out"
# Chromium prints harmless dbus/GPU warnings on a headless box; keep them
# out of the way unless it fails.
if ! timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--disable-dev-shm-usage --hide-scrollbars --user-data-dir="$profile" \
	--window-size="$size" --screenshot="$out" "file://$abs" >"$profile/log" 2>&1; then
	cat "$profile/log" >&2
	echo "report-screenshot.sh: chromium failed" >&2
	exit 1
fi
if [ ! -s "$out" ]; then
	cat "$profile/log" >&2
	echo "report-screenshot.sh: no screenshot written" >&2
	exit 1
fi
echo "report-screenshot.sh: wrote $out" >&2
