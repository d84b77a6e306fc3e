#!/usr/bin/env bash
# install-pyiceberg.sh — create (once) a Python venv holding a pinned pyiceberg,
# the independent Iceberg REST client katbench's interop test drives, and print
# the venv's python path on stdout (the only line on stdout).
#
# The venv lives under ${KATBENCH_CACHE:-$HOME/.cache/katbench}/pyiceberg-venv
# so repeated runs cost nothing. pyarrow comes with it (pyiceberg's pyarrow
# extra): the data-plane interop test reads Parquet data files katbench wrote.
set -euo pipefail

PYICEBERG_VERSION="${PYICEBERG_VERSION:-0.12.0}"
CACHE="${KATBENCH_CACHE:-$HOME/.cache/katbench}"
VENV="$CACHE/pyiceberg-venv"
PY="${PYTHON:-python3}"

if ! command -v "$PY" >/dev/null 2>&1; then
	echo "install-pyiceberg: $PY not found" >&2
	exit 1
fi

if [ -x "$VENV/bin/python" ] &&
	"$VENV/bin/python" -c "import pyarrow, pyiceberg, sys; sys.exit(0 if pyiceberg.__version__ == '$PYICEBERG_VERSION' else 1)" 2>/dev/null; then
	echo "$VENV/bin/python"
	exit 0
fi

mkdir -p "$CACHE"
# One installer at a time: a second caller (setup and a test starting at once)
# waits here, then finds the venv ready instead of removing it mid-install.
exec 9>"$CACHE/pyiceberg-venv.lock"
flock 9
if [ -x "$VENV/bin/python" ] &&
	"$VENV/bin/python" -c "import pyarrow, pyiceberg, sys; sys.exit(0 if pyiceberg.__version__ == '$PYICEBERG_VERSION' else 1)" 2>/dev/null; then
	echo "$VENV/bin/python"
	exit 0
fi
rm -rf "$VENV"
"$PY" -m venv "$VENV" >&2
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
	"pyiceberg[pyarrow]==$PYICEBERG_VERSION" >&2
"$VENV/bin/python" -c "import pyarrow, pyiceberg.catalog.rest" >&2
echo "$VENV/bin/python"
