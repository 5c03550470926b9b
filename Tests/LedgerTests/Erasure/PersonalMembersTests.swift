@testable import LedgerDomain
import Testing

// MARK: - PersonalMembersTests

/// The one table of personal members: it covers the catalogue (every text member that is not a
/// code, id, time or hash of a secret is personal, and nothing else is), names only members that
/// exist, and finds each event's subject by its rule.
struct PersonalMembersTests {
    /// The text members of `type` whose values people type or that identify a person.
    static func freeTextMembers(of type: EventType) -> Set<String> {
        Set(type.payloadType.memberRules.filter { rule in
            switch rule.kind {
            case .text, .nonEmptyText, .email, .cryptHash: true
            default: false
            }
        }.map(\.name))
    }

    @Test("for every event type, the personal members are exactly its free-text, email and password-hash members, all strings",
          arguments: EventType.allCases)
    func coversTheCatalogue(_ type: EventType) {
        let personal = Set(PersonalMembers.rule(for: type)?.members ?? [])
        #expect(personal == Self.freeTextMembers(of: type))
        let names = Set(type.payloadType.memberRules.map(\.name))
        #expect(personal.isSubset(of: names))
        for rule in type.payloadType.memberRules where personal.contains(rule.name) { #expect(rule.kind.isText) }
        #expect(PersonalMembers.rule(for: type)?.subject.isEmpty != true)
    }

    @Test("the catalogue's personal members, spelled out (what Events/README.md lists)")
    func theList() {
        let listed = EventType.allCases.compactMap { type in
            PersonalMembers.rule(for: type).map { "\(type.rawValue): \($0.members.joined(separator: ", "))" }
        }
        #expect(listed == [
            "AccountCreated: email, passwordHash", "ProfileWritten: email, userName", "Failed: email, message",
            "SignInFailed: email", "AccountDisabled: reason", "EmailVerificationRequested: email", "EmailVerified: email",
            "PasswordChanged: passwordHash", "EmailChanged: email, previousEmail",
        ])
        #expect(PersonalMembers.isPersonal("userName", of: .profileWritten))
        #expect(!PersonalMembers.isPersonal("uid", of: .profileWritten))
        #expect(!PersonalMembers.isPersonal("tokenHash", of: .sessionStarted))
    }

    static let uid = UUIDBits(uuid: "a808bd42-6001-5835-a8dc-eaf62aa0980b")!
    static let other = UUIDBits(uuid: "0f0e0d0c-0b0a-4908-8706-050403020100")!
    static let at = Timestamp(rfc3339: "2026-11-29T23:59:59.999Z")!

    @Test("an account's events belong to its account; a stranger's to the day; an address an account holds to that account")
    func subjects() {
        let none: (String) -> UUIDBits? = { _ in nil }
        let holder: (String) -> UUIDBits? = { $0 == "held@example.com" ? Self.other : nil }
        let created = JSONObject([("uid", .string(Self.uid.uuidString)), ("email", .string("a@example.com")), ("passwordHash", .string("$y$x"))])
        #expect(PersonalMembers.subject(of: .accountCreated, data: created, at: Self.at, holder: holder)?.text
            == "account-a808bd42-6001-5835-a8dc-eaf62aa0980b")
        let stranger = JSONObject([("email", .string("nobody@example.com")), ("reason", .string("unknown-email"))])
        #expect(PersonalMembers.subject(of: .signInFailed, data: stranger, at: Self.at, holder: holder)?.text == "address-2026-11-29")
        let held = JSONObject([("email", .string("held@example.com")), ("reason", .string("wrong-password"))])
        #expect(PersonalMembers.subject(of: .signInFailed, data: held, at: Self.at, holder: holder) == .account(Self.other))
        #expect(PersonalMembers.subject(of: .signInFailed, data: held, at: Self.at, holder: none)?.text == "address-2026-11-29")
        // A Failed with a uid is its account's, whoever holds the email; without one, the holder's or the day's.
        let compensated = JSONObject([("step", .string("profile")), ("reason", .string("io-error")), ("message", .string("m")),
                                      ("email", .string("held@example.com")), ("uid", .string(Self.uid.uuidString))])
        #expect(PersonalMembers.subject(of: .failed, data: compensated, at: Self.at, holder: holder) == .account(Self.uid))
        let taken = JSONObject([("step", .string("account")), ("reason", .string("email-already-in-use")), ("message", .string("m")),
                                ("email", .string("held@example.com"))])
        #expect(PersonalMembers.subject(of: .failed, data: taken, at: Self.at, holder: holder) == .account(Self.other))
        let rejected = JSONObject([("step", .string("validation")), ("reason", .string("missing-email")), ("message", .string("m"))])
        #expect(PersonalMembers.subject(of: .failed, data: rejected, at: Self.at, holder: holder) == .address(on: Self.at))
        // No personal members, no subject; an account event without its uid names none.
        #expect(PersonalMembers.subject(of: .sessionStarted, data: JSONObject(), at: Self.at, holder: holder) == nil)
        #expect(PersonalMembers.subject(of: .emailChanged, data: JSONObject(), at: Self.at, holder: holder) == nil)
    }

    @Test("subject ids: two kinds, validated, and short enough for a key-store slot")
    func subjectIDs() {
        #expect(SubjectID("account-a808bd42-6001-5835-a8dc-eaf62aa0980b")?.kind == .account)
        #expect(SubjectID("address-2024-02-29")?.kind == .address)
        for bad in ["account-A808BD42-6001-5835-a8dc-eaf62aa0980b", "account-", "address-2023-02-29", "address-2026-4-01",
                    "address-2026-04-31", "address-2026-04-01x", "user-a808bd42-6001-5835-a8dc-eaf62aa0980b", ""] {
            #expect(SubjectID(bad) == nil, "\(bad)")
        }
        #expect(SubjectID.account(Self.uid).text.utf8.count <= SubjectID.maxLength)
        #expect(SubjectID.address(on: Timestamp(rfc3339: "2026-01-01T00:00:00.000Z")!).text == "address-2026-01-01")
    }
}
