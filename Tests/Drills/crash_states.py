#!/usr/bin/env python3
"""Crash states explored, not sampled (Docs/Reliability.md, "Crash states explored").

Records the system calls of six commands with strace -- `register` with an image, `login`,
`account change-password`, `account reset-password`, `account delete --password-stdin` and
`recover` -- each run once on a prepared data folder, and enumerates the states a crash after any
of those calls can leave on disk under this model:

  * a crash may follow any call (every traced call that changes a file, a folder, or standard
    output is a crash point; point 0 is before the first one);
  * what a file held at its last fsync/fdatasync persists; the writes to it since may be lost, as
    a prefix of them in order, the last one of the prefix possibly cut: an append at every line
    boundary and in the middle of every line, any other write in its middle;
  * a create, rename, unlink, mkdir or link persists only once its folder is fsynced; before that
    each one independently is old or new (all subsets up to 6 pending ones, else prefixes);
  * files not synced since may persist independently of one another (a cross product);
  * memory-mapped caches (the writers' index, `events.jsonl.index`, whose writes strace cannot
    see) may be lost, stale (as before the command), as the command left them (only after its last
    log sync), or torn (a page of random bytes), and a crash is a reboot: the index's recorded boot
    id is replaced by another one (the code compares it with /proc/sys/kernel/random/boot_id,
    which the drill cannot change) and the traced process's pid is reused by a live process (the
    pid in temporary names `*.tmp-<pid>` then names a running process).

Each distinct state (the same bytes with the same output acknowledged are explored once) is
materialized in a fresh folder, `ledger recover` runs on it (a reboot: no process of the old boot
runs), then the invariants are checked:

  * `recover` succeeds and `verify` passes;
  * `audit` finds no anomaly; no registration is in progress or compensation-pending;
  * no acknowledged effect is lost (acknowledged = printed on standard output before the crash
    point): a printed registration is completed with its image and session, a printed session is
    active, a printed password change or reset is in force (the new password signs in, the old one
    does not) with the sessions it ended ended, a printed deletion is in force (image file gone);
  * nothing half-done: every batch the command appended outside a registration's stream is in the
    log whole or not at all (a registration's batch is the saga's steps, finished by `recover`);
    a password change or deletion that is in the log is in force, one that is not left the account
    as it was (its password signs in, its image file is there);
  * no orphan blob: every file in profile_image/ is a stored image's, with its bytes, and every
    stored image has its file;
  * one live account per email;
  * a reset token is redeemed at most once (in the log; and redeeming it again after `recover` is
    refused exactly when its reset is in the log);
  * a password check whose outcome is in the log is not counted again as a wrong password.

Usage: crash_states.py LEDGER_BINARY [--full | --bounded N] [--commands a,b] [--jobs J] [--keep]
Prints `explored N states, M violations` (and per command), each violation with its state; exit 1
when M > 0, 2 when the drill itself cannot run (strace missing, a command failing untraced).
Python 3 standard library only.
"""

import argparse
import hashlib
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
IMAGE = os.path.join(REPO, "Events/samples/demo/profile_image/05c4796f-c6d0-5b0f-80c6-01aa5f708738")

COMMANDS = ["register", "login", "change-password", "reset-password", "delete", "recover"]
PASSWORDS = {"alice": "alice-pass-1", "alice2": "alice-pass-2", "alice3": "alice-pass-3",
             "bob": "bob-pass-12", "carol": "carol-pass-1", "dave": "dave-pass-12"}
INDEX = "events.jsonl.index"
MMAPPED = (INDEX, INDEX + ".new", INDEX + ".grow")
FAKE_BOOT_ID = b"00000000-0000-4000-8000-00000000b007"
SYSCALLS = ("openat,open,creat,write,pwrite64,writev,pwritev,pwritev2,ftruncate,truncate,fallocate,"
            "fsync,fdatasync,sync_file_range,syncfs,sync,rename,renameat,renameat2,unlink,unlinkat,"
            "rmdir,mkdir,mkdirat,link,linkat,symlink,symlinkat,lseek,clone,clone3,vfork,fork,execve")

# ---------------------------------------------------------------------------------------------
# Running ledger


def env_for(data, mail):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEDGER_")}
    env.update(LEDGER_DATA=data, LEDGER_HASH_COST="1", LEDGER_MAILER=f"cat > '{mail}'",
               LEDGER_CHECKPOINT_EVERY=os.environ.get("CRASH_STATES_CHECKPOINT_EVERY", "2"))
    return env


def ledger(binary, data, mail, args, stdin="", extra_env=None, check=False):
    env = env_for(data, mail)
    env.update(extra_env or {})
    r = subprocess.run([binary] + args, input=stdin.encode(), capture_output=True, env=env, timeout=120)
    if check and r.returncode != 0:
        raise SystemExit(f"crash_states: setup step `ledger {' '.join(args)}` exited {r.returncode}: "
                         f"{r.stderr.decode(errors='replace').strip()}")
    return r


def reset_token(mail):
    text = open(mail, encoding="utf-8").read().replace("\r", "")
    return re.search(r"^[0-9a-f-]{36}\.[0-9a-f]{64}$", text, re.M).group(0)


