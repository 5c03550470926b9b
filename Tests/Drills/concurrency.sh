#!/usr/bin/env bash
# Concurrency drill (Docs/Reliability.md, promise 2): PROCS processes each run PER registrations one after the
# other, a share of them (1 in 4) racing on a small set of shared emails. Checks: live accounts =
# distinct emails that succeeded, no seq gap or duplicate and every line verifies (ledger verify and
# the independent Python verifier), and every success reported is present and completed.
# Usage: concurrency.sh LEDGER_BINARY [PROCS=16] [PER=200]
set -u
L=$(realpath "$1"); PROCS=${2:-16}; PER=${3:-200}
HERE=$(cd "$(dirname "$0")" && pwd)
D=$(mktemp -d /tmp/ledger-conc.XXXXXX)
export LEDGER_DATA=$D/data LEDGER_HASH_COST=1
unset LEDGER_FAILPOINTS LEDGER_IO_FAULTS
start=$(date +%s.%N)
for p in $(seq 1 "$PROCS"); do
  (
    for i in $(seq 1 "$PER"); do
      email="p$p-$i@example.com"; [ $((i % 4)) -eq 0 ] && email="shared-$((i % 10))@example.com"
      if out=$(printf 'concurrency-pw-%s\n' "$i" | "$L" register --email "$email" --username "P$p" --password-stdin --json 2>>"$D/err.$p"); then
        printf '%s %s\n' "$email" "$out" >> "$D/ok.$p"
      fi
    done
  ) &
done
wait
seconds=$(echo "$(date +%s.%N) - $start" | bc)
"$L" verify > "$D/verify.txt" || { echo "verify failed"; cat "$D/verify.txt" | tail -3; exit 1; }
python3 "$HERE/../../Events/tools/verify_log.py" "$D/data/events.jsonl" > /dev/null || { echo "independent verifier failed"; exit 1; }
# The log stores personal members encrypted (data version 2): read it decrypted with its key store.
python3 "$HERE/../../Events/tools/decrypt_log.py" "$D/data/events.jsonl" "$D/data/events.keys" > "$D/decrypted.jsonl" \
  || { echo "the log does not decrypt with its key store"; exit 1; }
python3 - "$D" "$PROCS" "$PER" "$seconds" <<'PY'
import json, sys, glob
d, procs, per, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
live, seqs, completed = {}, [], set()
for line in open(f"{d}/decrypted.jsonl", encoding="utf-8"):
    e = json.loads(line); seqs.append(e["seq"])
    t, data = e["type"], e["data"]
    if t == "AccountCreated": live[data["uid"]] = data["email"]
    elif t == "AccountDeleted": live.pop(data["uid"], None)
    elif t == "ProfileWritten": completed.add(e["stream"][len("registration-"):])
assert seqs == list(range(1, len(seqs) + 1)), "seq gap or duplicate"
ok_emails, acked, missing = set(), 0, []
for f in glob.glob(f"{d}/ok.*"):
    for line in open(f):
        email, out = line.split(" ", 1); acked += 1
        ok_emails.add(email)
        if json.loads(out)["registration"] not in completed: missing.append(email)
emails = list(live.values())
assert len(emails) == len(set(emails)), "two live accounts share an email"
assert len(emails) == len(ok_emails), f"{len(emails)} live accounts but {len(ok_emails)} distinct emails succeeded"
assert not missing, f"acknowledged but missing: {missing[:5]}"
print(f"concurrency drill: {procs} processes x {per} registrations in {seconds:.1f} s: {acked} registered, "
      f"{len(ok_emails)} distinct emails = {len(emails)} live accounts, {len(seqs)} events, no seq gap, events lost: 0")
PY
status=$?
rm -rf "$D"
exit $status
