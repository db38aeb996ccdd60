#!/usr/bin/env bash
# Builds a fuzz target with clang + libFuzzer + AddressSanitizer (+UBSan) and
# runs it. Bazel's toolchain here is gcc, so this compiles directly.
#
#   fuzz/build_and_run.sh                 # the safetensors header parser, 1,000,000 runs
#   fuzz/build_and_run.sh json            # the json_parse host service
#   fuzz/build_and_run.sh jinja           # chat templates: lexer, parser, renderer (budget on)
#   fuzz/build_and_run.sh tokenizer       # tokenizer.json loading, encode, decode
#   fuzz/build_and_run.sh hub_model_info  # the Hub's model-info answers
#   fuzz/build_and_run.sh gguf            # GGUF headers and the dequantisers
#   fuzz/build_and_run.sh server_request  # the server's chat, completion and image bodies
#   fuzz/build_and_run.sh model_config    # every model family's config parsers
#   fuzz/build_and_run.sh shard_index     # model.safetensors.index.json with real shards
#   fuzz/build_and_run.sh clip_tokenizer  # the SD CLIP tokenizer: tokenizer.json, prompts
#   fuzz/build_and_run.sh quantized_metadata  # --save-quantized shards' __metadata__
#   RUNS=5000000 fuzz/build_and_run.sh
#   MAX_TIME=600 RUNS=-1 fuzz/build_and_run.sh json
#   fuzz/build_and_run.sh png             # a codec plugin's glue: png, jpeg, webp, gif,
#                                         # bmp, sndfile, ffmpeg
#
# New inputs go to $WORK/corpus (not the committed seed corpus); crashes to
# $WORK/crash-*. Needs clang-14 and libclang-rt-14-dev (Debian 12).
set -euo pipefail

