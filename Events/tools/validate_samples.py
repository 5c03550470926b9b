#!/usr/bin/env python3
"""Validate ledger log lines against the JSON Schemas.

Usage: python3 Events/tools/validate_samples.py [FOLDER_OR_FILE ...]   (default: Events/samples)
Each line must satisfy schema/envelope.schema.json and schema/data/<type>.schema.json, and its
`at` must be a real calendar date (which the schema's pattern cannot express). `v` is 1, or 2 for a
type with personal members (those whose schema also accepts an encrypted member object): a v 2 line
stores each of them encrypted, a v 1 line as its string.
A line that is not JSON fails, except the final line of a file named torn-*, which is skipped.
Exits 0 only if every line is valid.
"""
import json
import sys
from datetime import datetime
from pathlib import Path

from jsonschema import Draft202012Validator

EVENTS = Path(__file__).resolve().parents[1]
SCHEMA = EVENTS / "schema"


def validator(path):
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def real_date(text):
    """True when the date of an `at`-shaped time exists in the calendar (the schema's pattern cannot say)."""
    try:
        datetime.strptime(text[:10], "%Y-%m-%d")
        return True
    except ValueError:
        return False


def encrypted(value):
    """True for an encrypted member: an object of exactly subject, nonce and ciphertext."""
    return isinstance(value, dict) and sorted(value) == ["ciphertext", "nonce", "subject"]


def personal(schema):
    """The members of a data schema that take an encrypted member object as well as a string."""
    return [name for name, rule in schema["properties"].items()
            if any(option.get("type") == "object" and "ciphertext" in option.get("properties", {}) for option in rule.get("anyOf", []))]


def problems(obj, envelope, data):
    for e in envelope.iter_errors(obj):
        yield f"envelope {'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
    if isinstance(obj, dict) and isinstance(obj.get("at"), str) and not real_date(obj["at"]):
        yield f"envelope at: {obj['at']!r} is not a real calendar date"
    mark = obj.get("batch") if isinstance(obj, dict) else None
    if isinstance(mark, list) and len(mark) == 2 and all(type(x) is int for x in mark) and mark[0] > mark[1]:
        yield f"envelope batch: index {mark[0]} is past the batch's count {mark[1]}"
    if not isinstance(obj, dict) or not isinstance(obj.get("data"), dict):
        return
    found = data.get((obj.get("type"), obj.get("v")))
    if found is None:
        yield f"no data schema for type {obj.get('type')!r} v {obj.get('v')!r}"
        return
    check, members = found
    for e in check.iter_errors(obj["data"]):
        yield f"data {'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
    for name in members:
        if name in obj["data"] and encrypted(obj["data"][name]) != (obj["v"] == 2):
            yield f"data {name}: {'plain text' if obj['v'] == 2 else 'an encrypted member'} in a v {obj['v']} line"


def main(args):
    envelope = validator(SCHEMA / "envelope.schema.json")
    data = {}  # (type, v): (validator, personal members)
    for p in (SCHEMA / "data").glob("*.schema.json"):
        check, name = validator(p), p.name.removesuffix(".schema.json")
        members = personal(check.schema)
        data[(name, 1)] = (check, members)
        if members:
            data[(name, 2)] = (check, members)
    files = []
    for arg in args or [EVENTS / "samples"]:
        path = Path(arg)
        files += sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]
    lines = bad = 0
    for path in files:
        rows = path.read_bytes().decode("utf-8").split("\n")
        if rows[-1] == "":
            rows.pop()  # the text after the final newline
        for n, row in enumerate(rows, 1):
            try:
                obj = json.loads(row)
            except ValueError as e:
                if n == len(rows) and path.name.startswith("torn-"):
                    print(f"{path}:{n}: skipped (torn final line)")
                    continue
                found = [f"not JSON: {e}"]
            else:
                found = list(problems(obj, envelope, data))
            lines += 1
            bad += bool(found)
            for msg in found:
                print(f"{path}:{n}: {msg}")
    print(f"validated {lines} lines in {len(files)} files" + (f": {bad} invalid" if bad else ""))
    return 1 if bad or not files else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