# ---------------------------------------------------------------------------------------------
# The scenarios: a prepared data folder and one command


class Scenario:
    def __init__(self, name, args, stdin, facts):
        self.name, self.args, self.stdin, self.facts = name, args, stdin, facts


def prepare(binary, work, command):
    """Builds the data folder the command runs on; returns the Scenario."""
    data, mail = os.path.join(work, "data"), os.path.join(work, "mail.txt")

    def run(args, stdin="", **kw):
        return ledger(binary, data, mail, args, stdin, check=kw.pop("check", True), **kw)

    def register(name, image=True):
        args = ["register", "--email", f"{name}@example.com", "--username", name.title(), "--password-stdin", "--json"]
        if image:
            args += ["--image", IMAGE]
        return json.loads(run(args, PASSWORDS[name] + "\n").stdout)

    facts = {}
    alice, bob = register("alice"), register("bob")
    run(["login", "--email", "alice@example.com", "--password-stdin", "--json"], PASSWORDS["alice"] + "\n")
    run(["login", "--email", "bob@example.com", "--password-stdin", "--json"], PASSWORDS["bob"] + "\n")
    run(["account", "request-reset", "--email", "alice@example.com", "--json"])
    facts.update(alice=alice["uid"], bob=bob["uid"], token=reset_token(mail))
    if command == "register":
        return Scenario(command, ["register", "--email", "carol@example.com", "--username", "Carol", "--image", IMAGE,
                                  "--password-stdin", "--json"], PASSWORDS["carol"] + "\n", facts)
    if command == "login":
        return Scenario(command, ["login", "--email", "alice@example.com", "--password-stdin", "--json"],
                        PASSWORDS["alice"] + "\n", facts)
    if command == "change-password":
        return Scenario(command, ["account", "change-password", "--email", "alice@example.com", "--password-stdin", "--json"],
                        PASSWORDS["alice"] + "\n" + PASSWORDS["alice2"] + "\n", facts)
    if command == "reset-password":
        return Scenario(command, ["account", "reset-password", "--token-stdin", "--json"],
                        facts["token"] + "\n" + PASSWORDS["alice3"] + "\n", facts)
    if command == "delete":
        return Scenario(command, ["account", "delete", "bob@example.com", "--password-stdin", "--json"],
                        PASSWORDS["bob"] + "\n", facts)
    if command == "recover":
        # An interrupted registration (a power cut inside its batch: AccountCreated + ImageStored,
        # its blob and its lock file left), then a torn last line.
        r = run(["register", "--email", "dave@example.com", "--username", "Dave", "--image", IMAGE, "--password-stdin",
                 "--json"], PASSWORDS["dave"] + "\n", extra_env={"LEDGER_FAILPOINTS": "ProfileWritten=power-loss"},
                check=False)
        if r.returncode == 0:
            raise SystemExit("crash_states: the power-loss failpoint did not stop the registration")
        with open(os.path.join(data, "events.jsonl"), "ab") as f:
            f.write(b'{"seq":99,"id":"torn')
        return Scenario(command, ["recover", "--json"], "", facts)
    raise ValueError(command)


# ---------------------------------------------------------------------------------------------
# The trace

HEXBYTE = re.compile(r"\\x([0-9a-f]{2})")
LINE = re.compile(r"^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+|0x[0-9a-f]+)(?:<([^>]*)>)?")


def unhex(s):
    return bytes(int(h, 16) for h in HEXBYTE.findall(s))


def split_args(s):
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur).strip())
    return out


def fd_of(arg):
    """`5<\\x2f…>` -> (5, path) ; `AT_FDCWD<…>` -> (None, path)."""
    m = re.match(r"^(-?\d+|AT_FDCWD)(?:<([^>]*)>)?", arg)
    path = os.fsdecode(unhex(m.group(2))) if m and m.group(2) else None
    fd = int(m.group(1)) if m and m.group(1) != "AT_FDCWD" else None
    return fd, path


def string_arg(arg):
    assert arg.startswith('"'), arg
    return unhex(arg[1:arg.rindex('"')])


def join_lines(lines):
    pending = {}
    for line in lines:
        line = line.rstrip("\n")
        m = re.match(r"^(\d+)\s+(.*)$", line)
        if not m:
            continue
        pid, rest = m.groups()
        if rest.endswith("<unfinished ...>"):
            pending[pid] = rest[: -len("<unfinished ...>")].rstrip()
            continue
        r = re.match(r"^<\.\.\. \w+ resumed>(.*)$", rest)
        if r:
            rest = pending.pop(pid, "") + r.group(1)
        yield pid + " " + rest


