#!/usr/bin/env bash
# PostgreSQL store vs file store, side by side (Docs/Performance.md).
# Usage: postgres_compare.sh [URL|-] [EVENTS=100000] [RUNS=5]
#   URL: a postgres:// URL of a database this script may EMPTY (its ledger tables are dropped), and
#   in whose server it may create the database `ledger_bench_empty`; `-` or nothing: a throwaway
#   cluster this script starts itself (.ci/pg-cluster) and stops on exit.
# Builds ledger and ledger-bench in release mode; needs psql (PostgreSQL's client). Prints the
# median of RUNS runs of each measure. Knobs: REGISTRATIONS (per run of the registrations rate,
# default 800), REGISTRATIONS_ONLY=1 (stop after the registrations rates), SKIP_REGISTRATIONS=1.
set -euo pipefail
URL=${1:--}; EVENTS=${2:-100000}; RUNS=${3:-5}; REGISTRATIONS=${REGISTRATIONS:-800}
cd "$(dirname "$0")/../.."
swift build -c release --product ledger >/dev/null && swift build -c release --product ledger-bench >/dev/null
if [ "$URL" = "-" ]; then
  eval "$(.ci/pg-cluster)"
  trap 'eval "$PG_STOP"' EXIT
  URL=$PG_URL
fi
L=$PWD/.build/release/ledger; B=$PWD/.build/release/ledger-bench
PSQL=$(command -v psql || ls -d /usr/lib/postgresql/*/bin/psql | sort -V | tail -1)
W=${LEDGER_BENCH_WORK:-/tmp/ledger-pg-bench}; rm -rf "$W"; mkdir -p "$W"
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
seconds() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc; }
empty() { "$PSQL" -q "$URL" -c "DROP TABLE IF EXISTS ledger_events, ledger_registration_notes, ledger_checkpoints" 2>/dev/null; "$L" init --store "$URL" >/dev/null; }

echo "## single-event durable appends (1000 per run; median appends/s)"
echo "file:       $($B append --count 1000 --dir "$W/append-file" --runs "$RUNS" | tail -1)"
echo "postgresql: $($B append --count 1000 --dir "$W/append-pg" --runs "$RUNS" --store "$URL" | tail -1)"
# Whole registrations (hash cost 1, no image) by 1, 4 and 16 processes at once into one store
# (`ledger-bench registrations --processes N`: all start together, the figure is every process's
# registrations over the wall time); REGISTRATIONS in all per run, split between the processes (at
# least 25 each). Interleaved: one file run and one PostgreSQL run per round.
echo "## whole registrations by 1, 4 and 16 processes ($REGISTRATIONS per run; median registrations/s)"
rate() { "$B" registrations --count "$2" --dir "$3" --processes "$1" "${@:4}" | tail -1 | awk '{print $2}'; }
for p in $([ "${SKIP_REGISTRATIONS:-0}" = 1 ] || echo 1 4 16); do
  per=$(( REGISTRATIONS / p )); [ "$per" -lt 25 ] && per=25
  for n in $(seq 1 "$RUNS"); do
    rate "$p" "$per" "$W/reg-file-$p-$n" >> "$W/reg-file-$p"
    rate "$p" "$per" "$W/reg-pg-$p-$n" --store "$URL" >> "$W/reg-pg-$p"
  done
  f=$(median < "$W/reg-file-$p"); g=$(median < "$W/reg-pg-$p")
  printf '%2d process(es): file %8.1f/s  postgresql %8.1f/s  ratio %.2f\n' "$p" "$f" "$g" "$(echo "$g / $f" | bc -l)"
done
[ "${REGISTRATIONS_ONLY:-0}" = 1 ] && exit 0

echo "## a $EVENTS-event generated log (median seconds)"
$B generate --events "$EVENTS" --out "$W/log.jsonl" --seed 1 >/dev/null
empty
echo "import into postgresql:        $(seconds "$L" import "$W/log.jsonl" --store "$URL")"
"$L" export --store "$URL" > "$W/export.jsonl"
cmp "$W/log.jsonl" "$W/export.jsonl" && echo "export is byte-identical to the imported file"
mkdir -p "$W/data-file" "$W/data-pg"
FILE_READ=(--log "$W/log.jsonl" --data "$W/data-file"); PG_READ=(--store "$URL" --data "$W/data-pg")
ratio() { echo "scale=2; $(median < "$W/$1-pg") / $(median < "$W/$1-file")" | bc; }
# A read of the log: `audit` exits 1 when it reports anomalies (the generated log's images have no
# files here), which is an answer, not a failure.
read_log() { local read=$1; shift; "$L" "$read" "$@" || { [ $? -eq 1 ] && [ "$read" = audit ]; }; }
# A file store's data folder holding the log and the writers' index (built by one register): its
# verify checks that cache against the log, as PostgreSQL's checks its account-state tables.
mkdir -p "$W/store-file"; cp "$W/log.jsonl" "$W/store-file/events.jsonl"
echo 'correct horse battery staple' | LEDGER_HASH_COST=1 LEDGER_CHECKPOINT_EVERY=0 "$L" register --data "$W/store-file" --email bench-index@example.com --username B --password-stdin >/dev/null
# Every read from scratch (no checkpoint on either side), interleaved (one of each per round), so a
# change of load on the machine hits both alike.
export LEDGER_CHECKPOINT_EVERY=0
for _ in $(seq 1 "$RUNS"); do
  for read in replay users audit; do
    seconds read_log "$read" "${FILE_READ[@]}" --json >> "$W/$read-file"
    seconds read_log "$read" "${PG_READ[@]}" --json >> "$W/$read-pg"
  done
  seconds "$L" verify "$W/log.jsonl" --json >> "$W/verify-file"
  seconds "$L" verify --data "$W/store-file" --json >> "$W/verify-store-file"
  seconds "$L" verify --store "$URL" --data "$W/data-pg" --json >> "$W/verify-pg"
  seconds "$L" export --store "$URL" >> "$W/export-pg"
done
for read in replay users audit verify; do
  echo "$read, file / postgresql:  $(median < "$W/$read-file") / $(median < "$W/$read-pg")  ($(ratio "$read")x)"
done
echo "verify of a file store's data folder (with its index) / postgresql:  $(median < "$W/verify-store-file") / $(median < "$W/verify-pg")"
echo "export, postgresql:            $(median < "$W/export-pg")"
a=$("$L" replay "${FILE_READ[@]}" --json); b=$("$L" replay "${PG_READ[@]}" --json)
[ "$a" = "$b" ] && echo "both replays printed the same views (digests included)"
# The second read: each store's checkpoint (beside the file; ledger_checkpoints) saved by a first read.
export LEDGER_CHECKPOINT_EVERY=10000
"$L" replay "${FILE_READ[@]}" --json >/dev/null; "$L" replay "${PG_READ[@]}" --json >/dev/null
for _ in $(seq 1 "$RUNS"); do
  for read in replay users audit; do
    seconds read_log "$read" "${FILE_READ[@]}" --json >> "$W/$read-cp-file"
    seconds read_log "$read" "${PG_READ[@]}" --json >> "$W/$read-cp-pg"
  done
done
for read in replay users audit; do
  echo "$read from the checkpoint, file / postgresql:  $(median < "$W/$read-cp-file") / $(median < "$W/$read-cp-pg")  ($(ratio "$read-cp")x)"
done
a=$("$L" replay "${FILE_READ[@]}" --json); b=$("$L" replay "${PG_READ[@]}" --json)
[ "$a" = "$b" ] && echo "both replays from their checkpoints printed the same views (digests included)"
export LEDGER_CHECKPOINT_EVERY=0

# register and login on the imported log vs on an empty store (a second database of the same
# server), interleaved; LEDGER_HASH_COST=1 so the password hash does not hide the store's part.
EMPTY_URL="${URL%/*}/ledger_bench_empty"
"$PSQL" -q "$URL" -c "DROP DATABASE IF EXISTS ledger_bench_empty" -c "CREATE DATABASE ledger_bench_empty" >/dev/null
"$L" init --store "$EMPTY_URL" >/dev/null
export LEDGER_HASH_COST=1
for n in $(seq 1 "$RUNS"); do
  for side in log empty; do
    store=$URL; [ "$side" = empty ] && store=$EMPTY_URL
    email="bench-$n-$side-$$@example.com"
    seconds sh -c "echo 'correct horse battery staple' | '$L' register --data '$W/data-$side' --store '$store' --email $email --username B --password-stdin" >> "$W/register-$side"
    seconds sh -c "echo 'correct horse battery staple' | '$L' login --data '$W/data-$side' --store '$store' --email $email --password-stdin" >> "$W/login-$side"
  done
done
echo "register, $EVENTS events / empty: $(median < "$W/register-log") / $(median < "$W/register-empty")"
echo "login, $EVENTS events / empty:    $(median < "$W/login-log") / $(median < "$W/login-empty")"
