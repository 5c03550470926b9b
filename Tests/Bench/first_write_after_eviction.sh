#!/usr/bin/env bash
# The first `register` after a reboot (Docs/Performance.md, "The first write without the index"):
# the log and the index checkpoint evicted from the page cache (posix_fadvise DONTNEED, per file),
# events.jsonl.index removed; against the same with both in the page cache, and a warm register.
# Two cases: the index checkpoint at the log's head, and 10,000 events behind it (its worst case:
# a register on the log's first 990,000 lines, then the rest appended re-chained).
# Usage: first_write_after_eviction.sh LOG [RUNS=7]   (LOG: a ledger-bench generated 1,000,000-event log)
set -euo pipefail
LOG=${1:?a generated 1,000,000-event log}; RUNS=${2:-7}
cd "$(dirname "$0")/../.."
swift build -c release --product ledger >/dev/null
L=$PWD/.build/release/ledger
W=${LEDGER_BENCH_WORK:-/tmp/ledger-first-write}; rm -rf "$W"; mkdir -p "$W"
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
evict() { python3 -c 'import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "$@"; }
# One register into D (no new index checkpoint saved), its wall time appended to the file $1.
reg() { local s e; s=$(date +%s.%N)
  echo 'pass word 1' | LEDGER_HASH_COST=1 LEDGER_CHECKPOINT_EVERY=1000000 "$L" register --data "$D" --email "$2" --username Z --password-stdin --json >/dev/null
  e=$(date +%s.%N); echo "$e - $s" | bc >> "$W/$1"; }
# Restores the saved index checkpoint, with no index, synced.
restore() { rm -f "$D/events.jsonl.index"; cp "$W/saved.checkpoint" "$D/events.jsonl.index.checkpoint"; sync; }
for case in head behind; do
  D=$W/$case; mkdir -p "$D"
  if [ "$case" = head ]; then cp "$LOG" "$D/events.jsonl"; else head -n 990000 "$LOG" > "$D/events.jsonl"; fi
  echo 'pass word 1' | LEDGER_HASH_COST=1 "$L" register --data "$D" --email first@example.com --username Z --password-stdin >/dev/null
  if [ "$case" = behind ]; then
    python3 - "$D/events.jsonl" "$LOG" <<'PY'
import hashlib, json, re, sys
log, source = sys.argv[1], sys.argv[2]
last = json.loads(open(log, 'rb').read().rstrip(b'\n').rsplit(b'\n', 1)[-1])
seq, prev, out = last['seq'], last['hash'], []
with open(source, 'rb') as f:
    for n, raw in enumerate(f):
        if n < 990000: continue
        line = raw.rstrip(b'\n').decode()
        body = line[:line.rindex(',"hash":"')]
        seq += 1
        body = re.sub(r'"seq":\d+', '"seq":%d' % seq, body, count=1)
        body = re.sub(r'"prev":"[0-9a-f]{64}"', '"prev":"%s"' % prev, body, count=1)
        prev = hashlib.sha256(body.encode()).hexdigest()
        out.append(body + ',"hash":"' + prev + '"}\n')
open(log, 'a').write(''.join(out))
PY
    "$L" verify "$D/events.jsonl" >/dev/null
  fi
  cp "$D/events.jsonl.index.checkpoint" "$W/saved.checkpoint"
  for i in $(seq 1 "$RUNS"); do
    restore; evict "$D/events.jsonl" "$D/events.jsonl.index.checkpoint"
    reg "$case-evicted" "evicted$i@example.com"
    restore
    reg "$case-cached" "cached$i@example.com"
    reg "$case-warm" "warm$i@example.com"
  done
  e=$(median < "$W/$case-evicted"); c=$(median < "$W/$case-cached"); w=$(median < "$W/$case-warm")
  printf 'checkpoint %-6s: evicted %.3f s, in the page cache %.3f s, warm %.4f s: %.1fx / %.1fx a warm one\n' \
    "$case" "$e" "$c" "$w" "$(echo "$e / $w" | bc -l)" "$(echo "$c / $w" | bc -l)"
  rm -rf "$D"
done
