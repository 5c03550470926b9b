// MARK: - PersonalMembers

/// The one table of personal data in the catalogue: for each event type, which members of its
/// `data` are personal (stored encrypted from log data version 2 on) and whose they are (the
/// subject whose key encrypts them). Every personal member of one event has the same subject, so
/// erasing a subject removes whole events' personal data, never half of one.
///
/// What counts as personal: every email (as typed or normalized), the username, every password
/// hash, an operator's free text (a disable reason), and every free-text message (a `Failed`
/// message may quote the email or its domain). Everything else (ids, token hashes, times, codes,
/// image metadata) is not. `PersonalMembersTests` checks that the table names exactly the text
/// members of the catalogue that are not codes, ids or hashes of secrets.
public enum PersonalMembers {
    /// The personal members of `type` and how to find their subject, or nil when it has none.
    public static func rule(for type: EventType) -> Rule? {
        switch type {
        case .accountCreated: Rule(members: ["email", "passwordHash"], subject: [.uidMember("uid")])
        case .profileWritten: Rule(members: ["email", "userName"], subject: [.uidMember("uid")])
        case .failed: Rule(members: ["email", "message"], subject: [.uidMember("uid"), .holderOfEmail("email"), .dayOfEvent])
        case .signInFailed: Rule(members: ["email"], subject: [.holderOfEmail("email"), .dayOfEvent])
        case .accountDisabled: Rule(members: ["reason"], subject: [.uidMember("uid")])
        case .emailVerificationRequested: Rule(members: ["email"], subject: [.uidMember("uid")])
        case .emailVerified: Rule(members: ["email"], subject: [.uidMember("uid")])
        case .passwordChanged: Rule(members: ["passwordHash"], subject: [.uidMember("uid")])
        case .emailChanged: Rule(members: ["email", "previousEmail"], subject: [.uidMember("uid")])
        case .imageStored, .imageDeleted, .accountDeleted, .sessionStarted, .sessionEnded, .accountEnabled,
             .passwordResetRequested, .personalDataErased, .addressDataErased, .logMigrated: nil
        }
    }

    /// True when `member` of `type` is personal.
    public static func isPersonal(_ member: String, of type: EventType) -> Bool {
        rule(for: type)?.members.contains(member) ?? false
    }

    /// The subject of the personal members of an event of `type` with `data`, recorded at `at`:
    /// the first of the rule's sources that names one. `holder` answers which live account holds an
    /// email at that moment (the account fold's `liveAccount`, asked by the writer with the email
    /// normalized as sign-in normalizes it), nil when none. Nil when the type has no personal
    /// members, or when no source names a subject (an account event without its `uid`: invalid data).
    public static func subject(of type: EventType, data: JSONObject, at: Timestamp,
                               holder: (String) -> UUIDBits?) -> SubjectID? {
        guard let rule = rule(for: type) else { return nil }
        for source in rule.subject {
            switch source {
            case .uidMember(let name):
                if let uid = data[name]?.stringValue.flatMap(UUIDBits.init(uuid:)) { return .account(uid) }
            case .holderOfEmail(let name):
                if let email = data[name]?.stringValue, let uid = holder(email) { return .account(uid) }
            case .dayOfEvent:
                return .address(on: at)
            }
        }
        return nil
    }

    // MARK: - Rule

    /// The personal members of one event type and where their subject comes from.
    public struct Rule: Equatable, Sendable {
        /// The names of the personal members of `data`, all strings (an absent optional stays absent).
        public let members: [String]
        /// Where the subject comes from: the first source that names one wins.
        public let subject: [SubjectSource]
    }

    /// One way of finding the subject of an event's personal members.
    public enum SubjectSource: Equatable, Sendable {
        /// The account whose uid is the member of that name (`account-<uid>`), when present.
        case uidMember(String)
        /// The live account that holds the email in the member of that name when the event is
        /// written, when there is one: an address an account holds is that account's data, also in
        /// a stranger's failed sign-in or a rejected registration, and an address a new account
        /// takes after an erasure belongs to the new account.
        case holderOfEmail(String)
        /// The addresses of the event's UTC day (`address-<YYYY-MM-DD>`): always names one.
        case dayOfEvent
    }
}
