#!/usr/bin/env python3
"""Decrypt the personal members of a ledger log (data version 2) with its key store.
Usage: python3 decrypt_log.py LOG KEYS   (KEYS: the data folder's events.keys)

Prints each line of LOG as one JSON object, its encrypted members replaced by their plaintext. A
member whose subject's key was erased is null, and its `data` gets "erased": true; one whose key is
absent from KEYS (data loss, or the wrong key store) is null with "missingKey": true, and the exit
status is 1. A member that does not open (moved, changed, or the wrong key) stops the tool with exit 1.
Printed lines are for people: they no longer hash to their `hash`; verify the log with verify_log.py.
Needs Python 3 and `cryptography` (AESGCM); the format is in Events/README.md."""
import base64, hashlib, json, struct, sys
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

LIVE, ERASED = 1, 2
ENCRYPTED = ["subject", "nonce", "ciphertext"]


def read_keys(path):
    """{subject id: 32-byte key, or None when erased} from a key store file (format LDGRKEY1)."""
    with open(path, "rb") as f:
        raw = f.read()
    check = lambda record: hashlib.sha256(record[:120]).digest()[:8] == record[120:128]
    if raw[:8] != b"LDGRKEY1" or len(raw) < 128 or not check(raw[:128]):
        sys.exit(f"{path}: not a key store (no LDGRKEY1 header, or a damaged one)")
    version, slot_size, capacity = struct.unpack_from("<IIQ", raw, 8)
    if version != 1 or slot_size != 128 or len(raw) != 128 + capacity * 128:
        sys.exit(f"{path}: a key store of another version, or cut short")
    keys = {}
    for i in range(capacity):
        slot = raw[128 + 128 * i:256 + 128 * i]
        if slot == bytes(128):
            continue  # empty
        if not check(slot) or slot[0] not in (LIVE, ERASED):
            sys.exit(f"{path}: slot {i} is torn (a write cut short, or damage)")
        subject = slot[8:8 + slot[1]].decode("ascii")
        keys[subject] = slot[72:104] if slot[0] == LIVE else None
    return keys


def decrypt_line(obj, keys):
    """`obj` (a parsed log line) with its encrypted members decrypted; False when a key is missing."""
    data, whole = obj["data"], True
    for member, value in list(data.items()):
        if not (isinstance(value, dict) and list(value) == ENCRYPTED):
            continue
        subject = value["subject"]
        if subject not in keys:
            data[member], data["missingKey"], whole = None, True, False
        elif keys[subject] is None:
            data[member], data["erased"] = None, True
        else:
            aad = f"{obj['id']}\n{obj['type']}\n{member}\n{subject}".encode("utf-8")
            nonce = base64.b64decode(value["nonce"], validate=True)
            sealed = base64.b64decode(value["ciphertext"], validate=True)
            data[member] = AESGCM(keys[subject]).decrypt(nonce, sealed, aad).decode("utf-8")
    return whole


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.splitlines()[1])
    keys, whole = read_keys(sys.argv[2]), True
    with open(sys.argv[1], "rb") as log:
        for n, line in enumerate(log, 1):
            obj = json.loads(line)
            try:
                whole = decrypt_line(obj, keys) and whole
            except Exception as e:  # cryptography's InvalidTag, bad Base64, bad UTF-8
                sys.exit(f"line {n}: a member does not decrypt ({type(e).__name__}): moved, changed, or another key")
            print(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
    sys.exit(0 if whole else 1)
