// MARK: - DataVersions

/// The one registry of `data` versions, keyed by (type, version): which versions of an event type a
/// reader accepts, and how each becomes the shape the payloads decode (plain text members, an
/// erased member `null` with `"erased": true` in `data`). Version 1 is that shape already; version 2
/// (the personal members encrypted, `EncryptedMember`) is opened member by member. An upcast event
/// is never written back: `verify` always hashes the stored bytes.
public enum DataVersions {
    /// The member a reader adds to `data` when personal members of it are erased (or their key is missing).
    public static let erasedMember = "erased"

    /// How one (type, version) is read.
    public enum Upcaster: Sendable {
        /// Already the decoded shape.
        case asStored
        /// Personal members encrypted under their subject's key (`PersonalMembers`).
        case openPersonalMembers(PersonalMembers.Rule)
    }

    /// The upcaster of `type` version `version`, or nil when this build does not read it.
    public static func upcaster(_ type: EventType, version: Int) -> Upcaster? {
        switch version {
        case 1: return .asStored
        case 2: return PersonalMembers.rule(for: type).map(Upcaster.openPersonalMembers)
        default: return nil
        }
    }

    /// The version a store of log data version `dataVersion` writes `type` in: 2 for the types with
    /// personal members in a version 2 store, else 1.
    public static func written(_ type: EventType, dataVersion: Int) -> Int {
        dataVersion >= 2 && PersonalMembers.rule(for: type) != nil ? 2 : 1
    }

    /// The versions a reader names in a message about an unknown one.
    static func known(_ type: EventType) -> String { PersonalMembers.rule(for: type) == nil ? "v1" : "v1 and v2" }

    /// `data` of a line of `type` version `version` (event `eventID`) in the decoded shape, its
    /// personal members opened by `opener`; `EventDataError` when a member is not a well-formed
    /// encrypted member of the right subject.
    /// With `subjects`, every subject a member names is passed to it (for `verify`'s key check).
    public static func upcast(_ data: JSONObject, type: EventType, upcaster: Upcaster, eventID: String,
                              opener: any PersonalDataOpener,
                              missing: ((SubjectID) -> Void)? = nil) throws(EventDataError) -> JSONObject {
        guard case .openPersonalMembers(let rule) = upcaster else { return data }
        var opened = data
        var erased = false
        let owner = rule.subject.first.flatMap { source -> SubjectID? in
            guard case .uidMember(let name) = source, let uid = data[name]?.stringValue.flatMap(UUIDBits.init(uuid:)) else { return nil }
            return .account(uid)
        }
        for name in rule.members {
            guard let stored = data[name] else { continue }  // an optional member left out
            let member: EncryptedMember
            do { member = try EncryptedMember(json: stored) } catch {
                throw EventDataError(member: name, problem: "must be an encrypted member (data version 2): \(error.message)")
            }
            if let owner, member.subject != owner {
                throw EventDataError(member: name, problem: "is encrypted for \(member.subject), not the event's \(owner)")
            }
            switch opener.open(member, eventID: eventID, type: type, name: name) {
            case .text(let text): opened[name] = .string(text)
            case .erased: opened[name] = .null; erased = true
            // A key that is missing, or that does not open the member (a damaged or another folder's
            // key store: the chain vouches for the ciphertext), is data loss `verify` reports; a
            // reader shows the member as erased rather than failing on every line.
            case .missingKey, .unreadable: opened[name] = .null; erased = true; missing?(member.subject)
            }
        }
        if erased { opened[erasedMember] = .bool(true) }
        return opened
    }
}
