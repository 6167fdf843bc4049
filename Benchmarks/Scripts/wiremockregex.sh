#!/usr/bin/env bash
# Mirrors Benchmarks' `wiremockregex` section by hand: release httpmock serve vs WireMock 2.35.1 jar,
# journals off, 1,000 urlPathPattern mappings /api/v[0-9]+/items/[a-z]+-N (one file each), wrk -t2 -c${CONNECTIONS:-64} -d${SECS}s,
# WireMock warmed by 2 runs per path, then ROUNDS interleaved rounds. Prints the start-up (process start to
# the first 200, polled with curl) of each round, then per round the req/s of: httpmock 1 mapping (-0),
# httpmock 1,000 (-999), WireMock 1,000 (-999), httpmock 1,000 (-0), WireMock 1,000 (-0).
# Usage (from the package root, after the release build of README): bash Benchmarks/Scripts/wiremockregex.sh
# PIN=1 confines the servers to CPU 1 and wrk to CPU 0 (taskset), so that the client does not take
# its CPU from the server it measures: each server's req/s is then what one core of it serves.
set -euo pipefail
BIN=${HTTPMOCK_BIN:-$(cd "$(dirname "$0")/../.." && pwd)/.build-release/release/httpmock}
JAR=${WIREMOCK_JAR:-/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/wiremock/server/wiremock-standalone-2.35.1.jar}
SECS=${WRK_SECONDS:-3}; ROUNDS=${ROUNDS:-3}; CONNS=${CONNECTIONS:-64}
if [ "${PIN:-0}" = 1 ]; then SERVER="taskset -c 1"; CLIENT="taskset -c 0"; else SERVER=""; CLIENT=""; fi
BODY=$(printf 'x%.0s' $(seq 1 100))
make_root() { # name count
  local root=${TMPDIR:-/tmp}/httpmock-wiremockregex-$1; rm -rf $root; mkdir -p $root/mappings $root/__files
  for i in $(seq 0 $(($2-1))); do
    printf '{"request":{"method":"GET","urlPathPattern":"/api/v[0-9]+/items/[a-z]+-%d"},"response":{"status":200,"body":"%s"}}' $i "$BODY" > $root/mappings/mapping-$(printf %05d $i).json
  done; echo $root; }
ONE=$(make_root one 1); THOUSAND=$(make_root thousand 1000)
wait_200() { for _ in $(seq 1 120000); do code=$(curl -s -o /dev/null -w '%{http_code}' "$1" || true); [ "$code" = 200 ] && return 0; sleep 0.001; done; return 1; }
# start-up, 1,000 mappings
for r in $(seq 1 $ROUNDS); do
  start=$(date +%s%N); $SERVER $BIN serve --wiremock-root $THOUSAND --port 18901 --log-level CRITICAL --journal-limit 0 >/dev/null 2>&1 & pid=$!
  wait_200 http://127.0.0.1:18901/api/v3/items/xyz-999; end=$(date +%s%N); echo "startup_ms $(( (end-start)/1000000 ))"; kill $pid; wait $pid 2>/dev/null || true
done
$SERVER $BIN serve --wiremock-root $ONE --port 18911 --log-level CRITICAL --journal-limit 0 >/dev/null 2>&1 & P1=$!
$SERVER $BIN serve --wiremock-root $THOUSAND --port 18912 --log-level CRITICAL --journal-limit 0 >/dev/null 2>&1 & P2=$!
(cd $THOUSAND && exec $SERVER java -jar $JAR --port 18913 --root-dir $THOUSAND --disable-banner --no-request-journal >/dev/null 2>&1) & P3=$!
trap 'kill $P1 $P2 $P3 2>/dev/null || true' EXIT
for p in 18911 18912 18913; do wait_200 http://127.0.0.1:$p/api/v3/items/xyz-0; done
rate() { $CLIENT wrk -t2 -c$CONNS -d${SECS}s "$1" | awk '/Requests\/sec:/ {print $2} /Non-2xx|Socket errors/ {print "ERR " $0 > "/dev/stderr"}'; }
for path in /api/v3/items/xyz-999 /api/v3/items/xyz-0; do rate http://127.0.0.1:18913$path >/dev/null; rate http://127.0.0.1:18913$path >/dev/null; done
CASES=("18911 /api/v3/items/xyz-0" "18912 /api/v3/items/xyz-999" "18913 /api/v3/items/xyz-999" "18912 /api/v3/items/xyz-0" "18913 /api/v3/items/xyz-0")
for c in "${CASES[@]}"; do set -- $c; rate http://127.0.0.1:$1$2 >/dev/null; done  # warm-up of each, as Harness.interleaved
for r in $(seq 1 $ROUNDS); do
  line="round $r:"; for c in "${CASES[@]}"; do set -- $c; line="$line $(rate http://127.0.0.1:$1$2)"; done; echo "$line"
done
