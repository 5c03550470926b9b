#!/usr/bin/env bash
# Erasure's cost, measured: a data version 2 log (personal members encrypted under per-subject keys
# in events.keys) read and written by this tree, against a version 1 log read and written by an
# older build, side by side on the same events, interleaved (one run of each per round, so a change
# of load hits both alike), with the median of each measure, new/old, the target and a verdict.
#
#   bash Tests/Bench/erasure_cost.sh [OLD_COMMIT] [EVENTS] [RUNS]      (default: 821a91e 1000000 5)
#
# Builds OLD_COMMIT in a git worktree (release; the one old_vs_new.sh uses, moved to OLD_COMMIT) and
# this tree (release), generates the version 1 log with this tree's ledger-bench (seed 1: the same
# bytes every time), and makes the version 2 folder from it with this tree's `ledger migrate` (timed
# once). Each round then times, in this order:
#   old  the old build on the version 1 log;
#   new  this tree on the version 2 folder;
#   new1 this tree on the version 1 log (not a target: it separates the cost of the version 2 log
#        from this tree's other changes);
#   empty  this tree's register and login on a new (version 2) folder holding a few accounts.
# The reads (RUNS rounds): `replay --json` in full (LEDGER_CHECKPOINT_EVERY=0) and from the
# checkpoint, `users --json` in full and from the checkpoint (on a data folder), `verify`; then the
# writes (WRITE_RUNS rounds, default 15: each is a few hundredths of a second): `register` and
# `login` (fresh process, LEDGER_HASH_COST=1, password on stdin) on a data folder holding the log.
# The writes have rounds of their own because this VM pages out what was untouched for a minute
# (DAMON), page cache included: a read round lasts longer, and each register would read the 201 MB
# index back from the disk. For the same reason each side's files are read (untimed) just before
# its commands. The first reads and writes of each folder (which save the checkpoint and build the
# writers' index) are not timed. Checks that both builds print the same `users --json` and digests.
#
# Targets: full replay ≤ 1.15× the old build's, users ≤ 1.3×, register and login ≤ 1.2× and ≤ 1.5×
# the same command on an empty folder; verify and replay from the checkpoint are informational.
#
# Environment: LEDGER_BENCH_WORK (default /tmp/ledger-bench), MAX_LOAD (before the timed rounds,
# wait while the 1-minute load average is above it, a minute at a time; default 1.5), MAX_WAIT
# (give up waiting after that many seconds and time anyway, default 1200), WRITE_RUNS, OLDTREE (the
# old build's worktree, default $LEDGER_BENCH_WORK/old-tree).
set -euo pipefail

OLD=${1:-821a91e}
EVENTS=${2:-1000000}
RUNS=${3:-5}
MAX_LOAD=${MAX_LOAD:-1.5}
MAX_WAIT=${MAX_WAIT:-1200}
WRITE_RUNS=${WRITE_RUNS:-15}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${LEDGER_BENCH_WORK:-/tmp/ledger-bench}
SCR="$WORK/erasure-cost-$$"
LOG="$WORK/events-$EVENTS-seed1.jsonl"
PASSWORD="correct horse battery staple"
say() { printf '%s\n' "$*" >&2; }
die() { say "erasure_cost.sh: $*"; exit 1; }
load1() { cut -d' ' -f1 /proc/loadavg; }
mkdir -p "$SCR"
trap 'rm -rf "$SCR"' EXIT

# --- builds ------------------------------------------------------------------------------------
OLDTREE=${OLDTREE:-$WORK/old-tree}
. "$ROOT/Tests/Bench/build_both.sh"
build_both "$ROOT" "$OLD" "$OLDTREE"
OLDL="$OLDTREE/.build/release/ledger"
NEWL="$ROOT/.build/release/ledger"
declare -A LEDGER=( [old]="$OLDL" [new]="$NEWL" [new1]="$NEWL" [empty]="$NEWL" )

# --- the logs ----------------------------------------------------------------------------------
if [ ! -f "$LOG" ]; then
    say "generating $EVENTS events"
    "$ROOT/.build/release/ledger-bench" generate --events "$EVENTS" --out "$LOG" --seed 1 >&2
fi
# Each side reads its own copies (log/: replay and verify, never written; data/: users, register,
# login), so one build's checkpoint or index never meets the other's.
for side in old new1; do
    mkdir -p "$SCR/$side/log" "$SCR/$side/data"
    cp "$LOG" "$SCR/$side/log/events.jsonl"
    cp "$LOG" "$SCR/$side/data/events.jsonl"
