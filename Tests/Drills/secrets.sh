#!/usr/bin/env bash
# Secrets drill (Docs/Reliability.md, promise 6): a canary password never appears in the log, a view, a .broken
# file, an error message or any output; the session token appears only in the output that hands it
# over; refused sign-ins for an unknown email and a wrong password print the same thing, exit with
# the same status, and take the same median time (within 10%, default hash cost, RUNS runs each).
# Usage: secrets.sh LEDGER_BINARY [RUNS=21]
set -u
L=$(realpath "$1"); RUNS=${2:-21}
D=$(mktemp -d /tmp/ledger-secrets.XXXXXX)
export LEDGER_DATA=$D/data
unset LEDGER_FAILPOINTS LEDGER_IO_FAULTS LEDGER_HASH_COST
CANARY="canary-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
fail() { echo "secrets drill FAILED: $*"; rm -rf "$D"; exit 1; }

printf '%s\n' "$CANARY" | "$L" register --email owner@example.com --username Owner --password-stdin --json > "$D/out.register" 2>&1 \
  || fail "register: $(cat "$D/out.register")"
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["token"])' "$D/out.register")
printf '%s\n' "$CANARY" | LEDGER_FAILPOINTS=ProfileWritten=error "$L" register --email other@example.com --username O --password-stdin > "$D/out.failed" 2>&1
printf '%s\n' "$CANARY" | "$L" login --email owner@example.com --password-stdin > "$D/out.login" 2>&1 || fail "login"
printf 'x%s\n' "$CANARY" | "$L" login --email owner@example.com --password-stdin > "$D/out.wrong" 2>&1
printf '%s\n' "$CANARY" | "$L" login --email nobody@example.com --password-stdin > "$D/out.unknown" 2>&1
printf 'garbage' >> "$D/data/events.jsonl"; "$L" recover > "$D/out.recover" 2>&1   # makes a .broken file
for c in replay users sessions images audit; do "$L" "$c" --json > "$D/out.$c" 2>&1; done
"$L" events --json > "$D/out.events" 2>&1
# The log stores personal members encrypted (data version 2): the canary must not be in them either.
python3 "$(dirname "$0")/../../Events/tools/decrypt_log.py" "$D/data/events.jsonl" "$D/data/events.keys" > "$D/out.decrypted" 2>&1 \
  || fail "the log does not decrypt with its key store: $(cat "$D/out.decrypted")"
if grep -rqaF "$CANARY" "$D"; then fail "the canary password appears in: $(grep -rlaF "$CANARY" "$D")"; fi
[ "$(grep -rlaF "$token" "$D" | wc -l)" -eq 1 ] || fail "the token appears outside the register output: $(grep -rlaF "$token" "$D")"
cmp -s "$D/out.wrong" "$D/out.unknown" || fail "wrong password and unknown email print different things"

# Timing: interleaved runs, median of each.
for i in $(seq 1 "$RUNS"); do
  for kind in wrong unknown; do
    email=owner@example.com; [ $kind = unknown ] && email="nobody-$i@example.com"
    s=$(date +%s%N)
    printf 'not-the-password\n' | "$L" login --email "$email" --password-stdin > /dev/null 2>&1; status=$?
    e=$(date +%s%N)
    echo "$(( (e - s) / 1000 ))" >> "$D/time.$kind"; echo "$status" >> "$D/status.$kind"
  done
done
[ "$(sort -u "$D/status.wrong")" = 1 ] && [ "$(sort -u "$D/status.unknown")" = 1 ] || fail "exit statuses differ from 1"
python3 - "$D" "$RUNS" <<'PY'
import statistics, sys
d, runs = sys.argv[1], int(sys.argv[2])
w = statistics.median(int(x) for x in open(f"{d}/time.wrong"))
u = statistics.median(int(x) for x in open(f"{d}/time.unknown"))
diff = abs(w - u) / max(w, u)
print(f"secrets drill: canary in no file or output; token in its one output only; same output and exit 1 for "
      f"wrong password and unknown email; median {w/1000:.1f} ms vs {u/1000:.1f} ms over {runs} runs each: {diff*100:.1f}% apart")
sys.exit(0 if diff <= 0.10 else 1)
PY
status=$?
rm -rf "$D"
exit $status
