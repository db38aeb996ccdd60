#!/usr/bin/env bash
# The machine and the flags, for beside every table: CPU model and the features that pick the
# kernels, cores, memory, kernel and transparent huge pages, the compilers' flags of both sides.
PEERS=${PEERS:-/work/peers}
OURS=${OURS:-$PEERS/ours}
cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
fam=$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' '); mod=$(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
cpu="$cpu (family $fam model $mod)"
flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|avx512f|avx512bw|avx512vl|avx512_vnni|avx512_bf16|avx_vnni|amx_.*)$' | tr '\n' ' ')
echo "- CPU: $cpu, $(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GiB; features: $flags"
echo "- Linux $(uname -r); transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
echo "- oxinfer: $(head -1 "$OURS/COMMIT" 2>/dev/null | cut -c1-10), bazel -c opt; CPU backend variant chosen by \`oxinfer\`: $("$(dirname "$0")/chosen_cpu_plugin.sh" "$OURS" 2>/dev/null | xargs -r basename) (avx512: -march=x86-64-v4, avx2: -march=x86-64-v3)"
echo "- llama.cpp: llama-cpp-python 0.3.36's vendor/llama.cpp, CMake Release, GGML_NATIVE=ON (-march=native), CPU only"
echo "- stable-diffusion.cpp: stable-diffusion-cpp-python 0.4.7's vendor, CMake Release, GGML_NATIVE=ON, CPU only"
echo "- load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