done
say "migrating the log into a version 2 folder (load $(load1))"
start=$(date +%s%N)
"$NEWL" migrate --from "$SCR/old/log/events.jsonl" --data "$SCR/new/log" --json > "$SCR/migrate.json"
MIGRATE_NS=$(( $(date +%s%N) - start ))
MIGRATE_LOAD=$(load1)
[ -s "$SCR/new/log/events.keys" ] || die "migrate wrote no key store"
cp -r "$SCR/new/log" "$SCR/new/data"
say "$(cat "$SCR/migrate.json") in $(( MIGRATE_NS / 1000000 )) ms"
# The sizes, for the report.
V1_BYTES=$(stat -c %s "$LOG"); V2_BYTES=$(stat -c %s "$SCR/new/log/events.jsonl")
KEYS_BYTES=$(stat -c %s "$SCR/new/log/events.keys")

for side in old new new1; do
    L=${LEDGER[$side]}
    # Not timed: the first replay saves the checkpoint, the first users the data folder's own, and
    # the first register builds the writers' index (and its account's key on version 2).
    "$L" replay "$SCR/$side/log/events.jsonl" --json > "$SCR/$side/replay.json"
    "$L" users --data "$SCR/$side/data" --json > "$SCR/$side/users.json"
    echo "$PASSWORD" | LEDGER_HASH_COST=1 "$L" register --data "$SCR/$side/data" --email "bench-$side@example.com" \
        --username Bench --password-stdin --json > /dev/null
done
echo "$PASSWORD" | LEDGER_HASH_COST=1 "$NEWL" register --data "$SCR/empty/data" --email "bench-empty@example.com" \
    --username Bench --password-stdin --json > /dev/null
[ -s "$SCR/empty/data/events.keys" ] || die "a new folder is not data version 2 (no events.keys)"
grep -q '"v":2' "$SCR/new/data/events.jsonl" || die "the migrated log has no version 2 line"
if grep -q '"v":2' "$SCR/old/data/events.jsonl"; then die "the generated log is not version 1"; fi

cmp -s "$SCR/old/replay.json" "$SCR/new1/replay.json" || die "the two builds replay the version 1 log differently"
cmp -s "$SCR/old/users.json" "$SCR/new/users.json" || die "users --json of the version 2 folder differs from the version 1 log's"
digest() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["digest"]; print(d["users"], d["sessions"], d["images"])' "$1"; }
[ "$(digest "$SCR/old/replay.json")" = "$(digest "$SCR/new/replay.json")" ] \
    || die "the version 2 log's users, sessions or images digest differs from the version 1 log's"

# --- timing ------------------------------------------------------------------------------------
waited=0
while awk -v l="$(load1)" -v m="$MAX_LOAD" 'BEGIN { exit !(l > m) }'; do
    [ "$waited" -ge "$MAX_WAIT" ] && { say "load $(load1) still above $MAX_LOAD after ${waited}s: timing anyway"; break; }
    say "load $(load1) above $MAX_LOAD: waiting a minute"
    sleep 60; waited=$((waited + 60))
done
SAMPLES="$SCR/samples.txt"
LOADS="$SCR/loads.txt"
now() { date +%s%N; }
measure() {  # measure SIDE NAME COMMAND...: one timed run, its nanoseconds appended to the samples
    local side=$1 name=$2; shift 2
    local start end
    start=$(now); "$@" > /dev/null; end=$(now)
    echo "$name|$side|$(( end - start ))" >> "$SAMPLES"
}
# This VM pages out what was not touched for a minute (DAMON), the page cache included: each
# side's files are read once, untimed, just before its timed commands, so every build reads from
# memory as on an idle machine (compare.sh warms the page cache too).
warm() { cat "$@" > /dev/null 2>&1 || true; }
for round in $(seq 1 "$RUNS"); do
    say "reads: round $round/$RUNS (load $(load1))"
    load1 >> "$LOADS"
    for side in old new new1; do
        L=${LEDGER[$side]}; F="$SCR/$side/log/events.jsonl"; D="$SCR/$side/data"
        warm "$SCR/$side/log"/events.* "$D"/events.*
        measure $side "replay --json (full)" env LEDGER_CHECKPOINT_EVERY=0 "$L" replay "$F" --json
        measure $side "replay --json (checkpoint)" "$L" replay "$F" --json
        measure $side "users --json (full)" env LEDGER_CHECKPOINT_EVERY=0 "$L" users --data "$D" --json
        measure $side "users --json (checkpoint)" "$L" users --data "$D" --json
        measure $side "verify" "$L" verify "$F"
    done
