#!/usr/bin/env bash
# Runs a command on a shared machine without endangering other processes: the
# command is the OOM killer's first choice (oom_score_adj 1000), and it is
# stopped (SIGKILL, by its own pid) if MemAvailable falls under MIN_AVAIL_MB
# (default 1200). Prints the lowest MemAvailable seen.
#   MIN_AVAIL_MB=1200 tools/quant_eval/run_guarded.sh CMD ARGS...
set -u
MIN=${MIN_AVAIL_MB:-1200}
bash -c 'echo 1000 > /proc/self/oom_score_adj; exec "$@"' _ "$@" &
pid=$!
low=999999
while kill -0 "$pid" 2>/dev/null; do
  avail=$(awk '/MemAvailable/ {print int($2/1024)}' /proc/meminfo)
  (( avail < low )) && low=$avail
  if (( avail < MIN )); then
    echo "run_guarded: MemAvailable ${avail} MB < ${MIN} MB: killing $pid" >&2
    kill -9 "$pid"
  fi
  sleep 0.5
done
wait "$pid"; rc=$?
echo "run_guarded: exit $rc, lowest MemAvailable ${low} MB" >&2
exit $rc
