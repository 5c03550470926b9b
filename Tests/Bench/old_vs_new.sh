#!/usr/bin/env bash
# A change's cost, measured: two builds of ledger (an older commit and this tree) side by side on
# the same log, interleaved (one of each per round, so a change of load hits both alike), with the
# median of each measure and new/old. A measure more than 10% slower is flagged `REGRESSED`.
#
#   bash Tests/Bench/old_vs_new.sh OLD_COMMIT [EVENTS] [RUNS]      (default: 1000000 5)
#
# Builds OLD_COMMIT in a git worktree (release) and this tree (release), generates the log with
# this tree's ledger-bench (seed 1: the same bytes every time), then times, per round and per
# build: `replay --json` in full (LEDGER_CHECKPOINT_EVERY=0) and from the checkpoint, `verify`,
# `users --json` from the checkpoint, `register` and `login` (fresh process, hash cost 1) on a data
# folder holding the log, and `ledger-bench append` (durable single-event appends, per append).
# Environment: LEDGER_BENCH_WORK (default /tmp/ledger-bench), APPENDS (default 300).
set -euo pipefail

OLD=${1:?usage: old_vs_new.sh OLD_COMMIT [EVENTS] [RUNS]}
EVENTS=${2:-1000000}
RUNS=${3:-5}
APPENDS=${APPENDS:-300}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${LEDGER_BENCH_WORK:-/tmp/ledger-bench}
SCR="$WORK/old-vs-new-$$"
LOG="$WORK/events-$EVENTS-seed1.jsonl"
PASSWORD="correct horse battery staple"
say() { printf '%s\n' "$*" >&2; }
mkdir -p "$SCR"
trap 'rm -rf "$SCR"' EXIT

# --- builds ------------------------------------------------------------------------------------
OLDTREE="$WORK/old-tree"
. "$ROOT/Tests/Bench/build_both.sh"
build_both "$ROOT" "$OLD" "$OLDTREE"
declare -A LEDGER=( [old]="$OLDTREE/.build/release/ledger" [new]="$ROOT/.build/release/ledger" )
declare -A BENCH=( [old]="$OLDTREE/.build/release/ledger-bench" [new]="$ROOT/.build/release/ledger-bench" )

# --- the log -----------------------------------------------------------------------------------
if [ ! -f "$LOG" ]; then
    say "generating $EVENTS events"
    "${BENCH[new]}" generate --events "$EVENTS" --out "$LOG" --seed 1 >&2
fi
for side in old new; do
    mkdir -p "$SCR/$side/data"
    cp "$LOG" "$SCR/$side/log.jsonl"
    cp "$LOG" "$SCR/$side/data/events.jsonl"
    # The first reads and writes save the checkpoint and build the writers' index: not timed.
    "${LEDGER[$side]}" replay "$SCR/$side/log.jsonl" --json > "$SCR/$side/replay.json"
    "${LEDGER[$side]}" users --data "$SCR/$side/data" --json > /dev/null  # the data folder's own checkpoint
    echo "$PASSWORD" | LEDGER_HASH_COST=1 "${LEDGER[$side]}" register --data "$SCR/$side/data" --email "bench-$side@example.com" \
        --username Bench --password-stdin --json > /dev/null
done
cmp -s "$SCR/old/replay.json" "$SCR/new/replay.json" || { say "old_vs_new.sh: the two builds replay the log differently"; exit 1; }

# --- timing ------------------------------------------------------------------------------------
SAMPLES="$SCR/samples.txt"
now() { date +%s%N; }
measure() {  # measure SIDE NAME COMMAND...: one timed run, its nanoseconds appended to the samples
    local side=$1 name=$2; shift 2
    local start end
    start=$(now); "$@" > /dev/null; end=$(now)
    echo "$name $side $(( end - start ))" >> "$SAMPLES"
}
n=0
for round in $(seq 1 "$RUNS"); do
    say "round $round/$RUNS"
    for side in old new; do
        L=${LEDGER[$side]}; D="$SCR/$side/data"
        measure $side "replay (full)" env LEDGER_CHECKPOINT_EVERY=0 "$L" replay "$SCR/$side/log.jsonl" --json
        measure $side "replay (checkpoint)" "$L" replay "$SCR/$side/log.jsonl" --json
        measure $side "verify" "$L" verify "$SCR/$side/log.jsonl"
        measure $side "users --json (checkpoint)" "$L" users --data "$D" --json
        n=$((n + 1))
        measure $side "register (1M-event folder)" sh -c "echo '$PASSWORD' | LEDGER_HASH_COST=1 '$L' register --data '$D' --email 'r$n-$side@example.com' --username R --password-stdin --json"
        measure $side "login (1M-event folder)" sh -c "echo '$PASSWORD' | LEDGER_HASH_COST=1 '$L' login --data '$D' --email 'bench-$side@example.com' --password-stdin --json"
        rm -rf "$SCR/$side/append"
        "${BENCH[$side]}" append --count "$APPENDS" --dir "$SCR/$side/append" > "$SCR/out.txt"
        echo "append (per durable event) $side $(awk '/^median/ {printf "%.0f", 1e9 / $2}' "$SCR/out.txt")" >> "$SAMPLES"
    done
done

# --- report ------------------------------------------------------------------------------------
python3 - "$SAMPLES" "$OLD" "$EVENTS" "$RUNS" <<'PY'
import statistics, sys
samples, old, events, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
by = {}
order = []
for line in open(samples):
    *name, side, value = line.split()
    name = " ".join(name)
    if name not in order: order.append(name)
    by.setdefault((name, side), []).append(float(value))
print(f"| measure ({events} events, {runs} interleaved rounds) | old ({old}) | new | new/old | |")
print("|---|---|---|---|---|")
worst = 0
for name in order:
    o, n = statistics.median(by[(name, "old")]), statistics.median(by[(name, "new")])
    fmt = (lambda v: f"{v / 1e9:.3f} s") if not name.startswith("append") else (lambda v: f"{v / 1e3:.0f} µs")
    ratio = n / o if o else float("nan")
    worst = max(worst, ratio)
    print(f"| {name} | {fmt(o)} | {fmt(n)} | {ratio:.2f}× | {'REGRESSED' if ratio > 1.10 else 'ok'} |")
print(f"\nworst new/old: {worst:.2f}×")
PY
