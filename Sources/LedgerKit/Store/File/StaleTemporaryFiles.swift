import Glibc
import LedgerDomain

// MARK: - StaleTemporaryFiles

/// The temporary files of the data folder's atomic writes (`FileSystem.writeAtomically`: the index
/// and view checkpoints, `events.jsonl.index.checkpoint.tmp-<pid>`) whose writer is gone: a crash
/// while one was written leaves it behind (hundreds of kilobytes each), and `recover` removes it.
/// A temporary file whose writer still runs is left alone; so is every name the ledger does not write.
/// Whether the writer runs is the file's own `flock` (taken by `writeAtomically` as soon as the file
/// is created, held until it is closed), not the pid in its name: after a reboot that pid may name an
/// unrelated live process, and the file would stay forever (found by `Tests/Drills/crash_states.py`).
/// A file taken in the instant between its creation and its writer's lock costs that writer one
/// checkpoint save (a cache), nothing else.
public enum StaleTemporaryFiles {
    /// The names whose temporary files are the ledger's: the two checkpoints' atomic writes, the
    /// key store's growth into a new file, and the sizes witnesses cosigned (the heads a key signed
    /// are kept beside the key, not here).
    public static let targets = ["events.jsonl.index.checkpoint", "events.jsonl.checkpoint", "events.keys",
                                 "events.jsonl.witnesses"]

    /// The writer's process id of a temporary name `<target>.tmp-<pid>` in the data folder (a pid
    /// written as `getpid()` writes it: digits, no sign, no leading zero), else nil.
    public static func writer(of name: String) -> Int32? {
        guard let marker = name.firstRange(of: ".tmp-"), targets.contains(String(name[..<marker.lowerBound])),
              let pid = Int32(name[marker.upperBound...]), pid > 0, String(pid) == name[marker.upperBound...] else { return nil }
        return pid
    }

    /// Removes each stale temporary file of `directory` (then syncs the folder once); returns their names.
    public static func remove(in directory: String) throws -> [String] {
        guard let folder = opendir(directory) else {
            if errno == ENOENT { return [] }
            throw SystemError("list", path: directory)
        }
        var stale: [(name: String, pid: Int32)] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard let pid = writer(of: name), pid != getpid() else { continue }
            // A folder with such a name is nothing the ledger wrote: left for the operator, never in the way.
            var info = stat()
            guard lstat(FileSystem.join(directory, name), &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { continue }
            stale.append((name, pid))
        }
        closedir(folder)
        var removed: [String] = []
        for (name, pid) in stale {
            let path = FileSystem.join(directory, name)
            // A regular file is its writer's while its lock is held. Anything else (a link, which is
            // removed as a name, never followed) has no lock to ask: its pid's word is all there is.
            let writerGone: Bool
            if let file = try? FileDescriptor(path: path, flags: O_RDONLY) {
                writerGone = (try? file.tryLock(LOCK_EX)) == true
            } else {
                writerGone = kill(pid, 0) != 0 && errno == ESRCH
            }
            guard writerGone else { continue }
            if unlink(path) != 0 && errno != ENOENT { throw SystemError("remove", path: path) }
            removed.append(name)
        }
        if !removed.isEmpty { try FileSystem.syncDirectory(directory) }
        return removed.sorted()
    }
}
