#!/usr/bin/env bash
# Builds everything and runs every test; prints one line per backend of the
# CI matrix, then ends with "N passed, N failed" (test targets) and exits
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
echo "${passed} passed, ${failed} failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
