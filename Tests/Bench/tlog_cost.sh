#!/usr/bin/env bash
# Tamper evidence's cost, measured: `ledger head --key` (a signed head), `ledger prove SEQ` and
# `ledger prove --consistency M` on a 3,000-event and a 1,000,000-event data folder, warm and as the
# first command after the page cache is dropped; `register` and `login` on the 1M folder (its tree
# state beside the log) against an empty folder; and full `replay` of the 1M log by this tree against
# OLD, a build without the tree, side by side. Medians; interleaved rounds.
#
#   bash Tests/Bench/tlog_cost.sh OLD [RUNS]     (OLD: the last commit without the Merkle tree; RUNS default 5)
#
# Targets: at 1M, head --key and prove ≤ 3× their time at 3,000, warm and cold; register and login
# ≤ 1.5× an empty folder; replay ≤ 1.10× OLD's. Dropping the page cache needs root
# (/proc/sys/vm/drop_caches); without it the cold rounds are skipped.
# Environment: LEDGER_BENCH_WORK (default /tmp/ledger-bench), OLDTREE (default $LEDGER_BENCH_WORK/old-tree).
set -euo pipefail
OLD=${1:?usage: tlog_cost.sh OLD [RUNS]}
RUNS=${2:-5}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${LEDGER_BENCH_WORK:-/tmp/ledger-bench}
OLDTREE=${OLDTREE:-$WORK/old-tree}
SCR="$WORK/tlog-cost-$$"
mkdir -p "$SCR"
trap 'rm -rf "$SCR"' EXIT
. "$ROOT/Tests/Bench/build_both.sh"
build_both "$ROOT" "$OLD" "$OLDTREE"
NEW="$ROOT/.build/release/ledger"; OLDL="$OLDTREE/.build/release/ledger"; BENCH="$ROOT/.build/release/ledger-bench"
L1M="$WORK/events-1000000-seed1.jsonl"
[ -f "$L1M" ] || "$BENCH" generate --events 1000000 --out "$L1M" --seed 1 >&2
"$BENCH" generate --events 3000 --out "$SCR/events-3000.jsonl" --seed 1 >&2
for n in 3000 1000000; do
  mkdir -p "$SCR/d$n"
  if [ "$n" = 3000 ]; then cp "$SCR/events-3000.jsonl" "$SCR/d$n/events.jsonl"; else cp "$L1M" "$SCR/d$n/events.jsonl"; fi
  "$NEW" head --data "$SCR/d$n" > /dev/null   # the tree state, built once (untimed)
done
# A key per log: a key remembers the head it signed last per origin beside itself (log$n.heads), and
# two logs signed under one origin would be a fork. The first signing compares the whole state with
# the lines once and records its head; later ones hash only the lines added since. Made once,
# untimed, as the state.
for n in 3000 1000000; do
  "$NEW" keygen --name bench.example/log --out "$SCR/log$n" > /dev/null
  "$NEW" head --data "$SCR/d$n" --key "$SCR/log$n.skey" > /dev/null
done
PASSWORD="correct horse battery staple"
us() { local s e; s=$(date +%s%N); "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
can_drop=0; if [ -w /proc/sys/vm/drop_caches ]; then can_drop=1; fi
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
{
  for round in $(seq 1 "$RUNS"); do
    for n in 3000 1000000; do
      d="$SCR/d$n"
      echo "warm head-key $n $(us "$NEW" head --data "$d" --key "$SCR/log$n.skey")"
      echo "warm prove $n $(us "$NEW" prove $((n / 2)) --data "$d")"
      echo "warm consistency $n $(us "$NEW" prove --consistency $((n / 3)) --data "$d")"
      if [ $can_drop = 1 ]; then
        drop; echo "cold head-key $n $(us "$NEW" head --data "$d" --key "$SCR/log$n.skey")"
        drop; echo "cold prove $n $(us "$NEW" prove $((n / 2)) --data "$d")"
        drop; echo "cold consistency $n $(us "$NEW" prove --consistency $((n / 3)) --data "$d")"
      fi
    done
    echo "replay old $(us env LEDGER_CHECKPOINT_EVERY=0 "$OLDL" replay "$L1M" --json)"
    echo "replay new $(us env LEDGER_CHECKPOINT_EVERY=0 "$NEW" replay "$L1M" --json)"
  done
  # Writers: the 1M folder (tree state beside the log; the index built by an untimed first register)
  # against a new folder holding one account.
  mkdir -p "$SCR/empty"
  for d in "$SCR/d1000000" "$SCR/empty"; do
    printf '%s\n' "$PASSWORD" | LEDGER_HASH_COST=1 "$NEW" register --data "$d" --email "first@bench.example" --username F --password-stdin > /dev/null
  done
  for round in $(seq 1 $((RUNS * 3))); do
    for side in d1000000 empty; do
      d="$SCR/$side"
      echo "write register $side $(printf '%s\n' "$PASSWORD" | us env LEDGER_HASH_COST=1 "$NEW" register --data "$d" --email "w$round@bench.example" --username W --password-stdin)"
      echo "write login $side $(printf '%s\n' "$PASSWORD" | us env LEDGER_HASH_COST=1 "$NEW" login --data "$d" --email "first@bench.example" --password-stdin)"
    done
  done
} > "$SCR/samples.txt"
python3 - "$SCR/samples.txt" "$can_drop" <<'PY'
import statistics, sys
samples = {}
for line in open(sys.argv[1]):
    *key, value = line.split()
    samples.setdefault(tuple(key), []).append(int(value) / 1e6)
med = {k: statistics.median(v) for k, v in samples.items()}
def verdict(ok): return "met" if ok else "MISSED"
print("| measure | 3,000 events | 1,000,000 events | ratio | target |")
print("|---|---:|---:|---:|---|")
kinds = ["warm"] + (["cold"] if sys.argv[2] == "1" else [])
for kind in kinds:
    for what, name in (("head-key", "head --key"), ("prove", "prove SEQ"), ("consistency", "prove --consistency M")):
        a, b = med[(kind, what, "3000")], med[(kind, what, "1000000")]
        print(f"| {name} ({kind}) | {a*1000:.1f} ms | {b*1000:.1f} ms | {b/a:.2f}x | <= 3x: {verdict(b/a <= 3)} |")
print()
print("| measure | empty folder | 1,000,000-event folder | ratio | target |")
print("|---|---:|---:|---:|---|")
for what in ("register", "login"):
    a, b = med[("write", what, "empty")], med[("write", what, "d1000000")]
    print(f"| {what} | {a*1000:.1f} ms | {b*1000:.1f} ms | {b/a:.2f}x | <= 1.5x: {verdict(b/a <= 1.5)} |")
a, b = med[("replay", "old")], med[("replay", "new")]
print()
print(f"| replay --json from scratch, 1M | old {a:.3f} s | new {b:.3f} s | {b/a:.2f}x | <= 1.10x: {verdict(b/a <= 1.10)} |")
PY