def parse_trace(path, data_dir, stdout_path):
    """The trace as a list of operations on paths relative to the data folder:
    ('create'|'trunc'|'write'|'setsize'|'sync'|'syncdir'|'rename'|'unlink'|'mkdir'|'rmdir'|'link'|'out', …)."""
    data_dir = os.path.realpath(data_dir)
    stdout_path = os.path.realpath(stdout_path)
    foreign = set()        # pids running something else than ledger (the mailer's shell)
    offsets = {}           # fd -> [handle, offset, append, is folder]
    handles = [0]
    ops = []

    def rel(p):
        if p is None:
            return None
        p = os.path.normpath(p)
        if p == data_dir:
            return ""
        if p.startswith(data_dir + "/"):
            return p[len(data_dir) + 1:]
        return None

    def at_path(dirarg, patharg):
        _, base = fd_of(dirarg)
        p = os.fsdecode(string_arg(patharg))
        return rel(p if p.startswith("/") or base is None else os.path.join(base, p))

    for line in join_lines(open(path, encoding="latin-1")):
        m = LINE.match(line)
        if not m:
            continue
        pid, call, argstr, ret, retpath = m.groups()
        ret = int(ret, 0)
        if call in ("clone", "clone3", "vfork", "fork"):
            if pid in foreign and ret > 0:
                foreign.add(str(ret))
            continue
        if call == "execve":
            if ret == 0 and not string_arg(split_args(argstr)[0]).endswith(b"/ledger"):
                foreign.add(pid)
            continue
        if pid in foreign or ret < 0:
            continue
        a = split_args(argstr)
        if call in ("openat", "open", "creat"):
            if call == "openat":
                p, flags = at_path(a[0], a[1]), a[2]
            else:
                p, flags = rel(os.fsdecode(string_arg(a[0]))), (a[1] if call == "open" else "O_CREAT|O_TRUNC|O_WRONLY")
            if p is None:
                offsets.pop(ret, None)
                continue
            if "O_DIRECTORY" in flags:
                offsets[ret] = [p, 0, False, True]
                continue
            handles[0] += 1
            offsets[ret] = [handles[0], 0, "O_APPEND" in flags, False]
            ops.append(("open", handles[0], p, "O_CREAT" in flags))
            if "O_TRUNC" in flags:
                ops.append(("trunc", handles[0]))
            continue
        if call in ("write", "pwrite64", "writev", "pwritev", "pwritev2"):
            fd, fpath = fd_of(a[0])
            if call in ("writev", "pwritev", "pwritev2"):
                data = b"".join(unhex(s) for s in re.findall(r'iov_base="([^"]*)"', a[1]))
            else:
                data = string_arg(a[1])
            data = data[:ret]
            if fpath is not None and os.path.realpath(fpath) == stdout_path:
                ops.append(("out", data))
                continue
            if fd not in offsets or offsets[fd][3]:
                continue
            st = offsets[fd]
            if call in ("pwrite64", "pwritev", "pwritev2"):
                off = int(a[3] if call == "pwrite64" else a[3], 0)
            else:
                off = None if st[2] else st[1]
                st[1] += ret
            ops.append(("write", st[0], off, data))
            continue
        if call == "lseek":
            fd, _ = fd_of(a[0])
            if fd in offsets:
                offsets[fd][1] = ret
            continue
        if call in ("ftruncate", "fallocate"):
            fd, fpath = fd_of(a[0])
            if fd in offsets:
                size = int(a[1], 0) if call == "ftruncate" else int(a[2], 0) + int(a[3], 0)
                ops.append(("setsize" if call == "ftruncate" else "grow", offsets[fd][0], size))
            continue
        if call in ("fsync", "fdatasync"):
            fd, fpath = fd_of(a[0])
            if fd in offsets:
                st = offsets[fd]
                ops.append(("syncdir" if st[3] else "sync", st[0]))
            continue
        if call in ("rename", "renameat", "renameat2"):
            if call == "rename":
                src, dst = rel(os.fsdecode(string_arg(a[0]))), rel(os.fsdecode(string_arg(a[1])))
            else:
                src, dst = at_path(a[0], a[1]), at_path(a[2], a[3])
            if src is not None or dst is not None:
                ops.append(("rename", src, dst))
            continue
        if call in ("unlink", "unlinkat", "rmdir"):
            p = rel(os.fsdecode(string_arg(a[0]))) if call != "unlinkat" else at_path(a[0], a[1])
            if p is not None:
                ops.append(("rmdir" if call == "rmdir" or (call == "unlinkat" and "AT_REMOVEDIR" in a[2]) else "unlink", p))
            continue
        if call in ("mkdir", "mkdirat"):
            p = rel(os.fsdecode(string_arg(a[0]))) if call == "mkdir" else at_path(a[0], a[1])
            if p is not None:
                ops.append(("mkdir", p))
            continue
        if call in ("link", "linkat"):
            src, dst = ((rel(os.fsdecode(string_arg(a[0]))), rel(os.fsdecode(string_arg(a[1])))) if call == "link"
                        else (at_path(a[0], a[1]), at_path(a[2], a[3])))
            if dst is not None:
                ops.append(("link", src, dst))
            continue
        if call in ("sync_file_range", "syncfs", "sync"):
            ops.append(("note", call))
    return ops


# ---------------------------------------------------------------------------------------------
# The model: volatile and durable state of files and folders


class Inode:
    __slots__ = ("id", "kind", "vol", "dur", "pend")

    def __init__(self, ident, kind, content=b""):
        self.id, self.kind = ident, kind
        self.vol = bytearray(content)
        self.dur = bytes(content)
        self.pend = []     # data ops since the last sync: ('write', off|None, data) | ('size', n)


