#!/usr/bin/env bash
# Runs openai_client_test.py with the pinned openai client from the venv that
# tools/setup.sh makes (OXINFER_TEST_VENV, default /opt/oxinfer/test-venv).
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
server=$(readlink -f "$1"); cli=$(readlink -f "$2"); model=$(dirname "$(readlink -f "$3")")
shift 3
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
exec timeout 600 "$venv/bin/python" -u openai_client_test.py "$server" "$cli" "$model" "$plugin_dirs"
