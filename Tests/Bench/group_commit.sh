#!/usr/bin/env bash
# Group commit, measured: durable single-event appends per second through one process's group
# committer with 1 and with TASKS threads (`ledger-bench append --tasks N --json`), side by side
# with SQLite in WAL mode, synchronous=FULL, with 1 and TASKS threads each on its own connection
# (`sqlite_wal_commits.py`), on the same disk, interleaved (one run of each per round), medians.
#
#   bash Tests/Bench/group_commit.sh [COUNT] [ROUNDS] [TASKS]      (default: 4000 3 64)
#
# Targets: ledger with TASKS threads ≥ 8× ledger with 1, and ≥ 5× SQLite with TASKS threads.
# Environment: LEDGER_BENCH_WORK (default /tmp/ledger-bench): where the logs and databases go.
set -euo pipefail
COUNT=${1:-4000}
ROUNDS=${2:-3}
TASKS=${3:-64}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${LEDGER_BENCH_WORK:-/tmp/ledger-bench}
SCR="$WORK/group-commit-$$"
mkdir -p "$SCR"
trap 'rm -rf "$SCR"' EXIT
(cd "$ROOT" && swift build -c release --product ledger-bench >&2)
BENCH="$ROOT/.build/release/ledger-bench"

for round in $(seq 1 "$ROUNDS"); do
  for tasks in 1 "$TASKS"; do
    rate=$("$BENCH" append --count "$COUNT" --dir "$SCR/ledger" --tasks "$tasks" --json |
      python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["commitsPerSecond"], o["syncsPerSecond"])')
    echo "ledger $tasks $rate"
    rate=$(python3 "$ROOT/Tests/Bench/sqlite_wal_commits.py" "$COUNT" "$SCR/sqlite" "$tasks" | awk '{print $(NF-1)}')
    echo "sqlite $tasks $rate -"
  done
done | python3 -c '
import statistics, sys
tasks = int(sys.argv[1]); count = int(sys.argv[2])
runs = {}
for line in sys.stdin:
    who, n, rate, syncs = line.split()
    runs.setdefault((who, int(n)), []).append((float(rate), syncs))
med = {k: statistics.median(r for r, _ in v) for k, v in runs.items()}
syncs = {k: statistics.median(float(s) for _, s in v) for k, v in runs.items() if v[0][1] != "-"}
rounds = len(runs[("ledger", 1)])
print(f"| writer | threads | durable commits/s (median of {rounds}) | syncs/s |")
print("|---|---|---|---|")
for who in ("ledger", "sqlite"):
    for n in (1, tasks):
        s = f"{syncs[(who, n)]:,.0f}" if (who, n) in syncs else "–"
        print(f"| {who} | {n} | {med[(who, n)]:,.0f} | {s} |")
a = med[("ledger", tasks)] / med[("ledger", 1)]
b = med[("ledger", tasks)] / med[("sqlite", tasks)]
print()
verdict = lambda ok: "met" if ok else "MISSED"
print(f"ledger {tasks} threads / 1 thread: {a:.1f}x (target >= 8x): {verdict(a >= 8)}")
print(f"ledger {tasks} threads / SQLite {tasks} threads: {b:.1f}x (target >= 5x): {verdict(b >= 5)}")
print(f"({count} single-event commits per run)")
' "$TASKS" "$COUNT"
