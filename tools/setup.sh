#!/usr/bin/env bash
# Installs every Debian 12 package that oxinfer's build and tests need.
# Idempotent; run as root (or with sudo available). Offline except for
# Debian's package archive.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap           # Bazel 4.2.3 (offline setup: see WORKSPACE)
  g++ clang libclang-rt-14-dev  # gcc builds; clang for libFuzzer + ASan
  libabsl-dev libre2-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  zlib1g-dev libpng-dev nlohmann-json3-dev libicu-dev
  # media codec plugins (plugins/codecs) and core/media's resampler
  libjpeg62-turbo-dev libwebp-dev libgif-dev libstb-dev libsoxr-dev
  libsndfile1-dev libavformat-dev libavcodec-dev libavutil-dev libswresample-dev
  libgmp-dev                # the built-in calculator tool (exact rationals)
  pkg-config                # the C API install test builds examples/embed.c with it
  libcurl4-openssl-dev libssl-dev   # Hub downloads (core/hub), sha256
  libcpp-httplib-dev        # the loopback Hub server of tests/hub
  python3                   # .ci/run's summary; the build needs no Python packages
  python3-venv              # the pinned openai client of the server's tests (below)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
else
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The server's openai-client tests (tests/server): the real openai client from
# PyPI, every package pinned (--no-deps: nothing unpinned slips in), in a venv
# of Debian's python3 outside the tree, shared by every checkout.
venv=/opt/oxinfer/test-venv
req="$(dirname "$0")/../tests/server/requirements.txt"
if cmp -s "$req" "$venv/requirements.txt" 2>/dev/null; then
  echo "setup: $venv up to date"
else
  echo "setup: installing tests/server/requirements.txt into $venv"
  $SUDO rm -rf "$venv"
  $SUDO mkdir -p "$(dirname "$venv")"
  $SUDO /usr/bin/python3 -m venv "$venv"
  $SUDO "$venv/bin/pip" install -q --disable-pip-version-check --no-deps -r "$req"
  $SUDO cp "$req" "$venv/requirements.txt"
fi
