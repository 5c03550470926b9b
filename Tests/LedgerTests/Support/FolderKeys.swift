import LedgerDomain
import LedgerKit

// MARK: - FolderKeys

/// What someone who can read a data folder's key store (`events.keys`) can do to its log's lines:
/// read the personal members of a data version 2 line, and seal new ones, as an editor of the log
/// who holds the keys would. Lines of data version 1 pass through unchanged.
struct FolderKeys {
    /// The data folder.
    let directory: String

    /// The keys of the data folder `directory`.
    init(_ directory: String) { self.directory = directory }

    /// `data` of `envelope` as readers decode it: each encrypted member opened with its subject's key.
    func opened(_ envelope: Envelope) throws -> JSONObject {
        guard let type = EventType(rawValue: envelope.type), let upcaster = DataVersions.upcaster(type, version: envelope.v) else {
            throw SystemTestError("no reader for \(envelope.type) v\(envelope.v)")
        }
        do {
            return try DataVersions.upcast(envelope.data, type: type, upcaster: upcaster, eventID: envelope.id,
                                           opener: KeyRing(directory: directory))
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
        guard let key = try KeyStore(directory: directory, writable: false).key(for: owner) else {
            throw SystemTestError("\(directory) holds no key of \(owner)")
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