cd "$(dirname "$0")/.."
TARGET="${1:-safetensors}"
LIBS=()
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
  tool_call)
    NAME=tool_call_fuzzer
    SRCS=(fuzz/tool_call_fuzzer.cc core/engine/tool_call_parser.cc core/engine/tool_call_body.cc
      core/engine/tool_call.cc core/engine/text_filters.cc core/engine/generation.cc
      core/chat/value.cc core/chat/value_json_reader.cc core/chat/value_json_writer.cc
      core/chat/value_utf8.cc)
    MAX_LEN=4096 ;;
  conversation|calculator)
    NAME=${TARGET}_fuzzer
    SRCS=(fuzz/conversation_fuzzer.cc "fuzz/${TARGET}_fuzzer_main.cc" core/engine/conversation_json.cc
      core/engine/media_reference.cc core/engine/message.cc core/engine/tool_call.cc core/mapped_file.cc
      core/builtin_tools/calculator.cc core/chat/value.cc core/chat/value_json_reader.cc
      core/chat/value_json_writer.cc core/chat/value_utf8.cc core/tokenizer/utf8.cc -lgmp)
    MAX_LEN=8192 ;;
  server_request)
    NAME=server_request_fuzzer
    SRCS=(fuzz/server_request_fuzzer.cc fuzz/server_request_fuzzer_main.cc
      tools/server/text_request.cc tools/server/image_request.cc tools/server/api_error.cc
      core/engine/conversation_json.cc core/engine/media_reference.cc core/engine/message.cc
      core/engine/tool_call.cc core/mapped_file.cc core/json_util.cc core/tokenizer/utf8.cc
      $(ls core/chat/value*.cc))
    MAX_LEN=8192 ;;
  jinja)
    NAME=jinja_template_fuzzer
    SRCS=(fuzz/jinja_template_fuzzer.cc $(ls core/chat/jinja*.cc core/chat/value*.cc))
    LIBS=(-lgmp -licuuc)
    MAX_LEN=2048 ;;
  tokenizer)
    NAME=tokenizer_json_fuzzer
    SRCS=(fuzz/tokenizer_json_fuzzer.cc $(ls core/tokenizer/*.cc core/mapped_file.cc))
    LIBS=(-licuuc -licui18n -licudata -lre2)
    MAX_LEN=16384 ;;
  hub_model_info)
    NAME=hub_model_info_fuzzer
    SRCS=(fuzz/hub_model_info_fuzzer.cc core/hub/model_info.cc core/hub/file_selection.cc
      core/hub/repo_spec.cc core/json_util.cc)
    MAX_LEN=8192 ;;
  gguf)
    NAME=gguf_header_fuzzer
    SRCS=(fuzz/gguf_header_fuzzer.cc core/gguf/gguf_file.cc core/gguf/dequantize.cc)
    MAX_LEN=4096 ;;
  model_config|clip_tokenizer)
    NAME=${TARGET}_fuzzer
    # The plugins' parsers and the host services they read files and JSON through.
    SRCS=("fuzz/${TARGET}_fuzzer.cc" fuzz/fuzz_temp_dir.cc core/host_services.cc
      $(ls core/host/*.cc) core/thread_pool.cc core/cpu_features.cc core/mapped_file.cc
      core/json_util.cc core/safetensors.cc core/tensor.cc core/quantized_format.cc
      $(ls core/gguf/*.cc core/tokenizer/*.cc) core/safetensors_writer.cc core/engine/atomic_file.cc
      $(ls plugins/models/sd/*.cc | grep -v -e sd_plugin.cc -e sd_bench.cc))
    if [ "$TARGET" = model_config ]; then
      SRCS+=(plugins/models/gemma4/gemma4_config.cc plugins/models/gemma4/gemma4_audio_features.cc
        plugins/models/gemma4/gemma4_image_preprocess.cc plugins/models/gemma4/gemma4_vision.cc
        plugins/models/gemma4/gemma4_weights.cc plugins/models/gemma4/gemma4_clipped_linear.cc
        plugins/models/qwen35/qwen35_config.cc)
    fi
    LIBS=(-lpthread -licuuc -licui18n -licudata -lre2)
    MAX_LEN=8192 ;;
  shard_index)
    NAME=shard_index_fuzzer
    SRCS=(fuzz/shard_index_fuzzer.cc fuzz/fuzz_temp_dir.cc core/safetensors.cc
      core/safetensors_writer.cc core/engine/atomic_file.cc core/tensor.cc core/mapped_file.cc
      core/json_util.cc)
    MAX_LEN=4096 ;;
  quantized_metadata)
    NAME=quantized_metadata_fuzzer
    SRCS=(fuzz/quantized_metadata_fuzzer.cc core/quantized_format.cc core/mapped_file.cc
      core/json_util.cc)
    MAX_LEN=4096 ;;
  png|jpeg|webp|gif|bmp|sndfile|ffmpeg)
    NAME=codec_${TARGET}_fuzzer
    SRCS=(fuzz/codec_fuzzer_main.cc fuzz/codec_fuzz_input.cc plugins/codecs/$TARGET/*.cc)
    case "$TARGET" in
      png) LIBS=(-lpng16 -lz) ;;
      jpeg) LIBS=(-ljpeg) ;;
      webp) LIBS=(-lwebpdemux -lwebp) ;;
      gif) LIBS=(-lgif) ;;
      bmp) LIBS=() ;;
      sndfile) LIBS=(-lsndfile) ;;
      ffmpeg) LIBS=(-lavformat -lavcodec -lavutil -lswresample) ;;
    esac
    CORPUS_NAME=codec_$TARGET
    MAX_LEN="${MAX_LEN:-16384}" ;;
  *) echo "unknown fuzz target '$TARGET' (safetensors, json, jinja, tokenizer, hub_model_info, gguf, tool_call," \
    "conversation, calculator, server_request, model_config, shard_index, clip_tokenizer, quantized_metadata, png, jpeg, webp, gif, bmp, sndfile, ffmpeg)" >&2
    exit 2 ;;
esac
LIBS=("${LIBS[@]:-}")
CORPUS_NAME="${CORPUS_NAME:-$TARGET}"
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
  -I. -Icore/sdk/include "${SRCS[@]}" -o "$WORK/$NAME" "${ABSL_LIBS[@]/#/-l}" ${LIBS[@]}

echo "built $WORK/$NAME"
"$WORK/$NAME" -runs="$RUNS" -max_total_time="$MAX_TIME" -max_len="$MAX_LEN" \
  -print_final_stats=1 -artifact_prefix="$WORK/" \
  "$WORK/corpus" "fuzz/corpus/$CORPUS_NAME"
