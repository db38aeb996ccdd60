#!/usr/bin/env bash
# Builds the stable-diffusion.cpp vendored in the PyPI sdist of stable-diffusion-cpp-python, CPU
# only, -march=native. Nothing of stable-diffusion.cpp is committed: sources land in $PEERS
# (default /work/peers). Skips the build when sd-cli exists (FORCE=1 rebuilds).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=${PEERS:-/work/peers}
VER=${SD_CPP_PYTHON_VERSION:-0.4.7}
SRC=$PEERS/stable_diffusion_cpp_python-$VER/vendor/stable-diffusion.cpp
if [ "${FORCE:-0}" != 1 ] && [ -x "$SRC/build/bin/sd-cli" ]; then
  echo "stable-diffusion.cpp already built: $SRC/build/bin"; exit 0
fi
PYBIN=$("$HERE/setup_venv.sh")
mkdir -p "$PEERS" && cd "$PEERS"
[ -f stable_diffusion_cpp_python-$VER.tar.gz ] || "$(dirname "$PYBIN")/pip" download --no-deps --no-binary :all: "stable-diffusion-cpp-python==$VER" -d .
[ -d stable_diffusion_cpp_python-$VER ] || tar xzf stable_diffusion_cpp_python-$VER.tar.gz
cmake -S "$SRC" -B "$SRC/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
  -DSD_BUILD_EXAMPLES=ON -DSD_CUDA=OFF -DSD_VULKAN=OFF -DSD_METAL=OFF -DSD_WEBP=OFF -DSD_WEBM=OFF
nice -n 10 cmake --build "$SRC/build" -j"$(nproc)" --target sd-cli
ls -la "$SRC/build/bin"
