#!/usr/bin/env bash
# Builds a fuzz target with clang + libFuzzer + AddressSanitizer (+UBSan) and
# runs it. Bazel's toolchain here is gcc, so this compiles directly.
#
#   fuzz/build_and_run.sh                 # the safetensors header parser, 1,000,000 runs
#   fuzz/build_and_run.sh json            # the json_parse host service
#   fuzz/build_and_run.sh hub_model_info  # the Hub's model-info answers
#   RUNS=5000000 fuzz/build_and_run.sh
#   MAX_TIME=600 RUNS=-1 fuzz/build_and_run.sh json
#
# New inputs go to $WORK/corpus (not the committed seed corpus); crashes to
# $WORK/crash-*. Needs clang-14 and libclang-rt-14-dev (Debian 12).
set -euo pipefail

cd "$(dirname "$0")/.."
TARGET="${1:-safetensors}"
case "$TARGET" in
  safetensors)
    NAME=safetensors_header_fuzzer
    SRCS=(fuzz/safetensors_header_fuzzer.cc core/safetensors.cc core/tensor.cc
      core/mapped_file.cc core/json_util.cc)
    MAX_LEN=4096 ;;
  json)
    NAME=json_document_fuzzer
    SRCS=(fuzz/json_document_fuzzer.cc core/host/json.cc core/json_util.cc)
    MAX_LEN=8192 ;;
  hub_model_info)
    NAME=hub_model_info_fuzzer
    SRCS=(fuzz/hub_model_info_fuzzer.cc core/hub/model_info.cc core/hub/file_selection.cc
      core/hub/repo_spec.cc core/json_util.cc)
    MAX_LEN=8192 ;;
  *) echo "unknown fuzz target '$TARGET' (safetensors, json, hub_model_info)" >&2; exit 2 ;;
esac
CXX="${CXX:-clang++-14}"
WORK="${WORK:-/tmp/oxinfer-fuzz}/$TARGET"
RUNS="${RUNS:-1000000}"
MAX_TIME="${MAX_TIME:-0}"
mkdir -p "$WORK/corpus"

ABSL_LIBS=(absl_status absl_statusor absl_strings absl_strings_internal absl_str_format_internal
  absl_cord absl_cord_internal absl_cordz_info absl_cordz_functions absl_cordz_handle
  absl_int128 absl_raw_logging_internal absl_throw_delegate absl_base absl_spinlock_wait
  absl_hash absl_city absl_low_level_hash absl_raw_hash_set)

"$CXX" -std=c++17 -O1 -g -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I. -Icore/sdk/include "${SRCS[@]}" -o "$WORK/$NAME" "${ABSL_LIBS[@]/#/-l}"

echo "built $WORK/$NAME"
"$WORK/$NAME" -runs="$RUNS" -max_total_time="$MAX_TIME" -max_len="$MAX_LEN" \
  -print_final_stats=1 -artifact_prefix="$WORK/" \
  "$WORK/corpus" "fuzz/corpus/$TARGET"
