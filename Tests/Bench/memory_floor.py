#!/usr/bin/env python3
"""The memory floor of a read that holds every row `replay` prints: the bytes of the fields each
view must keep (and the fold needs to go on), each once, with no padding, no allocator or
index slack, and a 4-byte position per index key. What no design that keeps every row in
memory can go under, to set beside the measured peak (Docs/Performance.md, "Peak memory").

Usage: python3 Tests/Bench/memory_floor.py LOG   (a data version 1 log: texts counted as written)

Prints the floor per view, in total and per million events, alone and with the fields two views
hold in common kept once (a registration's uid and email are its user's, a session's and an
image's uid a 4-byte reference to one table of uids).
"""
import json
import sys

MIB = 1 << 20


def main(path: str) -> None:
    users, sessions, images, registrations, refused = {}, 0, 0, {}, set()
    events = 0
    with open(path, "rb") as log:
        for line in log:
            events += 1
            event = json.loads(line)
            kind, data, stream = event["type"], event["data"], event["stream"]
            if kind == "AccountCreated":
                users[data["uid"]] = [len(data.get("email", "").encode()), 0]
            elif kind == "ProfileWritten":
                users.setdefault(data["uid"], [len(data.get("email", "").encode()), 0])[1] = len(data.get("userName", "").encode())
            elif kind == "SessionStarted":
                sessions += 1
            elif kind == "ImageStored":
                images += 1
            elif kind == "SignInFailed":
                refused.add(data["email"])
            if stream.startswith("registration-"):
                row = registrations.setdefault(stream, [None, 0])
                if row[0] is None and "email" in data:
                    row[0] = len(data["email"].encode())
                if kind == "Failed":
                    row[1] = sum(len(str(data.get(k, "")).encode()) for k in ("reason", "message", "email", "uid"))

    # Fixed fields, in bytes: ids 16, times 8, a digest 32, flags packed.
    session = 16 + 16 + 8 + 8 + 8                 # id, uid, started, expires, ended
    user = 16 + 16 + 8 + 16 + 8 + 2               # uid, registration, created, image, the email's seq, status and flags
    registration = 16 + 16 + 16 + 16 + 4 + 1      # id, uid, image, first and last times, version, flags
    image = 16 + 16 + 32 + 8 + 8 + 2              # name, uid, sha256, size, stored, type and status
    keys = sessions + 2 * len(users) + len(users) + len(registrations) + images  # + each user's last session
    rows = {
        "sessions": sessions * session,
        "users": len(users) * user + sum(e + n for e, n in users.values()),
        "registrations": len(registrations) * registration + sum((e or 0) + f for e, f in registrations.values()),
        "images": images * image,
        "id fingerprints (8 bytes an event)": events * 8,
        "indexes (4 bytes a key)": keys * 4,
    }
    shared = (len(registrations) * 12 + sum(e or 0 for e, _ in registrations.values())  # uid as a reference, email once
              + sessions * 12 + images * 12)                                            # uid as a reference
    total = sum(rows.values())
    per_million = 1_000_000 / events
    print(f"log: {events:,} events; users {len(users):,}, sessions {sessions:,}, images {images:,}, "
          f"registrations {len(registrations):,}, emails with refused sign-ins {len(refused):,}")
    print("| what | MiB | MiB per million events |")
    print("|---|---:|---:|")
    for name, size in rows.items():
        print(f"| {name} | {size / MIB:.1f} | {size / MIB * per_million:.1f} |")
    print(f"| **every row `replay` prints, each field once** | **{total / MIB:.1f}** | **{total / MIB * per_million:.1f}** |")
    print(f"| … with a registration's uid and email, a session's and an image's uid shared | {(total - shared) / MIB:.1f} | {(total - shared) / MIB * per_million:.1f} |")
    signins = len(refused) * 12 + sum(len(e.encode()) for e in refused)
    print(f"| `audit` also: each email with a refused sign-in (its bytes, two counts) | {signins / MIB:.1f} | {signins / MIB * per_million:.1f} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: memory_floor.py LOG")
    main(sys.argv[1])
