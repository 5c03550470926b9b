#!/usr/bin/env python3
"""Verify a ledger log (format v1, data version 1 or 2). Usage: python3 verify_log.py FILE
Prints "ok N <seq> <hash>" and exits 0, or "bad line N: <why>" and exits 1."""
import hashlib, json, re, sys

KEYS = ["seq", "id", "at", "type", "v", "stream", "data", "prev", "hash"]
BATCH_KEYS = KEYS[:6] + ["batch"] + KEYS[6:]  # a line of a batch of 2 lines or more
TAIL = re.compile(r'(.*),"hash":"([0-9a-f]{64})"\}', re.S)
# The types whose personal members a data version 2 log encrypts: the only ones with a "v" of 2.
PERSONAL = {"AccountCreated", "ProfileWritten", "Failed", "SignInFailed", "AccountDisabled", "EmailVerificationRequested",
            "EmailVerified", "PasswordChanged", "EmailChanged"}


def unique(pairs):
    """A JSON object's members, refusing a name given twice (at any depth)."""
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names):
        raise ValueError("a member name appears twice in one object")
    return dict(pairs)


def sound(mark):
    """True for a batch member [index, count]: integers, 2 <= count <= 2**31 - 1, 1 <= index <= count."""
    return (isinstance(mark, list) and len(mark) == 2 and all(type(x) is int for x in mark)
            and 2 <= mark[1] <= 2**31 - 1 and 1 <= mark[0] <= mark[1])


def verify(raw):
    lines, seq, prev, ids = raw.split(b"\n"), 0, "0" * 64, set()
    want, start = None, 0  # the batch member the next line must have; the open batch's first line
    for n, line in enumerate(lines[:-1], 1):
        try:
            text = line.decode("utf-8")
            obj = json.loads(text, object_pairs_hook=unique)
        except ValueError as e:
            return f"bad line {n}: not a JSON line ({e})"
        m = TAIL.fullmatch(text)
        if not isinstance(obj, dict) or list(obj) not in (KEYS, BATCH_KEYS) or not m or obj["hash"] != m[2]:
            return f"bad line {n}: envelope members missing, out of order or hash not last"
        mark = obj.get("batch")
        if "batch" in obj and not sound(mark):
            return f"bad line {n}: envelope member batch {mark!r} is not [index,count]"
        if hashlib.sha256(m[1].encode("utf-8")).hexdigest() != m[2]:
            return f"bad line {n}: hash mismatch"
        if type(obj["seq"]) is not int or obj["seq"] != seq + 1:
            return f"bad line {n}: seq {obj['seq']!r}, expected {seq + 1}"
        if obj["prev"] != prev:
            return f"bad line {n}: prev does not match the previous line's hash"
        if not isinstance(obj["id"], str) or obj["id"] in ids:
            return f"bad line {n}: id {obj['id']!r} is not a string or is a duplicate"
        versions = (1, 2) if isinstance(obj["type"], str) and obj["type"] in PERSONAL else (1,)
        if type(obj["v"]) is not int or obj["v"] not in versions:
            return f"bad line {n}: {obj['type']!r} v {obj['v']!r} is unknown"
        if mark != want and not (want is None and mark and mark[0] == 1):
            return f"bad line {n}: batch {mark!r} does not continue the batch before it (broken batch)"
        start = n if mark and mark[0] == 1 else start
        want = [mark[0] + 1, mark[1]] if mark and mark[0] < mark[1] else None
        seq, prev = seq + 1, m[2]
        ids.add(obj["id"])
    if want:
        return f"bad line {start}: the log ends inside a batch of {want[1]} lines (a cut batch: torn tail)"
    if lines[-1]:
        return f"bad line {len(lines)}: no final newline (torn tail)"
    return f"ok {seq} {seq} {prev}"


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        result = verify(f.read())
    print(result)
    sys.exit(0 if result.startswith("ok") else 1)
