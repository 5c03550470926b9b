#!/usr/bin/env python3
"""Rebuild ledger's views from a v1 log with orjson and print the summary `ledger replay FILE --json` prints.

Usage: python3 replay_orjson.py FILE [--verify]

The contender of Docs/Performance.md: it folds every event into the same four views as
`ledger replay` folds and prints (users, sessions, images, registrations), with the same
rules (Sources/LedgerDomain/Views, Saga/RegistrationFacts.swift), then counts rows by status at
"now" and digests each view's rows (SHA-256 of their compact JSON) exactly as ReplayCommand.swift
does, so its output is byte-for-byte that of `ledger replay FILE --json`. It trusts the log: no hash chain, no schema checks
(ledger replay checks both), unless --verify, which adds the hash/seq/prev checks of
Events/tools/verify_log.py. Needs orjson (pip install orjson).
"""
import datetime
import hashlib
import sys

import orjson

USER_STATUSES = ("pending", "active", "deleted", "disabled")
SESSION_STATUSES = ("active", "ended", "expired")
IMAGE_STATUSES = ("stored", "deleted")
OUTCOMES = ("completed", "rejected", "compensated", "compensation-pending", "in-progress")


class Registration:
    """RegistrationRow: one registration folded from its stream."""
    __slots__ = ("registration", "started_at", "last_at", "email", "uid", "account_live", "with_image",
                 "image_name", "image_live", "profile_written", "failure", "compensations", "version")

    def __init__(self, registration):
        self.registration = registration
        self.started_at = self.last_at = self.email = self.uid = self.image_name = self.failure = None
        self.account_live = self.with_image = self.image_live = self.profile_written = False
        self.compensations = []
        self.version = 0

    def outcome(self):
        if self.profile_written and self.failure is None:
            return "completed"
        if self.failure is None:
            return "in-progress"
        if self.uid is None and self.image_name is None:
            return "rejected"
        return "compensation-pending" if self.account_live or self.image_live else "compensated"


