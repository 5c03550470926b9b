#!/usr/bin/env python3
"""Check a ledger signed head (a C2SP tlog-checkpoint in the C2SP signed-note format) without ledger.
Usage: python3 verify_signed_head.py NOTE --vkey LOG.vkey [--witness-vkey W.vkey ...] [--json]

NOTE is the file `ledger head --key` printed (`-` for standard input). Exit 0 when the log's key
signed it and every named witness cosigned it (C2SP tlog-cosignature v1), printing its origin, tree
size and root hash (Base64 and hex); exit 1, with one line on standard error, for anything else: a
note that does not parse, a missing signature, a signature by a known key that does not verify (the
whole note is refused), a key of another name. Signatures by other keys are ignored. Comparing the
size and root with a log is another tool's part (an inclusion or consistency proof). Needs Python 3
and `cryptography` (Ed25519); the formats are in Events/README.md."""
import argparse, base64, binascii, hashlib, json, re, struct, sys
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

LOG_KEY, WITNESS_KEY = 0x01, 0x04
MAX_SIGNATURES, MAX_NOTE_BYTES = 100, 64 * 1024
SPACES = set("\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | {chr(c) for c in range(0x2000, 0x200B)}


class Refused(Exception):
    """The note, a key or a signature is refused; the message says why."""


def b64(text, what):
    """The bytes of canonical padded Base64 `text` (the only spelling ledger writes)."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise Refused(f"{what} is not Base64")
    if base64.b64encode(raw).decode() != text:
        raise Refused(f"{what} is not canonical padded Base64")
    return raw


def check_name(name, what):
    """A key's name: non-empty, without `+`, spaces or control characters (C0, DEL, C1)."""
    check_signature_name(name, what)
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in name):
        raise Refused(f"{what}: a key name is non-empty, without `+`, spaces or control characters")


def check_signature_name(name, what):
    """A signature line's name, as Go's note.Open reads it: non-empty, without `+` or spaces (DEL
    or a C1 control allowed: such a line names no key, so it is an unknown signature, ignored)."""
    if not name or "+" in name or any(c in SPACES for c in name):
        raise Refused(f"{what}: a key name is non-empty, without `+` or spaces")


def read_vkey(path, want_type):
    """(name, key id, type, Ed25519 public key) of the one-line .vkey at `path`, its key id checked."""
    with open(path, "rb") as f:
        raw = f.read(1025)
    text = raw.decode("utf-8")
    if text.endswith("\n"):
        text = text[:-1]
    parts = text.split("+", 2)
    if len(parts) != 3 or not re.fullmatch(r"[0-9a-fA-F]{8}", parts[1]):
        raise Refused(f"{path}: a verifier key is NAME+KEYID+BASE64")
    name, key_id = parts[0], int(parts[1], 16)
    check_name(name, path)
    material = b64(parts[2], f"{path}: the key")
    if len(material) != 33 or material[0] != want_type:
        raise Refused(f"{path}: not a {'log' if want_type == LOG_KEY else 'witness'} key (type {want_type}, 32-byte Ed25519 key)")
    if key_id != struct.unpack(">I", hashlib.sha256(name.encode() + b"\n" + material).digest()[:4])[0]:
        raise Refused(f"{path}: the key id is not the id of the key's name and public key")
    return name, key_id, material[0], Ed25519PublicKey.from_public_bytes(material[1:])