def apply_data(buf, op):
    if op[0] == "write":
        off = len(buf) if op[1] is None else op[1]
        if off > len(buf):
            buf.extend(b"\0" * (off - len(buf)))
        buf[off:off + len(op[2])] = op[2]
    elif op[0] == "size":
        if op[1] < len(buf):
            del buf[op[1]:]
        else:
            buf.extend(b"\0" * (op[1] - len(buf)))
    elif op[0] == "grow":
        if op[1] > len(buf):
            buf.extend(b"\0" * (op[1] - len(buf)))


def cut_points(op, before):
    """Where a write may be cut by a crash: an append at each line boundary and in the middle of
    each line; another write in its middle."""
    if op[0] != "write":
        return []
    data = op[2]
    append = op[1] is None or op[1] >= len(before)
    if not append:
        return [len(data) // 2] if len(data) > 1 else []
    cuts, start = set(), 0
    for i, b in enumerate(data):
        if b == 0x0A:
            if i + 1 < len(data):
                cuts.add(i + 1)
            cuts.add(start + (i + 1 - start) // 2)
            start = i + 1
    if start < len(data):
        cuts.add(start + (len(data) - start) // 2)
    cuts.discard(0)
    cuts.discard(len(data))
    return sorted(cuts)


class Model:
    def __init__(self, snapshot):
        self.next = 0
        self.inodes = {}
        self.vol = {}   # folder -> {name: inode id}
        self.dur = {}
        self.pending = []   # entry ops not yet durable: (folder, op)
        self.handles = {}   # the trace's open handles -> inode
        for folder, entries in snapshot.items():
            self.vol[folder], self.dur[folder] = {}, {}
            for name, (kind, content) in entries.items():
                ino = self.new_inode(kind, content)
                self.vol[folder][name] = ino
                self.dur[folder][name] = ino

    def new_inode(self, kind, content=b""):
        self.next += 1
        self.inodes[self.next] = Inode(self.next, kind, content)
        return self.next

    @staticmethod
    def split(p):
        folder, _, name = p.rpartition("/")
        return folder, name

    def lookup(self, p):
        folder, name = self.split(p)
        return self.vol.get(folder, {}).get(name)

    def entry_op(self, folder, op):
        apply_entry(self.vol, op)
        self.pending.append((folder, op))

    def step(self, op):
        kind = op[0]
        if kind == "open":
            ino = self.lookup(op[2])
            if ino is None and op[3]:
                ino = self.new_inode("file")
                self.entry_op(self.split(op[2])[0], ("add", op[2], ino))
            self.handles[op[1]] = ino
        elif kind in ("trunc", "write", "setsize", "grow"):
            ino = self.handles.get(op[1])
            if ino is None:
                return
            node = self.inodes[ino]
            d = ("size", 0) if kind == "trunc" else ("write", op[2], op[3]) if kind == "write" else \
                ("size", op[2]) if kind == "setsize" else ("grow", op[2])
            apply_data(node.vol, d)
            node.pend.append(d)
        elif kind == "sync":
            ino = self.handles.get(op[1])
            if ino is not None:
                node = self.inodes[ino]
                node.dur, node.pend = bytes(node.vol), []
        elif kind == "syncdir":
            folder = op[1]
            if folder in self.vol:
                self.dur[folder] = dict(self.vol[folder])
                self.pending = [(f, o) for f, o in self.pending if f != folder]
        elif kind == "rename":
            src, dst = op[1], op[2]
            ino = self.lookup(src) if src is not None else None
            if ino is None:
                return
            assert self.split(src)[0] == self.split(dst)[0], f"rename across folders: {op}"
            self.entry_op(self.split(src)[0], ("rename", src, dst, ino))
        elif kind in ("unlink", "rmdir"):
            if self.lookup(op[1]) is not None:
                self.entry_op(self.split(op[1])[0], ("del", op[1]))
        elif kind == "mkdir":
            if self.lookup(op[1]) is None:
                ino = self.new_inode("dir")
                self.vol[op[1]], self.dur[op[1]] = {}, {}
                self.entry_op(self.split(op[1])[0], ("add", op[1], ino))
        elif kind == "link":
            ino = self.lookup(op[1]) if op[1] is not None else None
            if ino is not None:
                self.entry_op(self.split(op[2])[0], ("add", op[2], ino))


def apply_entry(dirs, op):
    if op[0] == "add":
        folder, name = Model.split(op[1])
        dirs.setdefault(folder, {})[name] = op[2]
    elif op[0] == "del":
        folder, name = Model.split(op[1])
        dirs.get(folder, {}).pop(name, None)
    elif op[0] == "rename":
        folder, sname = Model.split(op[1])
        _, dname = Model.split(op[2])
        entries = dirs.setdefault(folder, {})
        if entries.get(sname) == op[3]:
            del entries[sname]
            entries[dname] = op[3]


def file_options(node):
    """The contents a file may persist with: its synced content, then each prefix of the writes
    since, the last one possibly cut."""
    opts = [("synced" if node.pend else "as-written", node.dur)]
    buf = bytearray(node.dur)
    for i, op in enumerate(node.pend):
        for c in cut_points(op, buf):
            cut = bytearray(buf)
            apply_data(cut, ("write", op[1], op[2][:c]))
            opts.append((f"{i + 1}/{len(node.pend)} writes, last cut at {c}", bytes(cut)))
        apply_data(buf, op)
        opts.append((f"{i + 1}/{len(node.pend)} writes", bytes(buf)))
    return opts


def entry_choices(pending, full):
    n = len(pending)
    if full and n <= 6:
        return [tuple(bool(mask >> i & 1) for i in range(n)) for mask in range(2 ** n)]
    choices = [tuple(i < k for i in range(n)) for k in range(n + 1)]
    if full:
        choices += [tuple(i != j for i in range(n)) for j in range(n)]
    return choices


def with_boot_id(content, boot_id=FAKE_BOOT_ID):
    b = bytearray(content)
    if len(b) >= 44:
        b[8:44] = boot_id
    return bytes(b)


def torn(content, seed):
    rng = random.Random(seed)
    b = bytearray(with_boot_id(content))
    if not b:
        return bytes(b)
    page = rng.randrange(0, max(1, len(b) // 4096)) * 4096
    for i in range(page, min(len(b), page + 4096)):
        b[i] = rng.randrange(256)
    return bytes(b)


def handle_paths(ops):
    return {op[1]: op[2] for op in ops if op[0] == "open"}


def enumerate_states(snapshot, ops, final_index, full):
    """Yields (point, label, tree, acknowledged) for every crash point and persisted state."""
    model = Model(snapshot)
    stale_index = snapshot.get("", {}).get(INDEX, (None, None))[1]
    paths = handle_paths(ops)
    last_log_sync = max([i for i, op in enumerate(ops) if op[0] == "sync" and paths.get(op[1]) == "events.jsonl"], default=-1)
    out = b""
    points = [(0, "before the first call")]
    states = []
    for i, op in enumerate(ops):
        if op[0] == "out":
            out += op[1]
        model.step(op)
        if op[0] in ("note",):
            continue
        describe = op[0] + " " + " ".join(str(x) for x in op[1:] if not isinstance(x, (bytes, bytearray)))
        if op[0] in ("open", "trunc", "write", "setsize", "grow", "sync"):
            describe = f"{op[0]} {paths.get(op[1])}" + (f" {len(op[3])} bytes at {op[2]}" if op[0] == "write" else "")
        elif op[0] == "out":
            describe = f"stdout {len(op[1])} bytes"
        if op[0] == "open" and not op[3]:
            continue
        yield from crash_states(model, i + 1, describe, out, stale_index,
                                final_index if i >= last_log_sync >= 0 else None, full)


def crash_states(model, point, describe, out, stale_index, final_index, full):
    for choice in entry_choices(model.pending, full):
        dirs = {f: dict(e) for f, e in model.dur.items()}
        for keep, (_, op) in zip(choice, model.pending):
            if keep:
                apply_entry(dirs, op)
        # Reachable folders (a folder whose own entry did not persist is absent with its contents).
        reachable, files = {""}, []
        changed = True
        while changed:
            changed = False
            for folder in list(dirs):
                if folder in reachable:
                    for name, ino in dirs[folder].items():
                        p = f"{folder}/{name}" if folder else name
                        if model.inodes[ino].kind == "dir" and p not in reachable:
                            reachable.add(p)
                            changed = True
        for folder in sorted(reachable):
            for name, ino in sorted(dirs.get(folder, {}).items()):
                p = f"{folder}/{name}" if folder else name
                if model.inodes[ino].kind != "dir":
                    files.append((p, ino))
        per_file = []
        for p, ino in files:
            node = model.inodes[ino]
            if p == INDEX:
                opts = [("index lost", None)]
                if stale_index is not None:
                    opts += [("index stale", with_boot_id(stale_index)), ("index torn", torn(stale_index, point))]
                if final_index is not None:
                    opts.append(("index as left", with_boot_id(final_index)))
                per_file.append((p, opts))
            elif p in MMAPPED:
                per_file.append((p, [("mapped temp", bytes(len(node.vol)))]))
            else:
                per_file.append((p, file_options(node)))
        entries_label = "".join("n" if k else "o" for k in choice)
        for combo in itertools.product(*[opts for _, opts in per_file]):
            tree = {f: None for f in reachable if f}
            labels = []
            for (p, opts), (label, content) in zip(per_file, combo):
                if content is not None:
                    tree[p] = content
                if len(opts) > 1:
                    labels.append(f"{p}: {label}")
            label = (f"after call {point} ({describe}); pending entry ops "
                     f"{[describe_entry(op) for _, op in model.pending]} persisted as {entries_label or '-'}; "
                     + "; ".join(labels))
            yield point, label, tree, out


def describe_entry(op):
    return op[0] + " " + " -> ".join(str(x) for x in op[1:3] if isinstance(x, str))


def digest(tree, out):
    h = hashlib.sha256(out)
    for p in sorted(tree):
        h.update(p.encode() + b"\0")
        h.update(b"D" if tree[p] is None else hashlib.sha256(tree[p]).digest())
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------
# Checking one state


def read_events(data):
    events = []
    try:
        with open(os.path.join(data, "events.jsonl"), "rb") as f:
            for line in f:
                if line.endswith(b"\n"):
                    events.append(json.loads(line))
    except FileNotFoundError:
        pass
    return events


def jsonl_ids(data):
    ids = []
    for line in data.split(b"\n"):
        if line.strip():
            ids.append(json.loads(line))
    return ids


class Checker:
    def __init__(self, binary, scenario, batches, marker, traced_pid):
        self.binary, self.scenario, self.batches, self.marker = binary, scenario, batches, marker
        self.traced_pid = traced_pid

    def run(self, tree, out, root):
        data, mail = os.path.join(root, "data"), os.path.join(root, "mail.txt")
        live_pid = str(os.getpid())   # a live process reusing the crashed process's pid (a reboot)
        for p in sorted(tree, key=lambda p: (p.count("/"), p)):
            target = os.path.join(data, p.replace(f".tmp-{self.traced_pid}", f".tmp-{live_pid}"))
            if tree[p] is None:
                os.makedirs(target, exist_ok=True)
        os.makedirs(data, exist_ok=True)
        for p, content in tree.items():
            if content is not None:
                target = os.path.join(data, p.replace(f".tmp-{self.traced_pid}", f".tmp-{live_pid}"))
                with open(target, "wb") as f:
                    f.write(content)
        problems = []

        def cmd(args, stdin=""):
            return ledger(self.binary, data, mail, args, stdin)

        rec = cmd(["recover", "--json"])
        if rec.returncode != 0:
            problems.append(f"recover exited {rec.returncode}: {(rec.stderr or rec.stdout).decode(errors='replace').strip()[:300]}")
            return problems
        ver = cmd(["verify", "--json"])
        if ver.returncode != 0:
            problems.append(f"verify failed: {ver.stdout.decode(errors='replace').strip()[:300]}")
            return problems
        audit = cmd(["audit", "--json"])
        anomalies = json.loads(audit.stdout).get("anomalies", []) if audit.stdout.strip() else ["no output"]
        if audit.returncode != 0 or anomalies:
            problems.append(f"audit after recover: exit {audit.returncode}, anomalies {anomalies}")
        users = json.loads(cmd(["users", "--json"]).stdout)
        images = json.loads(cmd(["images", "--json"]).stdout)
        sessions = json.loads(cmd(["sessions", "--json"]).stdout)
        events = read_events(data)
        ids = {e["id"] for e in events}
        session_status = {s["sessionId"]: s["status"] for s in sessions}
        user = {u["uid"]: u for u in users}
        facts = self.scenario.facts

        # Registrations: none in progress or compensation-pending.
        regs = {}
        for e in events:
            if e["stream"].startswith("registration-"):
                regs.setdefault(e["stream"], []).append(e["type"])
        for stream, types in regs.items():
            done = "ProfileWritten" in types or ("Failed" in types and ("AccountCreated" not in types or "AccountDeleted" in types)
                                                  and ("ImageStored" not in types or "ImageDeleted" in types))
            if not done:
                problems.append(f"half-done registration {stream}: {types}")

        # One live account per email.
        live = {}
        for u in users:
            if u["status"] != "deleted":
                live.setdefault(u["email"], []).append(u["uid"])
        for email, uids in live.items():
            if len(uids) > 1:
                problems.append(f"{len(uids)} live accounts for {email}")

        # No orphan blob, no lost one.
        stored = {i["imageName"]: i for i in images if i["status"] == "stored"}
        folder = os.path.join(data, "profile_image")
        files = set(os.listdir(folder)) if os.path.isdir(folder) else set()
        for name in sorted(files - set(stored)):
            problems.append(f"orphan file profile_image/{name} after recover")
        for name in sorted(set(stored) - files):
            problems.append(f"stored image {name} has no file")
        for name in sorted(set(stored) & files):
            blob = open(os.path.join(folder, name), "rb").read()
            if hashlib.sha256(blob).hexdigest() != stored[name]["sha256"]:
                problems.append(f"stored image {name}: its file holds other bytes ({len(blob)})")

        # Temporary files of every kind are cleaned by recover (a checkpoint's, a blob's).
        for name in sorted(os.listdir(data)):
            if ".tmp-" in name:
                problems.append(f"temporary file {name} left after recover")

        # A reset token redeemed at most once (in the log).
        last_request = {}
        for e in events:
            if e["type"] == "PasswordResetRequested":
                last_request[e["data"]["uid"]] = 0
            elif e["type"] == "PasswordChanged" and e["data"].get("reason") == "reset":
                uid = e["data"]["uid"]
                if uid in last_request:
                    last_request[uid] += 1
                    if last_request[uid] > 1:
                        problems.append(f"reset token of {uid} redeemed twice")
                else:
                    problems.append(f"a reset of {uid} without a request")

        # Each batch of the traced command outside a registration's stream: whole or absent.
        pairs = {(e["type"], e["stream"]) for e in events}
        for batch in self.batches:
            # A line is in the log by its id, or (a batch finished by recover) by its type and stream.
            present = [e["id"] in ids or (e["type"], e["stream"]) in pairs for e in batch]
            if batch[0]["stream"].startswith("registration-"):
                continue
            if any(present) and not all(present):
                kept = [e["type"] for e, p in zip(batch, present) if p]
                problems.append(f"half a batch in the log (item 13): {kept} of {[e['type'] for e in batch]}")

        # What was acknowledged.
        acks = []
        for line in out.split(b"\n"):
            try:
                acks.append(json.loads(line))
            except ValueError:
                pass
        ack = acks[-1] if acks else None
        name = self.scenario.name
        batch_ids = {e["id"] for b in self.batches for e in b}
        in_log = {e["type"] for e in events if e["id"] in batch_ids}
        if ack and ack.get("status") == "registered":
            r = ack["registration"]
            if "ProfileWritten" not in regs.get(f"registration-{r}", []):
                problems.append(f"acknowledged registration {r} is not completed: {regs.get(f'registration-{r}')}")
            if user.get(ack["uid"], {}).get("status") not in ("active",):
                problems.append(f"acknowledged account {ack['uid']} is {user.get(ack['uid'], {}).get('status')}")
            if ack.get("profileImageName") and ack["profileImageName"] not in stored:
                problems.append(f"acknowledged image {ack['profileImageName']} is not stored")
        if ack and ack.get("sessionId") and session_status.get(ack["sessionId"]) != "active":
            problems.append(f"acknowledged session {ack['sessionId']} is {session_status.get(ack['sessionId'])}")
        for sid in (ack or {}).get("endedSessions", []):
            if session_status.get(sid) == "active":
                problems.append(f"session {sid} acknowledged as ended is active")
        if name in ("change-password", "reset-password"):
            new = PASSWORDS["alice2" if name == "change-password" else "alice3"]
            changed = "PasswordChanged" in in_log
            if ack and not changed:
                problems.append("acknowledged password change is not in the log")
            right, wrong = (new, PASSWORDS["alice"]) if changed else (PASSWORDS["alice"], new)
            if cmd(["login", "--email", "alice@example.com", "--password-stdin", "--json"], wrong + "\n").returncode == 0:
                problems.append(f"the {'old' if changed else 'new'} password signs in (PasswordChanged {'in' if changed else 'not in'} the log)")
            if cmd(["login", "--email", "alice@example.com", "--password-stdin", "--json"], right + "\n").returncode != 0:
                problems.append(f"the {'new' if changed else 'old'} password is refused (PasswordChanged {'in' if changed else 'not in'} the log)")
            if name == "reset-password":
                again = cmd(["account", "reset-password", "--token-stdin", "--json"], facts["token"] + "\nalice-pass-4\n")
                if changed and again.returncode == 0:
                    problems.append("the used reset token is redeemed again")
                if not changed and again.returncode != 0:
                    problems.append(f"the unused reset token is refused: {again.stdout.decode(errors='replace').strip()[:200]}")
        if name == "delete":
            deleted = "AccountDeleted" in in_log
            if ack and not deleted:
                problems.append("acknowledged deletion is not in the log")
            status = user.get(facts["bob"], {}).get("status")
            if deleted and status != "deleted":
                problems.append(f"deleted account is {status}")
            signs_in = cmd(["login", "--email", "bob@example.com", "--password-stdin", "--json"], PASSWORDS["bob"] + "\n").returncode == 0
            if deleted and signs_in:
                problems.append("a deleted account signs in")
            if not deleted and not signs_in:
                problems.append("an account whose deletion is not in the log cannot sign in")
            if not deleted and not any(i["uid"] == facts["bob"] for i in stored.values()):
                problems.append("an account whose deletion is not in the log lost its image"
                                + (" (item 13: ImageDeleted without AccountDeleted)" if "ImageDeleted" in in_log else ""))
        if name == "login":
            # The probe: the same password again signs in.
            if cmd(["login", "--email", "alice@example.com", "--password-stdin", "--json"], PASSWORDS["alice"] + "\n").returncode != 0:
                problems.append("the right password is refused after recover")
        if self.marker and name in ("login", "change-password", "delete"):
            attempt, session = self.marker
            events = read_events(data)
            outcome = bool(in_log) or any(e["type"] == "SessionStarted" and e["data"].get("sessionId") == session for e in events)
            counted = [e for e in events if e["stream"] == f"signin-{attempt}" and e["type"] == "SignInFailed"
                       and e["data"].get("reason") == "wrong-password"]
            if outcome and counted:
                problems.append("a right password whose outcome is in the log is counted as a wrong one")
        return problems


# ---------------------------------------------------------------------------------------------
# Driving


def snapshot_tree(data):
    tree = {"": {}}
    for root, dirs, files in os.walk(data):
        r = os.path.relpath(root, data)
        r = "" if r == "." else r
        tree.setdefault(r, {})
        for d in dirs:
            tree[r][d] = ("dir", b"")
            tree.setdefault(f"{r}/{d}" if r else d, {})
        for f in files:
            tree[r][f] = ("file", open(os.path.join(root, f), "rb").read())
    return tree


def run_command(binary, args, full, bounded, jobs, keep, verbose):
    work = tempfile.mkdtemp(prefix=f"ledger-crash-{args}-")
    try:
        sc = prepare(binary, work, args)
        data = os.path.join(work, "data")
        snap = snapshot_tree(data)
        trace, stdout = os.path.join(work, "trace"), os.path.join(work, "stdout")
        with open(stdout, "wb") as out, open(os.path.join(work, "stderr"), "wb") as err:
            r = subprocess.run(["strace", "-f", "-y", "-qq", "-xx", "-s", "16777216", "-e", "trace=" + SYSCALLS,
                                "-o", trace, binary] + sc.args,
                               input=sc.stdin.encode(), stdout=out, stderr=err,
                               env=env_for(data, os.path.join(work, "mail.txt")), timeout=300)
        if r.returncode != 0:
            raise SystemExit(f"crash_states: traced `ledger {' '.join(sc.args)}` exited {r.returncode}: "
                             f"{open(os.path.join(work, 'stderr')).read().strip()}")
        traced_pid = open(trace, encoding="latin-1").readline().split()[0]
        ops = parse_trace(trace, data, stdout)
        final_index = open(os.path.join(data, INDEX), "rb").read() if os.path.exists(os.path.join(data, INDEX)) else None
        paths = handle_paths(ops)
        if verbose:
            for i, op in enumerate(ops):
                print(f"  call {i + 1}: {op[0]} " + " ".join(
                    f"{len(x)} bytes" if isinstance(x, (bytes, bytearray)) else str(paths.get(x, x) if op[0] != "open" and j == 0 else x)
                    for j, x in enumerate(op[1:])))
        batches = [jsonl_ids(op[3]) for op in ops if op[0] == "write" and paths[op[1]] == "events.jsonl" and op[3].startswith(b"{")]
        marker = None
        for op in ops:
            if op[0] == "write" and paths[op[1]].startswith("locks/") and paths[op[1]].endswith(".signin"):
                parts = op[3].decode(errors="replace").split()
                if len(parts) >= 2:
                    marker = (parts[0], parts[1])
        seen, states = set(), []
        for point, label, tree, ack in enumerate_states(snap, ops, final_index, full):
            key = digest(tree, ack)
            if key not in seen:
                seen.add(key)
                states.append((point, label, tree, ack))
        total = len(states)
        if bounded is not None and total > bounded:
            # Systematic, not random: first every distinct (log, acknowledged output) pair, then the
            # rest; each pass round robin over the crash points, in each point's own order.
            by_point, logs = {}, set()
            first, rest = [], []
            for st in states:
                key = hashlib.sha256((st[2].get("events.jsonl") or b"") + b"\0" + st[3]).digest()
                (rest if key in logs else first).append(st)
                logs.add(key)
            chosen = []
            for group in (first, rest):
                by_point = {}
                for st in group:
                    by_point.setdefault(st[0], []).append(st)
                queues = [list(v) for _, v in sorted(by_point.items())]
                while len(chosen) < bounded and any(queues):
                    for q in queues:
                        if q and len(chosen) < bounded:
                            chosen.append(q.pop(0))
            states = chosen
        checker = Checker(binary, sc, batches, marker, traced_pid)
        violations, lock = [], threading.Lock()

        def check(state):
            point, label, tree, ack = state
            root = tempfile.mkdtemp(prefix="state-", dir=work)
            try:
                problems = checker.run(tree, ack, root)
            except Exception as e:   # a check that cannot run is a violation, not a pass
                problems = [f"check raised {type(e).__name__}: {e}"]
            finally:
                if not keep:
                    shutil.rmtree(root, ignore_errors=True)
            if problems:
                with lock:
                    violations.append((label, problems, ack.decode(errors="replace").strip()))

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(check, states))
        calls = sum(1 for op in ops if op[0] != "note")
        return dict(command=args, calls=calls, distinct=total, explored=len(states), violations=violations, work=work)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ledger")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--full", action="store_true", help="every state of the model (the default)")
    g.add_argument("--bounded", type=int, metavar="N", help="at most N states per command, round robin over the crash points")
    ap.add_argument("--commands", default=",".join(COMMANDS))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true", help="keep the work folders")
    ap.add_argument("--verbose", action="store_true")
    o = ap.parse_args()
    if shutil.which("strace") is None:
        print("crash_states: strace is not installed (apt-get install strace; .ci/run installs it)", file=sys.stderr)
        sys.exit(2)
    binary = os.path.abspath(o.ledger)
    full = o.bounded is None
    total_states = total_violations = 0
    kinds = {}
    for name in o.commands.split(","):
        res = run_command(binary, name, full, o.bounded, o.jobs, o.keep, o.verbose)
        total_states += res["explored"]
        total_violations += len(res["violations"])
        print(f"{name}: {res['calls']} calls, {res['distinct']} distinct crash states, explored {res['explored']}, "
              f"{len(res['violations'])} violations" + (f" (work folder {res['work']})" if o.keep else ""))
        for label, problems, ack in res["violations"]:
            for p in problems:
                kinds.setdefault((name, re.sub(r"[0-9a-f-]{36}", "…", p)), []).append(label)
            if o.verbose:
                print(f"  VIOLATION in state {label}\n    acknowledged: {ack or '(nothing)'}")
                for p in problems:
                    print(f"    - {p}")
    if kinds:
        print("violations by kind:")
        for (name, p), labels in sorted(kinds.items()):
            print(f"  {name}: {p} — {len(labels)} states, e.g. {labels[0]}")
    print(f"explored {total_states} states, {total_violations} violations")
    sys.exit(1 if total_violations else 0)


if __name__ == "__main__":
    main()
