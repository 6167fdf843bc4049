#!/usr/bin/env bash
# HTTPS beside WireMock (issue 44 item 2), in the style of wiremockregex.sh: release httpmock serve
# --https-port vs WireMock 2.35.1's jar --https-port, one mapping (GET /hello, a 100-byte body),
# journals off. Prints, for ROUNDS rounds, the start-up of each (process start to the first 200
# over https, polled with curl -k: WireMock's certificate is its own self-signed one), then wrk
# -t2 -c64 -d${SECS}s over https (HTTP/1.1 over TLS: wrk offers no ALPN) per round: httpmock
# https, WireMock https, and httpmock plain http for reference. WireMock is warmed by 2 runs first.
# httpmock's CA is made once in a folder of this run before the rounds (as after `httpmock ca`).
# Usage (from the package root, after the release build of README): bash Benchmarks/Scripts/https.sh
set -euo pipefail
BIN=${HTTPMOCK_BIN:-$(cd "$(dirname "$0")/../.." && pwd)/.build-release/release/httpmock}
JAR=${WIREMOCK_JAR:-/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/wiremock/server/wiremock-standalone-2.35.1.jar}
SECS=${WRK_SECONDS:-3}; ROUNDS=${ROUNDS:-3}
BODY=$(printf 'x%.0s' $(seq 1 100))
ROOT=${TMPDIR:-/tmp}/httpmock-https-bench; rm -rf $ROOT; mkdir -p $ROOT/mappings $ROOT/__files
printf '{"request":{"method":"GET","url":"/hello"},"response":{"status":200,"body":"%s"}}' "$BODY" > $ROOT/mappings/hello.json
CA=$ROOT/ca; $BIN ca --ca-dir $CA --output $ROOT/ca.pem 2>/dev/null
wait_200() { for _ in $(seq 1 120000); do code=$(curl -sk -o /dev/null -w '%{http_code}' "$1" || true); [ "$code" = 200 ] && return 0; sleep 0.001; done; return 1; }
for r in $(seq 1 $ROUNDS); do
  start=$(date +%s%N); $BIN serve --wiremock-root $ROOT --port 18921 --https-port 18922 --ca-dir $CA --log-level CRITICAL --journal-limit 0 >/dev/null 2>&1 & pid=$!
  wait_200 https://127.0.0.1:18922/hello; end=$(date +%s%N); h=$(( (end-start)/1000000 )); kill $pid; wait $pid 2>/dev/null || true
  start=$(date +%s%N); (cd $ROOT && exec java -jar $JAR --port 18923 --https-port 18924 --root-dir $ROOT --disable-banner --no-request-journal >/dev/null 2>&1) & pid=$!
  wait_200 https://127.0.0.1:18924/hello; end=$(date +%s%N); w=$(( (end-start)/1000000 )); kill $pid; wait $pid 2>/dev/null || true
  echo "startup_ms round $r: httpmock $h wiremock $w"
done
$BIN serve --wiremock-root $ROOT --port 18931 --https-port 18932 --ca-dir $CA --log-level CRITICAL --journal-limit 0 >/dev/null 2>&1 & P1=$!
(cd $ROOT && exec java -jar $JAR --port 18933 --https-port 18934 --root-dir $ROOT --disable-banner --no-request-journal >/dev/null 2>&1) & P2=$!
trap 'kill $P1 $P2 2>/dev/null || true' EXIT
wait_200 https://127.0.0.1:18932/hello; wait_200 https://127.0.0.1:18934/hello
echo "idle RSS KB: httpmock $(awk '/VmRSS/ {print $2}' /proc/$P1/status) (both ports listening)"
rate() { wrk -t2 -c64 -d${SECS}s "$1" | awk '/Requests\/sec:/ {print $2} /Non-2xx|Socket errors/ {print "ERR " $0 > "/dev/stderr"}'; }
rate https://127.0.0.1:18934/hello >/dev/null; rate https://127.0.0.1:18934/hello >/dev/null
CASES=("https://127.0.0.1:18932/hello" "https://127.0.0.1:18934/hello" "http://127.0.0.1:18931/hello")
for c in "${CASES[@]}"; do rate $c >/dev/null; done
for r in $(seq 1 $ROUNDS); do
  line="req/s round $r (httpmock https, wiremock https, httpmock http):"; for c in "${CASES[@]}"; do line="$line $(rate $c)"; done; echo "$line"
done
echo "RSS KB after load: httpmock $(awk '/VmRSS/ {print $2}' /proc/$P1/status)"
