#!/usr/bin/env bash
# One 512x512 SD-Turbo image, 1 step, no guidance, 2 threads: stable-diffusion.cpp (sd-cli)
# and oxinfer (sd_bench), alternating, REPS rounds. Raw logs in $OUT/sd_*.log, with the
# load average before each run; report_sd.py reads them.
set -euo pipefail
PEERS=${PEERS:-/work/peers}
SDCPP=${SDCPP:-$PEERS/stable_diffusion_cpp_python-0.4.7/vendor/stable-diffusion.cpp}
MODEL=${MODEL:-/work/bigmodels/peers/sd-turbo}   # make_full_size.py ... --dtype f16
OURS=${OURS:-$PEERS/ours}
OUT=${OUT:-$PEERS/results}
T=${T:-2}; REPS=${REPS:-1}
PROMPT="a red fox in a snowy forest"
mkdir -p "$OUT"
for r in $(seq "$REPS"); do
  { echo "LOAD $(cut -d' ' -f1-3 /proc/loadavg)"; /usr/bin/time -v "$SDCPP/build/bin/sd-cli" -m "$MODEL" -p "$PROMPT" --steps 1 --cfg-scale 1 \
      -W 512 -H 512 -t "$T" --seed 1 -o "$OUT/sdcpp_$r.png" 2>&1; echo "LOAD_END $(cut -d' ' -f1-3 /proc/loadavg)"; } > "$OUT/sd_sdcpp_$r.log"
  { echo "LOAD $(cut -d' ' -f1-3 /proc/loadavg)"; /usr/bin/time -v "$OURS/sd_bench" "$MODEL" "$OURS/dist/lib/oxinfer/plugins/liboxinfer_cpu_avx2.so" 512 1 0 2>&1; echo "LOAD_END $(cut -d' ' -f1-3 /proc/loadavg)"; } > "$OUT/sd_ours_$r.log"
done
echo "logs in $OUT/sd_*.log"
