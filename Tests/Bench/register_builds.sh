#!/usr/bin/env bash
# `register` and `login` of several builds side by side, one process per command as a user runs them:
#
#   bash Tests/Bench/register_builds.sh RUNS LEDGER [LEDGER...]
#
# Each LEDGER (a release `ledger` binary, e.g. TREE/.build/release/ledger, named in the output by its
# TREE's folder) gets a small data folder of its own (three accounts, LEDGER_HASH_COST=1). Each round
# runs, for each build in turn, a `register` of a new email and a `login` of its first account
# (password on stdin, --json), timing each as a whole process; then prints, per command and build,
# the median, the first quartile and the fastest run. Rounds interleave the builds, so a change of
# load hits them alike. Used in Docs/Performance.md ("The command line as a client of the library").
set -uo pipefail
RUNS=${1:?RUNS}; shift
[ $# -ge 1 ] || { echo "usage: register_builds.sh RUNS LEDGER [LEDGER...]" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
names=(); bins=()
for b in "$@"; do names+=("$(basename $(dirname $(dirname $(dirname $b))))"); bins+=("$b"); done
for k in "${!bins[@]}"; do
  mkdir -p $T/$k
  for i in 1 2 3; do echo 'pw-secret-1' | LEDGER_HASH_COST=1 ${bins[$k]} register --data $T/$k --email seed$i@x.org --username S --password-stdin >/dev/null; done
done
for r in $(seq 1 $RUNS); do
  for k in "${!bins[@]}"; do
    s=$(date +%s%N)
    echo 'pw-secret-1' | LEDGER_HASH_COST=1 ${bins[$k]} register --data $T/$k --email r$r@x.org --username R --password-stdin --json >/dev/null || echo FAIL
    e=$(date +%s%N)
    echo "reg $k $(( (e-s)/1000 ))" >> $T/times
    s=$(date +%s%N)
    echo 'pw-secret-1' | LEDGER_HASH_COST=1 ${bins[$k]} login --data $T/$k --email seed1@x.org --password-stdin --json >/dev/null || echo FAIL
    e=$(date +%s%N)
    echo "login $k $(( (e-s)/1000 ))" >> $T/times
  done
done
for what in reg login; do for k in "${!bins[@]}"; do
  grep "^$what $k " $T/times | awk '{print $3}' | sort -n | awk -v s="$what ${names[$k]}" '{a[NR]=$1} END {printf "%-28s median %.1f ms  q1 %.1f  min %.1f (n=%d)\n", s, a[int((NR+1)/2)]/1000, a[int((NR+3)/4)]/1000, a[1]/1000, NR}'
done; done
