import LedgerDomain
import Testing

/// Every cell of the state table in Docs/CLI.md, for every account action the decider knows: the
/// event types it decides, or the refusal's code.
@Suite struct AccountDecisionTableTests {
    private static let uid = Fixtures.uuid(81)
    private static let hash = "$y$j9T$salt$newhash", token = Fixtures.hex64(9)
    private static let soon = Timestamp(rfc3339: "2026-12-01T10:00:00.000Z")!

    /// The actions, by the command that runs them.
    static let actions: [(command: String, action: AccountAction)] = [
        ("disable", .disable(reason: "r")), ("enable", .enable), ("sign-out-everywhere", .signOutEverywhere),
        ("delete", .delete(reason: .operator)), ("change-password", .changePassword(passwordHash: hash)),
        ("reset-password", .resetPassword(passwordHash: hash)), ("change-email", .changeEmail(newEmail: "new@example.org")),
        ("verify-email", .verifyEmail), ("send-verification", .requestVerification(tokenHash: token, expiresAt: soon)),
        ("request-reset", .requestReset(tokenHash: token, expiresAt: soon)),
    ]

    /// What a cell says: event types in order, or a refusal code.
    enum Cell: Equatable { case events([EventType]), refused(AccountRefusal.Code) }

    /// The table, row by row: pending, active, disabled, deleted.
    static let table: [String: [Cell]] = [
        "disable": [.refused(.registrationIncomplete), .events([.accountDisabled, .sessionEnded, .sessionEnded]),
                    .refused(.alreadyDisabled), .refused(.accountDeleted)],
        "enable": [.refused(.registrationIncomplete), .refused(.notDisabled), .events([.accountEnabled]), .refused(.accountDeleted)],
        "sign-out-everywhere": [.refused(.registrationIncomplete), .events([.sessionEnded, .sessionEnded]),
                                .events([.sessionEnded, .sessionEnded]), .refused(.accountDeleted)],
        "delete": [.refused(.registrationIncomplete), .events([.imageDeleted, .sessionEnded, .sessionEnded, .accountDeleted]),
                   .events([.imageDeleted, .sessionEnded, .sessionEnded, .accountDeleted]), .refused(.accountDeleted)],
        "change-password": [.refused(.registrationIncomplete), .events([.passwordChanged, .sessionEnded, .sessionEnded]),
                            .refused(.accountDisabled), .refused(.accountDeleted)],
        "reset-password": [.refused(.registrationIncomplete), .events([.passwordChanged, .sessionEnded, .sessionEnded]),
                           .refused(.accountDisabled), .refused(.accountDeleted)],
        "change-email": [.refused(.registrationIncomplete), .events([.emailChanged]), .refused(.accountDisabled), .refused(.accountDeleted)],
        "verify-email": [.refused(.registrationIncomplete), .events([.emailVerified]), .refused(.accountDisabled), .refused(.accountDeleted)],
        "send-verification": [.refused(.registrationIncomplete), .events([.emailVerificationRequested]), .refused(.accountDisabled),
                              .refused(.accountDeleted)],
        "request-reset": [.refused(.registrationIncomplete), .events([.passwordResetRequested]), .refused(.accountDisabled),
                          .refused(.accountDeleted)],
    ]

    private static func standing(_ status: AccountStatus) -> AccountStanding {
        AccountStanding(uid: uid, status: status, activeSessions: [Fixtures.uuid(91), Fixtures.uuid(92)], email: "old@example.com",
                        emailVerified: false, profileImage: Fixtures.uuid(93))
    }

    private static func cell(_ result: Result<[LedgerEvent], AccountRefusal>) -> Cell {
        switch result {
        case .success(let events): .events(events.map(\.type))
        case .failure(let refusal): .refused(refusal.code)
        }
    }

    @Test(arguments: actions.map(\.command))
    func everyCell(_ command: String) throws {
        let action = try #require(Self.actions.first { $0.command == command }?.action)
        let row = try #require(Self.table[command])
        for (status, expected) in zip([AccountStatus.pending, .active, .disabled, .deleted], row) {
            #expect(Self.cell(AccountFold.decide(action, Self.standing(status))) == expected, "\(command) on \(status)")
        }
    }

    @Test func theEventsCarryWhatTheCommandGave() throws {
        let active = Self.standing(.active)
        let deleted = try AccountFold.decide(.delete(reason: .userRequest), active).get()
        #expect(deleted.first == .imageDeleted(ImageDeleted(uid: Self.uid, imageName: Fixtures.uuid(93), reason: .accountDeleted)))
        #expect(deleted.last == .accountDeleted(AccountDeleted(uid: Self.uid, reason: .userRequest)))
        #expect(deleted.contains(.sessionEnded(SessionEnded(sessionId: Fixtures.uuid(91), uid: Self.uid, reason: "account-deleted"))))
        #expect(try AccountFold.decide(.changeEmail(newEmail: "new@example.org"), active).get()
                == [.emailChanged(EmailChanged(uid: Self.uid, email: "new@example.org", previousEmail: "old@example.com"))])
        #expect(try AccountFold.decide(.resetPassword(passwordHash: Self.hash), active).get().first
                == .passwordChanged(PasswordChanged(uid: Self.uid, passwordHash: Self.hash, reason: .reset)))
        #expect(try AccountFold.decide(.requestVerification(tokenHash: Self.token, expiresAt: Self.soon), active).get()
                == [.emailVerificationRequested(EmailVerificationRequested(uid: Self.uid, email: "old@example.com", tokenHash: Self.token,
                                                                          expiresAt: Self.soon))])
        // Without a profile image, a deletion removes none.
        var plain = active
        plain.profileImage = nil
        #expect(try AccountFold.decide(.delete(reason: .operator), plain).get().map(\.type) == [.sessionEnded, .sessionEnded, .accountDeleted])
    }

    @Test func theTwoRefusalsOfAnActiveAccount() {
        var verified = Self.standing(.active)
        verified.emailVerified = true
        #expect(Self.cell(AccountFold.decide(.requestVerification(tokenHash: Self.token, expiresAt: Self.soon), verified)) == .refused(.alreadyVerified))
        #expect(Self.cell(AccountFold.decide(.changeEmail(newEmail: "old@example.com"), Self.standing(.active))) == .refused(.sameEmail))
    }

    @Test func theTableCoversEveryCommand() {
        #expect(Set(Self.table.keys) == Set(Self.actions.map(\.command)))
        #expect(Self.table.values.allSatisfy { $0.count == AccountStatus.allCases.count })
    }
}
