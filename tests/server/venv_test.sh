#!/usr/bin/env bash
# venv_test.sh TIMEOUT_S SCRIPT.py ARGS...: runs a client test with the pinned
# openai client from the venv that tools/setup.sh makes; the script resolves
# its own arguments.
set -euo pipefail
venv=/opt/oxinfer/test-venv
here=$(dirname "$(readlink -f "$0")")
if [ ! -x "$venv/bin/python" ]; then
  echo "FAIL: $venv/bin/python is missing: run tools/setup.sh (it installs the pinned openai client)"
  exit 1
fi
if ! cmp -s "$here/requirements.txt" "$venv/requirements.txt"; then
  echo "FAIL: $venv does not hold tests/server/requirements.txt: run tools/setup.sh"
  exit 1
fi
timeout_s=$1; script=$2; shift 2
exec timeout "$timeout_s" "$venv/bin/python" -u "$here/$script" "$@"
