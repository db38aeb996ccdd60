#!/usr/bin/env bash
# Builds the stable-diffusion.cpp vendored in the PyPI sdist of stable-diffusion-cpp-python, CPU only.
# Nothing of stable-diffusion.cpp is committed: sources land in $PEERS (default /work/peers).
set -euo pipefail
PEERS=${PEERS:-/work/peers}
VER=${SD_CPP_PYTHON_VERSION:-0.4.7}
mkdir -p "$PEERS" && cd "$PEERS"
[ -f stable_diffusion_cpp_python-$VER.tar.gz ] || pip download --no-deps --no-binary :all: "stable-diffusion-cpp-python==$VER" -d .
[ -d stable_diffusion_cpp_python-$VER ] || tar xzf stable_diffusion_cpp_python-$VER.tar.gz
SRC=$PEERS/stable_diffusion_cpp_python-$VER/vendor/stable-diffusion.cpp
cmake -S "$SRC" -B "$SRC/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
  -DSD_BUILD_EXAMPLES=ON -DSD_CUDA=OFF -DSD_VULKAN=OFF -DSD_METAL=OFF -DSD_WEBP=OFF -DSD_WEBM=OFF
nice -n 10 cmake --build "$SRC/build" -j2 --target sd-cli
ls -la "$SRC/build/bin"
