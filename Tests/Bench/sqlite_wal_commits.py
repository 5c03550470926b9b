#!/usr/bin/env python3
"""Durable single-row commits per second in SQLite, WAL mode, synchronous=FULL.

Usage: python3 sqlite_wal_commits.py N [DIR]

The reference for ledger's durable appends (Docs/Performance.md): N transactions, each
BEGIN; INSERT one row of about a log line's size; COMMIT — with journal_mode=WAL and
synchronous=FULL every COMMIT syncs the WAL before it returns, as an fsynced append does.
The database is made fresh in DIR (default: a new temporary folder under /tmp, the same disk
as the benchmark's work folder) after one untimed warm-up commit. Prints
"N commits in S s: R commits/s" (the line compare.sh reads).
"""
import os
import sqlite3
import sys
import tempfile
import time

# About the size of a ledger AccountCreated line: the same kind of payload ledger appends.
ROW = ('{"uid":"%s","email":"registrant.%d@example.com","passwordHash":"$y$j75$ZxoaBuQzlfJwNCzMcO4c1.'
       '$Wcv3ZGs6aqBZhNoJ1mc1s3QDW2rzfGm6rgjlOhsRQk1","withImage":false,"prev":"%s"}')


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: sqlite_wal_commits.py N [DIR]")
    n = int(sys.argv[1])
    folder = sys.argv[2] if len(sys.argv) == 3 else tempfile.mkdtemp(prefix="sqlite-wal-")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "commits.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    db = sqlite3.connect(path, isolation_level=None)  # autocommit: the transactions below are explicit
    mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    assert mode == "wal", mode
    db.execute("PRAGMA synchronous=FULL")
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    db.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, stream TEXT NOT NULL, body TEXT NOT NULL)")

    # The rows are made before the clock starts, as ledger-bench makes its events: only commits are timed.
    rows = [("registration-%032x" % i, ROW % ("%032x" % i, i, "%064x" % i)) for i in range(n + 1)]

    def commit(row):
        db.execute("BEGIN")
        db.execute("INSERT INTO events (stream, body) VALUES (?, ?)", row)
        db.execute("COMMIT")

    commit(rows[0])
    began = time.perf_counter()
    for row in rows[1:]:
        commit(row)
    seconds = time.perf_counter() - began
    db.close()
    print(f"{n} commits in {seconds:.3f} s: {n / seconds:.1f} commits/s")


if __name__ == "__main__":
    main()
