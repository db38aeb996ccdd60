#!/usr/bin/env bash
# One 512x512 SD-Turbo image, 1 step, no guidance, 2 threads: stable-diffusion.cpp (sd-cli)
# and oxinfer (sd_bench, the CPU variant oxinfer chooses), alternating, ROUNDS rounds. Raw logs in $OUT/sd_*.log, with the
# load average before each run; report_sd.py reads them.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=${PEERS:-/work/peers}
SDCPP=${SDCPP:-$PEERS/stable_diffusion_cpp_python-0.4.7/vendor/stable-diffusion.cpp}
MODEL=${MODEL:-/work/bigmodels/peers/sd-turbo}   # make_full_size.py ... --dtype f16
OURS=${OURS:-$PEERS/ours}
OUT=${OUT:-$PEERS/results}
T=${T:-2}; ROUNDS=${ROUNDS:-3}; WRAP=${WRAP:-}
BACKEND=${BACKEND:-$("$HERE/chosen_cpu_plugin.sh" "$OURS")}   # the variant oxinfer chooses
PROMPT="a red fox in a snowy forest"
mkdir -p "$OUT"
sdcpp() {  # log
  { echo "LOAD $(cut -d' ' -f1-3 /proc/loadavg)"; $WRAP /usr/bin/time -v "$SDCPP/build/bin/sd-cli" -m "$MODEL" -p "$PROMPT" --steps 1 --cfg-scale 1 \
      -W 512 -H 512 -t "$T" --seed 1 -o "$OUT/sdcpp.png" 2>&1; echo "LOAD_END $(cut -d' ' -f1-3 /proc/loadavg)"; } > "$1"
}
ours() {  # log (sd_bench uses every hardware thread)
  { echo "LOAD $(cut -d' ' -f1-3 /proc/loadavg)"; $WRAP /usr/bin/time -v "$OURS/sd_bench" "$MODEL" "$BACKEND" 512 1 0 2>&1; echo "LOAD_END $(cut -d' ' -f1-3 /proc/loadavg)"; } > "$1"
}
sdcpp "$OUT/warmup_sdcpp.log"; ours "$OUT/warmup_ours.log"   # page cache; not reported
for r in $(seq "$ROUNDS"); do   # the order swapped every round
  if [ $((r % 2)) = 1 ]; then sdcpp "$OUT/sd_sdcpp_$r.log"; ours "$OUT/sd_ours_$r.log"
  else ours "$OUT/sd_ours_$r.log"; sdcpp "$OUT/sd_sdcpp_$r.log"; fi
done
echo "logs in $OUT/sd_*.log"
