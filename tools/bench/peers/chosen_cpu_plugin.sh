#!/usr/bin/env bash
# Prints the path of the CPU backend plugin that `oxinfer` itself chooses on this machine
# (`oxinfer --devices --plugins`: the CPU backend marked chosen / CPU fallback, by score from the
# CPU's features), e.g. .../liboxinfer_cpu_avx512.so on an AVX-512 CPU.
#   chosen_cpu_plugin.sh OURS_DIR
set -euo pipefail
OURS=$1
out=$("$OURS/dist/bin/oxinfer" --devices --plugins 2>&1)
name=$(echo "$out" | awk '/^Backends:/{b=1;next} b&&/^$/{b=0} b&&/\* /&&/ cpu /&&/\((chosen|CPU fallback)\)/{print $2; exit}')
[ -n "$name" ] || { echo "chosen_cpu_plugin.sh: no CPU backend chosen by oxinfer:" >&2; echo "$out" >&2; exit 1; }
path=$(echo "$out" | awk -v n="$name" '$1=="backend" && $2==n {print $NF; exit}')
[ -f "$path" ] || { echo "chosen_cpu_plugin.sh: $name has no file in the listing" >&2; exit 1; }
echo "$path"
