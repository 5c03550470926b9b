import Glibc
import LedgerDomain

// MARK: - FileEventStore: does the key store belong to this log?

extension FileEventStore {
    /// How much of the log, at each end, a writer reads for subjects its key store must know.
    static let keyStoreMatchWindow = 1 << 16
    /// How many subjects at each end of the log are enough to tell a key store of this log.
    static let keyStoreMatchSubjects = 8

    /// Before a writer first writes with `keys` (a process opens the key store once): the subjects
    /// the encrypted members of the log's first lines and of its last lines name must be in it, live
    /// or erased, or erased by the log (a key store copied before a subject was made and erased:
    /// nothing of it is lost; its erased slot is written then, so the next writer need not look
    /// again). A key store of another folder (it lacks the first lines' subjects, however many lines
    /// without personal data came last), or one older than the last lines (restored from a backup),
    /// would otherwise take the new keys while this log's are lost for good; a writer that folds
    /// the log notices (its fold cannot open them), one that resumes from its index would not.
    /// Refused as lost keys, nothing written. Reads a few KiB at each end of the log and looks up a
    /// few subjects; only when one is missing, the whole log for its erasure. A key store older than
    /// the log that lacks only subjects of the lines between the two ends is not seen here (`ledger
    /// verify` reports them as `missing-key`).
    func checkKeysKnowTheLog(_ keys: KeyStore) throws {
        let log = try StoreError.mapping { try FileDescriptor(path: logPath, flags: O_RDONLY) }
        let size = try StoreError.mapping { try log.size() }
        guard size > 0 else { return }
        var checked = Set<SubjectID>()
        var missing: [(subject: SubjectID, seq: Int)] = []
        func check(_ line: ArraySlice<UInt8>) throws {
            let decoded = line.withUnsafeBufferPointer { try? LineCodec.decode($0, lineNumber: 0) }
            guard let envelope = decoded?.0 else { return }
            for (_, value) in envelope.data.members {
                guard case .object = value, let member = try? EncryptedMember(json: value), checked.insert(member.subject).inserted else { continue }
                let state = try StoreError.mappingKeys { () throws(KeyStoreError) in try keys.state(of: member.subject) }
                if state == .absent { missing.append((member.subject, envelope.seq)) }
            }
        }
        // The first lines, from the first on (a last line cut by the window is left).
        let head = try StoreError.mapping { try Self.bytes(of: log, at: 0, count: min(size, Self.keyStoreMatchWindow)) }
        var lineStart = 0
        while checked.count < Self.keyStoreMatchSubjects, let newline = head[lineStart...].firstIndex(of: 0x0A) {
            try check(head[lineStart..<newline])
            lineStart = newline + 1
        }
        // The last lines, from the last whole one back (a first line cut by the window is left).
        let start = max(0, size - Self.keyStoreMatchWindow)
        let tail = try StoreError.mapping { try Self.bytes(of: log, at: start, count: size - start) }
        var lineEnd = tail.lastIndex(of: 0x0A) ?? 0
        let enough = checked.count + Self.keyStoreMatchSubjects
        while lineEnd > 0, checked.count < enough {
            let lineStart = tail[..<lineEnd].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
            guard lineStart > 0 || start == 0 else { break }
            try check(tail[lineStart..<lineEnd])
            lineEnd = lineStart > 0 ? lineStart - 1 : 0
        }
        guard !missing.isEmpty else { return }
        let erased = try erasures(in: log).erased
        if let lost = missing.first(where: { !erased.contains($0.subject) }) {
            throw StoreError(.damaged, "the key store \(keyStorePath) has no key of \(lost.subject), which line \(lost.seq) of the log names, "
                             + "and no erasure erased it: it is another folder's, or older than the log; keys were lost; writers refuse "
                             + "until this log's events.keys is restored — run `ledger verify`", reason: "missing-key")
        }
        // Erased by the log: the slot says so from now on.
        for (subject, _) in missing {
            try StoreError.mappingKeys { () throws(KeyStoreError) in try keys.erase(subject: subject) }
        }
    }
}
