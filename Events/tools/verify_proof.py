#!/usr/bin/env python3
"""Check a Merkle proof printed by `ledger prove --json` (RFC 9162 section 2.1), trusting only hashlib.

Usage:
  python3 verify_proof.py inclusion PROOF.json LINEFILE   (LINEFILE: the log line, or - for standard input)
  python3 verify_proof.py consistency PROOF.json

An inclusion proof is checked from the line's own bytes (its leaf hash is SHA-256 of 0x00 and the line
without its newline) up to the proof's root; a consistency proof from the old root to the new one.
Prints one line, "ok: ..." and exits 0, or "bad proof: ..." and exits 1. The roots are only as good as
where they come from: compare them with a signed head, or with a root recorded earlier."""
import base64, binascii, hashlib, json, sys


def leaf_hash(data):
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def digest(text, what):
    """The 32 bytes of a canonical Base64 hash, else ValueError naming `what`."""
    try:
        raw = base64.b64decode(text, validate=True) if isinstance(text, str) else None
    except binascii.Error:
        raw = None
    if raw is None or len(raw) != 32 or base64.b64encode(raw).decode() != text:
        raise ValueError(f"{what} is not a Base64 SHA-256 hash")
    return raw


def size(value, what):
    if type(value) is not int or value < 0:
        raise ValueError(f"{what} is not a size (a whole number, 0 or more)")
    return value


def verify_inclusion(leaf, index, tree_size, proof, root):
    """RFC 9162 section 2.1.3.2."""
    if index >= tree_size:
        return False
    fn, sn, r = index, tree_size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def verify_consistency(old_size, new_size, old_root, new_root, proof):
    """RFC 9162 section 2.1.4.2; size 0 and equal sizes take an empty proof."""
    if old_size > new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    if old_size == 0:
        return not proof and old_root == hashlib.sha256(b"").digest()
    if not proof:
        return False
    path = [old_root] + proof if old_size & (old_size - 1) == 0 else proof
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root


def read_line(name):
    data = sys.stdin.buffer.read() if name == "-" else open(name, "rb").read()
    if data.endswith(b"\n"):
        data = data[:-1]
    if b"\n" in data:
        raise ValueError(f"{name} holds more than one line")
    return data


def main(argv):
    if len(argv) < 3 or argv[1] not in ("inclusion", "consistency") or len(argv) != (4 if argv[1] == "inclusion" else 3):
        print("usage: verify_proof.py inclusion PROOF.json LINEFILE|- | verify_proof.py consistency PROOF.json")
        return 2
    try:
        with open(argv[2], "rb") as f:
            doc = json.loads(f.read())
        if not isinstance(doc, dict) or not isinstance(doc.get("proof"), list):
            raise ValueError("not a proof from `ledger prove --json`")
        proof = [digest(h, f"proof[{i}]") for i, h in enumerate(doc["proof"])]
        root = digest(doc.get("rootHash"), "rootHash")
        tree_size = size(doc.get("treeSize"), "treeSize")
        if argv[1] == "inclusion":
            index = size(doc.get("leafIndex"), "leafIndex")
            leaf = leaf_hash(read_line(argv[3]))
            if "leafHash" in doc and digest(doc["leafHash"], "leafHash") != leaf:
                print(f"bad proof: the line's leaf hash is not the proof's leafHash")
                return 1
            if not verify_inclusion(leaf, index, tree_size, proof, root):
                print(f"bad proof: the line is not leaf {index} of the tree of size {tree_size} with that root")
                return 1
            print(f"ok: line {index + 1} is in the tree of size {tree_size} with root {doc['rootHash']}")
        else:
            old_size = size(doc.get("oldSize"), "oldSize")
            old_root = digest(doc.get("oldRootHash"), "oldRootHash")
            if not verify_consistency(old_size, tree_size, old_root, root, proof):
                print(f"bad proof: the tree of size {tree_size} is not shown to extend the tree of size {old_size} with that root")
                return 1
            print(f"ok: the tree of size {tree_size} with root {doc['rootHash']} extends the tree of size {old_size} with root {doc['oldRootHash']}")
        return 0
    except (OSError, ValueError) as e:
        print(f"bad proof: {e}")
        return 1
    except RecursionError:
        print("bad proof: the JSON is nested too deeply to be a proof")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
