#!/usr/bin/env bash
# One suite on one backend of the CI matrix (tests/backend_matrix.bzl):
#   run_on_backend.sh PROBE SPEC TEST [ARGS...]
# runs TEST ARGS... when every plugin of SPEC loads on this machine; when one
# declines here (its ISA or driver is missing) it prints the marker line that
# tools/test.sh counts as skipped, with the plugin's reason, and passes.
set -uo pipefail
probe=$1 spec=$2
shift 2
verdict=$("$probe" "$spec")
rc=$?
if [ "$rc" -eq 3 ]; then
  echo "oxinfer-matrix: SKIPPED: ${verdict}"
  exit 0
fi
if [ "$rc" -ne 0 ]; then
  echo "backend ${spec}: ${verdict}" >&2
  exit 1
fi
echo "oxinfer-matrix: backend ${verdict}"
exec "$@"