def parse_note(raw):
    """(text, [(name, key id, signature bytes, line)]) of a signed note, as Go's note.Open reads it."""
    if len(raw) > MAX_NOTE_BYTES:
        raise Refused("the note is too large")
    if any(b < 0x20 and b != 0x0A for b in raw):
        raise Refused("a signed note holds no control character but newline")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("a signed note is UTF-8 text")
    split = raw.rfind(b"\n\n")
    if split < 0 or not raw.endswith(b"\n") or split + 2 == len(raw):
        raise Refused("a signed note is a text, a blank line, then signature lines")
    text, lines = raw[:split + 1], raw[split + 2:-1].split(b"\n")
    if len(lines) > MAX_SIGNATURES:
        raise Refused(f"a note has at most {MAX_SIGNATURES} signature lines")
    signatures = []
    for line in lines:
        if not line.startswith("— ".encode()) or b" " not in line[4:]:
            raise Refused("a signature line is `— NAME BASE64`")
        name, sig64 = line[4:].decode().split(" ", 1)
        check_signature_name(name, "a signature line")
        sig = b64(sig64, "a signature")
        if len(sig) < 5:
            raise Refused("a signature holds a key id and a signature")
        signatures.append((name, struct.unpack(">I", sig[:4])[0], sig[4:], line))
    return text, signatures


def parse_checkpoint(text):
    """(origin, size, root bytes) of a checkpoint body (C2SP tlog-checkpoint)."""
    lines = text.decode().split("\n")[:-1]
    if len(lines) < 3 or any(line == "" for line in lines):
        raise Refused("a signed head's text is an origin, a tree size and a root hash line")
    if not re.fullmatch(r"0|[1-9][0-9]{0,19}", lines[1]) or int(lines[1]) >= 2**64:
        raise Refused("a signed head's tree size is decimal without leading zeros")
    root = b64(lines[2], "the root hash")
    if len(root) != 32:
        raise Refused("the root hash has 32 bytes")
    return lines[0], int(lines[1]), root


def verify(raw, log_key, witness_keys):
    """The (origin, size, root) of the note `raw` if every key signed it; else Refused."""
    text, signatures = parse_note(raw)
    origin, size, root = parse_checkpoint(text)
    known = {(k[0], k[1]): k for k in [log_key] + witness_keys}
    signed, seen = set(), set()
    for name, key_id, sig, line in signatures:
        key = known.get((name, key_id))
        if key is None or line in seen:
            continue  # another key's signature, or a line repeated
        seen.add(line)
        message = text
        if key[2] == WITNESS_KEY:
            if len(sig) != 72 or struct.unpack(">Q", sig[:8])[0] >= 2**63:
                raise Refused(f"the cosignature by {name} is not a timestamp and a signature")
            message = b"cosignature/v1\ntime %d\n" % struct.unpack(">Q", sig[:8])[0] + text
            sig = sig[8:]
        try:
            key[3].verify(sig, message)
        except InvalidSignature:
            raise Refused(f"the signature by {name}+{key_id:08x} does not verify")
        signed.add((name, key_id))
    for key in [log_key] + witness_keys:
        if (key[0], key[1]) not in signed:
            raise Refused(f"the note has no signature by {key[0]}+{key[1]:08x}")
    return origin, size, root


def main():
    parser = argparse.ArgumentParser(description="Check a ledger signed head (C2SP signed note) without ledger.")
    parser.add_argument("note", help="the signed head (`-`: standard input)")
    parser.add_argument("--vkey", required=True, help="the log's verifier key file")
    parser.add_argument("--witness-vkey", action="append", default=[], help="a witness's verifier key file (repeatable)")
    parser.add_argument("--json", action="store_true", help='print {"origin","treeSize","rootHash","rootHex"}')
    args = parser.parse_args()
    try:
        log_key = read_vkey(args.vkey, LOG_KEY)
        witness_keys = [read_vkey(path, WITNESS_KEY) for path in args.witness_vkey]
        raw = sys.stdin.buffer.read(MAX_NOTE_BYTES + 1) if args.note == "-" else open(args.note, "rb").read(MAX_NOTE_BYTES + 1)
        origin, size, root = verify(raw, log_key, witness_keys)
    except (Refused, OSError, UnicodeDecodeError, ValueError) as error:
        print(f"verify_signed_head: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"origin": origin, "treeSize": size, "rootHash": base64.b64encode(root).decode(), "rootHex": root.hex()}))
    else:
        print(f"ok: {origin} size {size} root {base64.b64encode(root).decode()} ({root.hex()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
