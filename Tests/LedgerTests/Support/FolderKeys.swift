import LedgerDomain
import LedgerKit

// MARK: - FolderKeys

/// What someone who can read a store's keys (a data folder's key store `events.keys`, or the
/// `ledger_keys` table of a PostgreSQL store) can do to its log's lines: read the personal members
/// of a data version 2 line, and seal new ones, as an editor of the log who holds the keys would.
/// Lines of data version 1 pass through unchanged.
struct FolderKeys {
    /// Where the keys are read from (the data folder, or the store's URL), for messages.
    let source: String
    /// A fresh opener of the store's members (nothing cached from an earlier read).
    private let ring: () -> any PersonalDataOpener
    /// The live key of a subject, nil when the store holds none (erased or absent).
    private let key: (SubjectID) throws -> [UInt8]?

    /// The keys of the data folder `directory`.
    init(_ directory: String) {
        source = directory
        ring = { KeyRing(directory: directory) }
        key = { try KeyStore(directory: directory, writable: false).key(for: $0) }
    }

    /// The keys of the PostgreSQL store at `url` (its `ledger_keys`, read on a connection of this
    /// helper's own, as anyone who can query the database can).
    init(postgres url: PostgresURL) {
        source = url.text
        ring = { PostgresKeyRing(url: url) }
        key = { subject in
            let rows = try PostgresConnection(url).execute("SELECT encode(key, 'hex') FROM ledger_keys WHERE subject = $1 AND NOT erased",
                                                           [subject.text])
            guard rows.count == 1, let hex = rows.string(0, 0) else { return nil }
            return try bytes(hex: hex)
        }
    }

    /// `data` of `envelope` as readers decode it: each encrypted member opened with its subject's key.
    func opened(_ envelope: Envelope) throws -> JSONObject {
        guard let type = EventType(rawValue: envelope.type), let upcaster = DataVersions.upcaster(type, version: envelope.v) else {
            throw SystemTestError("no reader for \(envelope.type) v\(envelope.v)")
        }
        do {
            return try DataVersions.upcast(envelope.data, type: type, upcaster: upcaster, eventID: envelope.id,
                                           opener: ring())
        } catch {
            throw SystemTestError("line \(envelope.seq) does not open: \(error)")
        }
    }

    /// The stored member `name` of `envelope`, opened: its text.
    func text(_ name: String, of envelope: Envelope) throws -> String {
        guard let text = try opened(envelope)[name]?.stringValue else { throw SystemTestError("line \(envelope.seq) has no \(name)") }
        return text
    }

    /// `envelope` with `data` set to `plain` as its `v` stores it: on a version 2 line, each personal
    /// member sealed anew for this line's id under the key of `subject` (by default the account its
    /// `uid` names, else the subject its stored members name).
    func sealed(_ envelope: Envelope, data plain: JSONObject, subject: SubjectID? = nil) throws -> Envelope {
        var out = envelope
        out.data = plain
        guard envelope.v == 2, let type = EventType(rawValue: envelope.type), let rule = PersonalMembers.rule(for: type) else { return out }
        let stored = rule.members.lazy.compactMap { envelope.data[$0].flatMap { try? EncryptedMember(json: $0) }?.subject }.first
        let uid = plain["uid"]?.stringValue.flatMap(UUIDBits.init(uuid:)).map(SubjectID.account)
        guard let owner = subject ?? uid ?? stored else { throw SystemTestError("line \(envelope.seq) names no subject") }
        guard let key = try key(owner) else {
            throw SystemTestError("\(source) holds no key of \(owner)")
        }
        for name in rule.members {
            guard let text = plain[name]?.stringValue else { continue }
            out.data[name] = try MemberCipher.encrypt(text, eventID: envelope.id, type: type, member: name, subject: owner,
                                                      key: key, random: SecureRandom())
        }
        return out
    }

    /// `envelope` with its personal members opened and `edit` applied to them, sealed again for its
    /// (possibly new) id: what an editor with the keys writes in its place.
    func edited(_ envelope: Envelope, subject: SubjectID? = nil, _ edit: (inout JSONObject) -> Void) throws -> Envelope {
        var plain = try opened(envelope)
        edit(&plain)
        return try sealed(envelope, data: plain, subject: subject)
    }
}

/// The bytes lowercase hex text spells (as `encode(…, 'hex')` writes them).
private func bytes(hex: String) throws -> [UInt8] {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { throw SystemTestError("odd hex: \(hex)") }
    return try stride(from: 0, to: digits.count, by: 2).map { index in
        guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
            throw SystemTestError("not hex: \(hex)")
        }
        return byte
    }
}
