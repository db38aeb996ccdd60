#!/usr/bin/env bash
# Builds everything and runs every test, then the ASan + UBSan subset
# (tools/asan_test.sh); prints one line per backend of the CI matrix, then
# ends with "N passed, N failed" (test targets of both runs) and exits
# non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

log=$(mktemp)
# --keep_going: one broken target must not hide the results of the others.
# --nocache_test_results: every test really runs (builds still come from the
# disk cache); the whole suite takes under a minute on 2 cores.
bazel test //... --keep_going --nocache_test_results --test_summary=short 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FLAKY)' "$log")
cases=$(find -L bazel-testlogs/ -name test.xml 2>/dev/null | xargs -r grep -ho '<testcase ' | wc -l)
echo "test cases (gtest) in the logs: ${cases}"
# The CI matrix (tests/backend_matrix.bzl): suites named <suite>__<backend>,
# one summary line per backend.
bash tools/backend_summary.sh "$log"
rm -f "$log"
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi  # build or infra failure

# The ASan + UBSan subset (fuzz corpora and the parser suites; see the
# script's header). Its outputs have their own folder and the disk cache, so a
# warm run costs little; OXINFER_SKIP_ASAN=1 leaves it out for a quick local run.
if [ "${OXINFER_SKIP_ASAN:-0}" != 1 ]; then
  asan_log=$(mktemp)
  bash tools/asan_test.sh 2>&1 | tee "$asan_log"
  asan_status=${PIPESTATUS[0]}
  read -r asan_passed asan_failed < <(sed -nE 's/^asan: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$asan_log")
  rm -f "$asan_log"
  if [ -z "${asan_passed:-}" ]; then asan_passed=0; asan_failed=1; fi
  if [ "$asan_status" -ne 0 ] && [ "$asan_failed" -eq 0 ]; then asan_failed=1; fi
  passed=$((passed + asan_passed))
  failed=$((failed + asan_failed))
  [ "$asan_status" -eq 0 ] || status=1
fi
echo "${passed} passed, ${failed} failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
