#!/usr/bin/env python3
"""Verify a ledger log (format v1). Usage: python3 verify_log.py FILE
Prints "ok N <seq> <hash>" and exits 0, or "bad line N: <why>" and exits 1."""
import hashlib, json, re, sys

KEYS = ["seq", "id", "at", "type", "v", "stream", "data", "prev", "hash"]
TAIL = re.compile(r'(.*),"hash":"([0-9a-f]{64})"\}', re.S)


def unique(pairs):
    """A JSON object's members, refusing a name given twice (at any depth)."""
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names):
        raise ValueError("a member name appears twice in one object")
    return dict(pairs)


def verify(raw):
    lines, seq, prev, ids = raw.split(b"\n"), 0, "0" * 64, set()
    for n, line in enumerate(lines[:-1], 1):
        try:
            text = line.decode("utf-8")
            obj = json.loads(text, object_pairs_hook=unique)
        except ValueError as e:
            return f"bad line {n}: not a JSON line ({e})"
        m = TAIL.fullmatch(text)
        if not isinstance(obj, dict) or list(obj) != KEYS or not m or obj["hash"] != m[2]:
            return f"bad line {n}: envelope members missing, out of order or hash not last"
        if hashlib.sha256(m[1].encode("utf-8")).hexdigest() != m[2]:
            return f"bad line {n}: hash mismatch"
        if type(obj["seq"]) is not int or obj["seq"] != seq + 1:
            return f"bad line {n}: seq {obj['seq']!r}, expected {seq + 1}"
        if obj["prev"] != prev:
            return f"bad line {n}: prev does not match the previous line's hash"
        if not isinstance(obj["id"], str) or obj["id"] in ids:
            return f"bad line {n}: id {obj['id']!r} is not a string or is a duplicate"
        seq, prev = seq + 1, m[2]
        ids.add(obj["id"])
    if lines[-1]:
        return f"bad line {len(lines)}: no final newline (torn tail)"
    return f"ok {seq} {seq} {prev}"


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        result = verify(f.read())
    print(result)
    sys.exit(0 if result.startswith("ok") else 1)
