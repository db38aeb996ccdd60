#!/usr/bin/env bash
# `oxinfer serve` from the installed layout (//:dist): runs oxinfer-server on
# the built-in model with the plugins next to it, answers /health, and exits 0
# on SIGTERM. Bounded: 120 s to start, 60 s to stop.
set -euo pipefail
oxinfer=$(readlink -f "$1")
cd "${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*"; cat err.txt 2>/dev/null; exit 1; }
"$oxinfer" serve --port 0 --threads 1 2> err.txt &
pid=$!
port=""
for _ in $(seq 1200); do
  port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' err.txt | grep -o '[0-9]*$' || true)
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || fail "the server exited at start"
  sleep 0.1
done
[ -n "$port" ] || { kill "$pid"; fail "no 'listening on' line"; }
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >&3
reply=$(timeout 30 cat <&3)
exec 3>&-
grep -q '^HTTP/1.1 200' <<<"$reply" || fail "health: $reply"
grep -q '{"status":"ok"}' <<<"$reply" || fail "health body: $reply"
# A second server on a port in use is refused (not silently sharing it).
if timeout 20 "$oxinfer" serve --port "$port" --threads 1 2> err2.txt; then
  fail "a second server started on port $port, which the first one listens on"
fi
grep -q "cannot listen on 127.0.0.1:$port" err2.txt || { cat err2.txt; fail "no 'cannot listen' message"; }
kill -TERM "$pid"
for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; fail "still running 60 s after SIGTERM"; }
wait "$pid" && code=0 || code=$?
[ "$code" -eq 0 ] || fail "exit code $code after SIGTERM"
grep -q 'stopped' err.txt || fail "no 'stopped' line"
# A restart binds the same port at once, past the TIME_WAIT connection the
# first server closed (the health request above).
"$oxinfer" serve --port "$port" --threads 1 2> err3.txt &
pid=$!
for _ in $(seq 1200); do
  grep -q "listening on http://127.0.0.1:$port" err3.txt && break
  kill -0 "$pid" 2>/dev/null || { cat err3.txt; fail "the restarted server exited: port $port not reusable"; }
  sleep 0.1
done
grep -q "listening on http://127.0.0.1:$port" err3.txt || { kill "$pid"; fail "restart: no 'listening on' line"; }
kill -TERM "$pid"
wait "$pid" || fail "the restarted server's exit code"
echo PASS
