#!/usr/bin/env bash
# Builds the llama.cpp vendored in the PyPI sdist of llama-cpp-python, CPU only, -march=native
# (GGML_NATIVE=ON): llama-bench, llama-quantize, and llama-server for tools/bench/server_bench.py.
# Nothing of llama.cpp is committed: sources land in $PEERS (default /work/peers).
# Skips the build when the binaries exist (FORCE=1 rebuilds).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=${PEERS:-/work/peers}
VER=${LLAMA_CPP_PYTHON_VERSION:-0.3.36}
SRC=$PEERS/llama_cpp_python-$VER/vendor/llama.cpp
if [ "${FORCE:-0}" != 1 ] && [ -x "$SRC/build/bin/llama-bench" ] && [ -x "$SRC/build/bin/llama-quantize" ] \
    && [ -x "$SRC/build/bin/llama-server" ]; then
  echo "llama.cpp already built: $SRC/build/bin"; exit 0
fi
PYBIN=$("$HERE/setup_venv.sh")
mkdir -p "$PEERS" && cd "$PEERS"
[ -f llama_cpp_python-$VER.tar.gz ] || "$(dirname "$PYBIN")/pip" download --no-deps --no-binary :all: "llama-cpp-python==$VER" -d .
[ -d llama_cpp_python-$VER ] || tar xzf llama_cpp_python-$VER.tar.gz
cmake -S "$SRC" -B "$SRC/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
  -DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_VULKAN=OFF -DLLAMA_CURL=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=ON -DBUILD_SHARED_LIBS=OFF
nice -n 10 cmake --build "$SRC/build" -j"$(nproc)" --target llama-bench llama-quantize llama-server
ls -la "$SRC/build/bin"
