#!/usr/bin/env bash
# openai_images_test.py on the tiny SD fixture.
set -euo pipefail
venv=/opt/oxinfer/test-venv
here=$(dirname "$(readlink -f "$0")")
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$here/requirements.txt" "$venv/requirements.txt"; then
  echo "FAIL: $venv does not hold tests/server/requirements.txt: run tools/setup.sh"
  exit 1
fi
server=$(readlink -f "$1"); sd=$(readlink -f "$2"); shift 2
plugin_dirs=""
for so in "$@"; do plugin_dirs="${plugin_dirs:+$plugin_dirs:}$(dirname "$(readlink -f "$so")")"; done
cd "$here"
exec timeout 300 "$venv/bin/python" -u openai_images_test.py "$server" "$sd" "$plugin_dirs"
