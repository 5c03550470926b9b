#!/usr/bin/env bash
# Crash drill (issue 4, drill 1): WORKERS processes register in a loop while this script SIGKILLs a
# random running `ledger` process at random moments, KILLS times in all. Every ROUND kills it stops
# the workers, runs `ledger recover` and checks: audit has no anomaly, verify passes, every
# registration is completed/rejected/compensated, and every registration that printed success is
# present and completed. Usage: crash-kills.sh LEDGER_BINARY [KILLS=1000] [WORKERS=4] [ROUND=100]
set -u
L=$(realpath "$1"); KILLS=${2:-1000}; WORKERS=${3:-4}; ROUND=${4:-100}
HERE=$(cd "$(dirname "$0")" && pwd)
IMG=$(ls "$HERE"/../../Events/samples/demo/profile_image/* | head -n 1)
D=$(mktemp -d /tmp/ledger-crash.XXXXXX)
export LEDGER_DATA=$D/data LEDGER_HASH_COST=1
unset LEDGER_FAILPOINTS LEDGER_IO_FAULTS
killed=0; rounds=0; failures=0

worker() {
  local w=$1 i=0 out
  while [ ! -f "$D/stop" ]; do
    i=$((i + 1))
    # A share of emails collide across workers, so compensations and uniqueness races happen too.
    local email="w$w-$i@example.com"; [ $((RANDOM % 5)) -eq 0 ] && email="shared-$((RANDOM % 20))@example.com"
    local image=(); [ $((i % 2)) -eq 0 ] && image=(--image "$IMG")
    local fp=""; [ $((RANDOM % 7)) -eq 0 ] && fp="ProfileWritten=error"
    if out=$(printf 'drill-password-%s\n' "$i" | LEDGER_FAILPOINTS=$fp "$L" register --email "$email" --username "W$w" \
          "${image[@]}" --password-stdin --json 2>/dev/null); then
      printf '%s\n' "$out" >> "$D/ok.$w"
    fi
  done
}

check() {
  "$L" recover --json > "$D/recover.json" 2> "$D/recover.err" || { echo "recover failed: $(cat "$D/recover.err")"; return 1; }
  "$L" audit --json > "$D/audit.json" || { echo "audit found anomalies: $(cat "$D/audit.json")"; return 1; }
  "$L" verify > /dev/null || { echo "verify failed"; "$L" verify | tail -3; return 1; }
  python3 - "$D" <<'PY' || return 1
import json, sys, glob
d = sys.argv[1]
outcome = {}
for line in open(f"{d}/data/events.jsonl", encoding="utf-8"):
    e = json.loads(line)
    if e["stream"].startswith("registration-"):
        reg = e["stream"][len("registration-"):]
        t = e["type"]
        if t == "ProfileWritten": outcome[reg] = "completed"
        elif t == "Failed": outcome[reg] = "failed"
        else: outcome.setdefault(reg, "in-progress")
bad = [r for r, o in outcome.items() if o == "in-progress"]
missing = []
for f in glob.glob(f"{d}/ok.*"):
    for line in open(f):
        reg = json.loads(line)["registration"]
        if outcome.get(reg) != "completed": missing.append(reg)
counts = json.load(open(f"{d}/audit.json"))
if bad or missing or counts["anomalies"]:
    print("in-progress:", bad[:5], "acknowledged but missing:", missing[:5], "anomalies:", counts["anomalies"][:3]); sys.exit(1)
PY
}

while [ "$killed" -lt "$KILLS" ]; do
  rm -f "$D/stop"
  for w in $(seq 1 "$WORKERS"); do worker "$w" & done
  target=$((killed + ROUND)); [ "$target" -gt "$KILLS" ] && target=$KILLS
  while [ "$killed" -lt "$target" ]; do
    sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
    # Only this drill's own processes: the ones whose environment names its data directory.
    pid=$(for p in $(pgrep -f "^$L register"); do
            { tr '\0' '\n' < "/proc/$p/environ"; } 2>/dev/null | grep -qx "LEDGER_DATA=$D/data" && echo "$p"
          done | shuf -n 1)
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null && killed=$((killed + 1))
  done
  touch "$D/stop"; wait
  rounds=$((rounds + 1))
  check || failures=$((failures + 1))
done
acked=$(cat "$D"/ok.* 2>/dev/null | wc -l)
events=$(wc -l < "$D/data/events.jsonl")
echo "crash drill: $killed kills in $rounds rounds, $WORKERS workers, $acked acknowledged registrations, $events events, $failures failed checks, events lost: $([ $failures -eq 0 ] && echo 0 || echo see-above)"
rm -rf "$D"
[ "$failures" -eq 0 ]
