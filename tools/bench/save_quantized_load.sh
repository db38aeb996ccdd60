#!/usr/bin/env bash
# Load time of a checkpoint quantised at load (--quant) against its
# --save-quantized folder (docs/quantisation.md): the whole process of a
# one-token reply (`--raw -p a --max-tokens 1`), warm page cache and cold
# (the folder's files dropped from the cache with posix_fadvise before each
# run), read and --mmap; medians of hyperfine runs, then the load average.
#   tools/bench/save_quantized_load.sh BIN_DIR MODEL SAVED QUANT [RUNS]
# BIN_DIR holds oxinfer and plugins/ (the backend and model plugins).
set -euo pipefail
bin="$1"; model="$2"; saved="$3"; quant="$4"; runs="${5:-3}"
py=${PY:-python3}  # the page-cache eviction needs only the standard library
out=$(mktemp -d)
# Drops the folders' files from the page cache (hyperfine --prepare).
cat >"$out/evict.py" <<'PY'
import os, sys
for d in sys.argv[1:]:
    for f in os.listdir(d):
        p = os.path.join(d, f)
        if os.path.isfile(p):
            fd = os.open(p, os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
PY
run="$bin/oxinfer --plugin-dir=$bin/plugins --device ${DEVICE:-cpu-avx512} --raw -p a --max-tokens 1"
for cache in warm cold; do
  for mode in read mmap; do
    flag=""; [ "$mode" = mmap ] && flag="--mmap"
    if [ "$cache" = warm ]; then prep="true"; warmup=1; else prep="$py $out/evict.py $model $saved"; warmup=0; fi
    hyperfine --runs "$runs" --warmup "$warmup" --prepare "$prep" --export-json "$out/$cache-$mode.json" \
      -n "at load" "$run $flag --model $model --quant $quant" \
      -n "pre-quantised" "$run $flag --model $saved" >/dev/null
    "$py" - "$out/$cache-$mode.json" "$cache" "$mode" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"{sys.argv[2]:5} {sys.argv[3]:5} {r['command']:14} median {r['median']:7.2f} s  "
          f"(min {r['min']:.2f}, max {r['max']:.2f}, {len(r['times'])} runs)")
PY
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