def replay(path, verify=False):
    users = {}             # uid -> {uid, email, userName, profileImageName, createdAt, status, registration, emailVerified}
    live_by_email = {}     # email -> uid
    sessions = {}          # sessionId -> {sessionId, uid, startedAt, expiresAt, endedAt, tokenHash}
    sessions_by_uid = {}   # uid -> [sessionId]: ends an account's sessions without scanning them all
    images = {}            # imageName -> {imageName, uid, contentType, bytes, sha256, storedAt, status}
    registrations = {}     # registration id -> Registration
    events, head_seq, head_hash = 0, 0, "0" * 64
    loads = orjson.loads
    with open(path, "rb") as f:
        for line in f:
            e = loads(line)
            if verify:
                cut = line.rindex(b',"hash":"')
                if (hashlib.sha256(line[:cut]).hexdigest() != e["hash"] or e["seq"] != head_seq + 1
                        or e["prev"] != head_hash):
                    sys.exit(f"bad line {events + 1}")
            kind, data, at, stream = e["type"], e["data"], e["at"], e["stream"]
            if kind == "AccountCreated":
                uid, email = data["uid"], data["email"]
                users[uid] = {"uid": uid, "email": email, "userName": None, "profileImageName": None,
                              "createdAt": None, "status": "pending", "registration": stream[13:],
                              "emailVerified": False}
                live_by_email[email] = uid
            elif kind == "ProfileWritten":
                row = users.get(data["uid"])
                if row is not None:
                    row["userName"], row["profileImageName"] = data["userName"], data["profileImageName"]
                    row["createdAt"] = data["createdAt"]
                    if row["status"] != "deleted":
                        row["status"] = "active"
            elif kind == "EmailVerified":
                row = users.get(data["uid"])
                if row is not None and row["email"] == data["email"]:
                    row["emailVerified"] = True
            elif kind == "EmailChanged":
                row = users.get(data["uid"])
                if row is not None:
                    row["email"], row["emailVerified"] = data["email"], False
            elif kind == "AccountDeleted":
                uid = data["uid"]
                row = users.get(uid)
                if row is not None:
                    row["status"] = "deleted"
                    if live_by_email.get(row["email"]) == uid:
                        del live_by_email[row["email"]]
                for sid in sessions_by_uid.get(uid, ()):
                    s = sessions[sid]
                    if s["uid"] == uid and s["endedAt"] is None:
                        s["endedAt"] = at
            elif kind == "SessionStarted":
                sid, uid = data["sessionId"], data["uid"]
                sessions[sid] = {"sessionId": sid, "uid": uid, "startedAt": at, "expiresAt": data["expiresAt"],
                                 "endedAt": None, "tokenHash": data["tokenHash"]}
                sessions_by_uid.setdefault(uid, []).append(sid)
            elif kind == "SessionEnded":
                s = sessions.get(data["sessionId"])
                if s is not None and s["endedAt"] is None:
                    s["endedAt"] = at
            elif kind == "ImageStored":
                name = data["imageName"]
                images[name] = {"imageName": name, "uid": data["uid"], "contentType": data["contentType"],
                                "bytes": data["bytes"], "sha256": data["sha256"], "storedAt": at, "status": "stored"}
            elif kind == "ImageDeleted":
                img = images.get(data["imageName"])
                if img is not None:
                    img["status"] = "deleted"
            if stream.startswith("registration-"):
                rid = stream[13:]
                r = registrations.get(rid)
                if r is None:
                    r = registrations[rid] = Registration(rid)
                r.version += 1
                if r.started_at is None:
                    r.started_at = at
                r.last_at = at
                if kind == "AccountCreated":
                    r.uid, r.email, r.account_live = data["uid"], data["email"], True
                    r.with_image = bool(data.get("withImage"))
                elif kind == "ImageStored":
                    r.image_name, r.image_live = data["imageName"], True
                elif kind == "ProfileWritten":
                    r.profile_written = True
                elif kind == "Failed":
                    if r.failure is None:
                        r.failure = data
                    if r.email is None:
                        r.email = data.get("email")
                elif kind == "ImageDeleted":
                    r.image_live = False
                    r.compensations.append(kind)
                elif kind == "AccountDeleted":
                    r.account_live = False
                    r.compensations.append(kind)
            events += 1
            head_seq, head_hash = e["seq"], e["hash"]

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"

    def count(values, keys):
        out = dict.fromkeys(keys, 0)
        for v in values:
            out[v] += 1
        return out

    def session_status(s):
        if s["endedAt"] is not None:
            return "ended"
        return "active" if s["expiresAt"] > now else "expired"  # canonical RFC 3339 strings sort as times

    def digest(rows):
        # ReplayCommand.digest: SHA-256 of the view's compact JSON rows, in view order. orjson writes
        # the same bytes as JSONWriter here: no spaces, UTF-8 as is, only '"', '\\' and controls escaped.
        return hashlib.sha256(orjson.dumps(rows)).hexdigest()

    for s in sessions.values():
        s["status"] = session_status(s)
    user_rows = [{k: u[k] for k in ("uid", "email", "userName", "profileImageName", "createdAt", "status",
                                           "emailVerified")}
                 for u in users.values()]
    session_rows = [{k: s[k] for k in ("sessionId", "uid", "startedAt", "expiresAt", "endedAt", "status")}
                    for s in sessions.values()]
    registration_rows = [{"registration": r.registration, "startedAt": r.started_at, "email": r.email,
                          "outcome": r.outcome(), "step": r.failure["step"] if r.failure else None,
                          "reason": r.failure["reason"] if r.failure else None, "compensations": r.compensations}
                         for r in registrations.values()]
    return {
        "events": events,
        "head": {"seq": head_seq, "hash": head_hash},
        "users": count((u["status"] for u in user_rows), USER_STATUSES),
        "sessions": count((s["status"] for s in session_rows), SESSION_STATUSES),
        "images": count((i["status"] for i in images.values()), IMAGE_STATUSES),
        "registrations": count((r["outcome"] for r in registration_rows), OUTCOMES),
        "digest": {"users": digest(user_rows), "sessions": digest(session_rows),
                   "images": digest(list(images.values())), "registrations": digest(registration_rows)},
    }

if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--verify"):
        sys.exit("usage: replay_orjson.py FILE [--verify]")
    sys.stdout.buffer.write(orjson.dumps(replay(sys.argv[1], verify=len(sys.argv) == 3)) + b"\n")
