#!/usr/bin/env bash
# Makes the harness's own Python: a venv at $VENV (default /work/venvs/peers) with the pinned
# requirements.txt beside this script. Never the system Python. Idempotent: reinstalls only
# when requirements.txt changed. Prints the venv's python on its last line.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VENV=${VENV:-/work/venvs/peers}
REQ=$HERE/requirements.txt
PY=${PYTHON:-python3}
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
stamp=$VENV/.peers-requirements.sha256
want=$(sha256sum "$REQ" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  # torch from PyPI brings its CUDA libraries (a few GB); nothing here uses a GPU.
  nice -n 19 "$VENV/bin/pip" install --disable-pip-version-check -q -r "$REQ" >&2
  echo "$want" > "$stamp"
fi
echo "$VENV/bin/python"
