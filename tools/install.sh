#!/usr/bin/env bash
# Builds and installs oxinfer (the CLI, liboxinfer.so with its header and
# oxinfer.pc, the plugins and the built-in model) under a prefix:
#   bash tools/install.sh --prefix DIR        (or PREFIX=DIR bash tools/install.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${PREFIX:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || { echo "install: --prefix needs a folder" >&2; exit 2; }; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    *) echo "install: unknown argument '$1' (usage: tools/install.sh --prefix DIR)" >&2; exit 2 ;;
  esac
done
[ -n "$prefix" ] || { echo "install: no prefix (tools/install.sh --prefix DIR, or PREFIX=DIR)" >&2; exit 2; }
bazel build //capi:liboxinfer.so //:dist
bin=$(bazel info bazel-bin)
bash tools/install_tree.sh "$prefix" "$bin/capi/liboxinfer.so" include/oxinfer/oxinfer.h \
  "$bin/dist" tools/oxinfer.pc.in
