import Glibc
import LedgerDomain

// MARK: - FileEventStore: does the key store belong to this log?

extension FileEventStore {
    /// How far back from the verified end, at most, a writer looks for subjects its key store must know.
    static let keyStoreMatchWindow = 1 << 16
    /// How many subjects of the last lines are enough to tell a key store of this log.
    static let keyStoreMatchSubjects = 8

    /// Before a writer first writes with `keys` (a process opens the key store once): the subjects
    /// the encrypted members of the log's last verified lines name must be in it, live or erased,
    /// or erased by the log (a key store copied before a subject was made and erased: nothing of it
    /// is lost). A key store of another folder, or one older than those lines (restored from a
    /// backup), would otherwise take the new keys while this log's are lost for good; a writer that
    /// folds the log notices (its fold cannot open them), one that resumes from its index would
    /// not. Refused as lost keys, nothing written. Reads a few KiB and looks up a few subjects; only
    /// when one is missing, the whole log for its erasure.
    func checkKeysKnowTheLog(_ keys: KeyStore) throws {
        let end = prefix.verifiedSize
        guard end > 0 else { return }
        let start = max(0, end - Self.keyStoreMatchWindow)
        let log = try StoreError.mapping { try FileDescriptor(path: logPath, flags: O_RDONLY) }
        let bytes = try StoreError.mapping { try Self.bytes(of: log, at: start, count: end - start) }
        var checked = Set<SubjectID>()
        var missing: [(subject: SubjectID, seq: Int)] = []
        var lineEnd = bytes.count
        // The lines from the last one back; a first line cut by the window is left.
        while lineEnd > 0, checked.count < Self.keyStoreMatchSubjects {
            let lineStart = (bytes[..<(lineEnd - 1)].lastIndex(of: 0x0A)).map { $0 + 1 } ?? 0
            guard lineStart > 0 || start == 0 else { break }
            let decoded = bytes.withUnsafeBufferPointer { all in
                try? LineCodec.decode(UnsafeBufferPointer(rebasing: all[lineStart..<(lineEnd - 1)]), lineNumber: 0)
            }
            for (_, value) in decoded?.0.data.members ?? [] {
                guard case .object = value, let member = try? EncryptedMember(json: value), checked.insert(member.subject).inserted else { continue }
                let state = try StoreError.mappingKeys { () throws(KeyStoreError) in try keys.state(of: member.subject) }
                if state == .absent { missing.append((member.subject, decoded!.0.seq)) }
            }
            lineEnd = lineStart
        }
        guard !missing.isEmpty else { return }
        let erased = try erasures(in: log).erased
        guard let lost = missing.first(where: { !erased.contains($0.subject) }) else { return }
        throw StoreError(.damaged, "the key store \(keyStorePath) has no key of \(lost.subject), which line \(lost.seq) of the log names, "
                         + "and no erasure erased it: it is another folder's, or older than the log; keys were lost; writers refuse "
                         + "until this log's events.keys is restored — run `ledger verify`", reason: "missing-key")
    }
}
