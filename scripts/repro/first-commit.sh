#!/usr/bin/env bash
# first-commit.sh: does an Iceberg REST catalog enforce
# assert-ref-snapshot-id with snapshot-id null ("main must not exist yet")?
#
# Creates a fresh table, then sends two commits to it one after the other,
# each adding a snapshot with sequence number 1 under the requirement
#   {"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null}
# The first must succeed. After it, main exists, so by the REST specification
# the second must be refused with 409 (CommitFailedException). A catalog that
# answers 200 to the second has replaced the first snapshot: the first
# writer's acknowledged commit is lost. Prints every request and answer, then
# the table's snapshots and refs as the catalog serves them.
#
# The snapshots' manifest lists are never written: a catalog that does not
# read them accepts the commits as they are. Bodies: first-commit-*.json
# beside this script (catalog/restserver's TestFirstCommitRequirement sends
# the same ones to katbench's REST front).
#
# usage: scripts/repro/first-commit.sh URL [WAREHOUSE]
#   eval "$(containers/nessie_up.sh)"
#   scripts/repro/first-commit.sh "$KATBENCH_NESSIE_URL" "$KATBENCH_NESSIE_WAREHOUSE"
# Exit 0 when the second commit is refused with 409, 1 when it is
# acknowledged (or anything else goes wrong), 2 for bad usage.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 || $1 == -h || $1 == --help ]]; then
	sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	[[ $# -ge 1 && ( $1 == -h || $1 == --help ) ]] && exit 0
	exit 2
fi
base=${1%/}
warehouse=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
ns=katbench_repro
tbl=first_commit_$(date +%s)_$$

# req METHOD PATH [BODY]: prints the request and the answer; sets code, body.
req() {
	local method=$1 path=$2 data=${3:-} out
	echo ">>> $method $path"
	[[ -n $data ]] && echo "$data"
	if [[ -n $data ]]; then
		out=$(curl -sS -X "$method" -H 'Content-Type: application/json' --data-binary "$data" -w '\n%{http_code}' "$base$path")
	else
		out=$(curl -sS -X "$method" -w '\n%{http_code}' "$base$path")
	fi
	code=${out##*$'\n'}
	body=${out%$'\n'*}
	echo "<<< $code"
	echo "$body"
	echo
}

req GET "/v1/config${warehouse:+?warehouse=$warehouse}"
[[ $code == 200 ]] || { echo "first-commit: GET /v1/config answered $code" >&2; exit 1; }
prefix=$(grep -o '"prefix" *: *"[^"]*"' <<<"$body" | head -1 | sed 's/.*"\([^"]*\)"$/\1/' || true)
v1=/v1${prefix:+/$prefix}

req POST "$v1/namespaces" "{\"namespace\":[\"$ns\"]}"
[[ $code == 200 || $code == 409 ]] || { echo "first-commit: create namespace answered $code" >&2; exit 1; }

req POST "$v1/namespaces/$ns/tables" "$(sed "s/@TABLE@/$tbl/" "$here/first-commit-create.json")"
[[ $code == 200 ]] || { echo "first-commit: create table answered $code" >&2; exit 1; }
location=$(grep -o '"location" *: *"[^"]*"' <<<"$body" | head -1 | sed 's/.*"\([^"]*\)"$/\1/')

commit() { # commit WRITER SNAPSHOT-ID [ASSERTED-MAIN]
	req POST "$v1/namespaces/$ns/tables/$tbl" "$(sed -e "s|@LOCATION@|$location|g" -e "s/@SNAPSHOT@/$2/g" \
		-e "s/@WRITER@/$1/" -e "s/@TIMESTAMP@/$(date +%s)000/" -e "s/\"snapshot-id\":null/\"snapshot-id\":${3:-null}/" "$here/first-commit-commit.json")"
}
commit A 1001
first=$code
commit B 1002
second=$code
if [[ $first == 200 && $second == 200 ]]; then
	# Control: the same requirement naming a snapshot that is no longer
	# main's head (1001, replaced) must be refused too.
	commit C 1003 1001
	echo "control (main asserted to be the replaced snapshot 1001): $code"
fi

req GET "$v1/namespaces/$ns/tables/$tbl"
flat=$(tr -d ' \n' <<<"$body")
echo "main served: $(grep -o '"refs":{"main":{[^}]*}' <<<"$flat" || echo none)"
echo "snapshots served: $(grep -o '"snapshots":\[[^]]*\]' <<<"$flat" || echo none)"

echo "first commit: $first; second commit (main already exists): $second"
if [[ $first != 200 ]]; then
	echo "first-commit: the first commit was not acknowledged ($first); nothing shown" >&2
	exit 1
elif [[ $second == 409 ]]; then
	echo "enforced: the second commit was refused, as the REST specification requires"
	exit 0
elif [[ $second == 200 ]]; then
	echo "NOT ENFORCED: the second commit was acknowledged although main already existed; the first commit (snapshot 1001) was replaced"
	exit 1
fi
echo "first-commit: the second commit answered $second" >&2
exit 1
