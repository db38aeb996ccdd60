#!/usr/bin/env bash
# One summary line per backend of the CI matrix (tests/backend_matrix.bzl),
# from a `bazel test` output (argument 1) and the test logs under
# bazel-testlogs/: suites named <suite>__<backend> are grouped by backend; a
# suite whose backend declined on this machine (its log has the
# "oxinfer-matrix: SKIPPED" line of tests/support/run_on_backend.sh) counts as
# skipped, with the plugin's reason.
set -uo pipefail
log=$1
declare -A passed failed skipped reason
order=()
while read -r target result; do
  backend=${target##*__}
  if [ -z "${passed[$backend]+x}" ]; then
    order+=("$backend")
    passed[$backend]=0 failed[$backend]=0 skipped[$backend]=0 reason[$backend]=""
  fi
  if [ "$result" != PASSED ]; then
    failed[$backend]=$((failed[$backend] + 1))
    continue
  fi
  pkg=${target#//}
  testlog="bazel-testlogs/${pkg%%:*}/${pkg#*:}/test.log"
  why=$(grep -m1 -h '^oxinfer-matrix: SKIPPED: ' "$testlog" 2>/dev/null)
  if [ -n "$why" ]; then
    skipped[$backend]=$((skipped[$backend] + 1))
    reason[$backend]=${why#oxinfer-matrix: SKIPPED: }
  else
    passed[$backend]=$((passed[$backend] + 1))
  fi
done < <(grep -oE '^//[^ ]+__[A-Za-z0-9_]+ +(\(cached\) )?(PASSED|FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FLAKY)' "$log" |
  sed -E 's/ +\(cached\)//; s/ +/ /' | sed -E 's/ (NO STATUS)$/ NO_STATUS/')
for backend in "${order[@]}"; do
  line="backend ${backend}: ${passed[$backend]} passed, ${failed[$backend]} failed"
  if [ "${skipped[$backend]}" -gt 0 ]; then
    line+=", ${skipped[$backend]} skipped (not on this machine: ${reason[$backend]})"
  fi
  echo "$line"
done