done
# The writes, in rounds of their own (a few tenths of a second each, so no folder goes cold between
# them): one untimed register and login per side first, then WRITE_RUNS interleaved rounds.
n=0
for side in old new new1 empty; do
    warm "$SCR/$side/data"/events.*
    for w in 1 2; do
        n=$((n + 1))
        echo "$PASSWORD" | LEDGER_HASH_COST=1 "${LEDGER[$side]}" register --data "$SCR/$side/data" --email "w$n-$side@example.com" \
            --username W --password-stdin --json > /dev/null
        echo "$PASSWORD" | LEDGER_HASH_COST=1 "${LEDGER[$side]}" login --data "$SCR/$side/data" --email "bench-$side@example.com" \
            --password-stdin --json > /dev/null
    done
done
say "writes: $WRITE_RUNS rounds (load $(load1))"
for round in $(seq 1 "$WRITE_RUNS"); do
    for side in old new new1 empty; do
        L=${LEDGER[$side]}; D="$SCR/$side/data"
        n=$((n + 1))
        measure $side "register" sh -c "echo '$PASSWORD' | LEDGER_HASH_COST=1 '$L' register --data '$D' --email 'r$n-$side@example.com' --username R --password-stdin --json"
        measure $side "login" sh -c "echo '$PASSWORD' | LEDGER_HASH_COST=1 '$L' login --data '$D' --email 'bench-$side@example.com' --password-stdin --json"
    done
done
load1 >> "$LOADS"

# --- report ------------------------------------------------------------------------------------
python3 - "$SAMPLES" "$LOADS" "$OLD" "$EVENTS" "$RUNS" "$WRITE_RUNS" "$MIGRATE_NS" "$MIGRATE_LOAD" "$V1_BYTES" "$V2_BYTES" "$KEYS_BYTES" <<'PY'
import statistics, sys
samples, loads, old, events, runs, wruns = sys.argv[1:7]
migrate_ns, migrate_load = int(sys.argv[7]), sys.argv[8]
v1, v2, keys = (int(x) for x in sys.argv[9:12])
by, order = {}, []
for line in open(samples):
    name, side, value = line.strip().split("|")
    if name not in order: order.append(name)
    by.setdefault((name, side), []).append(int(value))
med = lambda name, side: statistics.median(by[(name, side)])
fmt = lambda ns: f"{ns / 1e9:.3f} s"
targets = {"replay --json (full)": 1.15, "users --json (full)": 1.3, "users --json (checkpoint)": 1.3,
           "register": 1.2, "login": 1.2}
verdict = lambda r, t: ("PASS" if r <= t else "MISS") if t else "info"
misses = 0
print(f"| measure ({int(events):,} events; {runs} interleaved rounds, writes {wruns}) | old ({old}) on v1 | new on v2 | new/old | target | verdict |")
print("|---|---:|---:|---:|---|---|")
for name in order:
    o, n = med(name, "old"), med(name, "new")
    r, t = n / o, targets.get(name)
    misses += verdict(r, t) == "MISS"
    print(f"| {name} | {fmt(o)} | {fmt(n)} | {r:.2f}× | {'≤ %.2f×' % t if t else '—'} | {verdict(r, t)} |")
print()
print("| measure (new build) | empty v2 folder | v2 folder of the log | ratio | target | verdict |")
print("|---|---:|---:|---:|---|---|")
for name in ("register", "login"):
    e, n = med(name, "empty"), med(name, "new")
    r = n / e
    misses += r > 1.5
    print(f"| {name} | {fmt(e)} | {fmt(n)} | {r:.2f}× | ≤ 1.50× | {verdict(r, 1.5)} |")
print()
print("The split (not targets): this tree on the version 1 log, against the old build on it (the")
print("other changes) and against this tree on the version 2 log (the version 2 log's own cost):")
print()
print("| measure | new on v1 | new on v1 / old on v1 | new on v2 / new on v1 |")
print("|---|---:|---:|---:|")
for name in order:
    o, n1, n = med(name, "old"), med(name, "new1"), med(name, "new")
    print(f"| {name} | {fmt(n1)} | {n1 / o:.2f}× | {n / n1:.2f}× |")
print()
ls = [float(x) for x in open(loads)]
print(f"migrate of the {int(events):,}-event log: {migrate_ns / 1e9:.2f} s (one run, load {migrate_load}); "
      f"log {v1 / 2**20:.0f} MiB → {v2 / 2**20:.0f} MiB ({v2 / v1:.2f}×), events.keys {keys / 2**20:.1f} MiB")
print(f"1-minute load at the read rounds' starts and at the end: {' '.join(f'{x:.2f}' for x in ls)}")
print(f"\ntargets missed: {misses}")
PY
