#!/usr/bin/env python3
"""Durable single-row commits per second in SQLite, WAL mode, synchronous=FULL.

Usage: python3 sqlite_wal_commits.py N [DIR] [THREADS]

The reference for ledger's durable appends (Docs/Performance.md): N transactions, each
BEGIN; INSERT one row of about a log line's size; COMMIT — with journal_mode=WAL and
synchronous=FULL every COMMIT syncs the WAL before it returns, as an fsynced append does.
The database is made fresh in DIR (default: a new temporary folder under /tmp, the same disk
as the benchmark's work folder) after one untimed warm-up commit. Prints
"N commits in S s: R commits/s" (the line compare.sh reads).

With THREADS (default 1), that many threads commit at once, each on a connection of its own
(busy_timeout 60 s, BEGIN IMMEDIATE), N commits in all: SQLite's answer to concurrent writers,
for the group-commit comparison (group_commit.sh). sqlite3 releases the GIL while it waits.
"""
import threading
import os
import sqlite3
import sys
import tempfile
import time

# About the size of a ledger AccountCreated line: the same kind of payload ledger appends.
ROW = ('{"uid":"%s","email":"registrant.%d@example.com","passwordHash":"$y$j75$ZxoaBuQzlfJwNCzMcO4c1.'
       '$Wcv3ZGs6aqBZhNoJ1mc1s3QDW2rzfGm6rgjlOhsRQk1","withImage":false,"prev":"%s"}')


def main():
    if len(sys.argv) not in (2, 3, 4):
        sys.exit("usage: sqlite_wal_commits.py N [DIR] [THREADS]")
    n = int(sys.argv[1])
    folder = sys.argv[2] if len(sys.argv) >= 3 else tempfile.mkdtemp(prefix="sqlite-wal-")
    threads = int(sys.argv[3]) if len(sys.argv) == 4 else 1
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
    if threads == 1:
        began = time.perf_counter()
        for row in rows[1:]:
            commit(row)
        seconds = time.perf_counter() - began
    else:
        connections = []
        for _ in range(threads):
            c = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=60)
            c.execute("PRAGMA synchronous=FULL")
            connections.append(c)

        def work(k):
            c = connections[k]
            for row in rows[1 + k::threads]:
                c.execute("BEGIN IMMEDIATE")
                c.execute("INSERT INTO events (stream, body) VALUES (?, ?)", row)
                c.execute("COMMIT")

        workers = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
        began = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        seconds = time.perf_counter() - began
        assert db.execute("SELECT count(*) FROM events").fetchone()[0] == n + 1
        for c in connections:
            c.close()
    db.close()
    print(f"{n} commits in {seconds:.3f} s: {n / seconds:.1f} commits/s")


if __name__ == "__main__":
    main()
