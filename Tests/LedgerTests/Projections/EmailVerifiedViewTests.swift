import LedgerDomain
import Testing

/// The users view's `emailVerified`: set by `EmailVerified` of the email the account holds, ended
/// by `EmailChanged`, in the rows, the `--json` rows and through a checkpoint.
@Suite struct EmailVerifiedViewTests {
    private let uid = UUIDBits(uuid: Fixtures.uuid(71))!
    private let registration = UUIDBits(uuid: Fixtures.uuid(72))!
    private let at = Timestamp(rfc3339: "2026-11-29T09:00:00.000Z")!

    private func event(_ seq: Int, _ category: StreamCategory, _ fact: ViewEvent.Fact) -> ViewEvent {
        ViewEvent(seq: seq, at: at, category: category, stream: category == .registration ? registration : uid, fact: fact)
    }

    private func folded(_ facts: [(StreamCategory, ViewEvent.Fact)]) -> LedgerViews {
        var views = LedgerViews()
        for (n, (category, fact)) in facts.enumerated() { views.apply(event(n + 1, category, fact), hash: Digest32(a: UInt64(n), b: 0, c: 0, d: 0)) }
        return views
    }

    private var created: [(StreamCategory, ViewEvent.Fact)] {
        [(.registration, .accountCreated(uid: uid, email: "v@example.com", withImage: false)),
         (.registration, .profileWritten(uid: uid, userName: "V", profileImage: nil, createdAt: at))]
    }

    @Test func verifiedOnlyForTheEmailHeldAndUntilItChanges() {
        #expect(folded(created).users.rows.first?.emailVerified == false)
        #expect(folded(created + [(.account, .emailVerified(uid: uid, email: "other@example.com"))]).users.rows.first?.emailVerified == false)
        let verified = folded(created + [(.account, .emailVerified(uid: uid, email: "v@example.com"))])
        #expect(verified.users.rows.first?.emailVerified == true)
        #expect(verified.users.rows.first.map { JSONWriter.string($0.json) }?.hasSuffix(#""status":"active","emailVerified":true}"#) == true)
        var rows: [UInt8] = []
        ViewRowsWriter.users(verified.users) { rows.append(contentsOf: $0) }
        #expect(String(decoding: rows, as: UTF8.self) == "[" + JSONWriter.string(verified.users.rows[0].json) + "]")
        let changed = folded(created + [(.account, .emailVerified(uid: uid, email: "v@example.com")),
                                        (.account, .emailChanged(uid: uid, email: "w@example.com", previousEmail: "v@example.com"))])
        #expect(changed.users.rows.first?.emailVerified == false && changed.users.rows.first?.email == "w@example.com")
    }

    @Test func theCheckpointKeepsIt() throws {
        let views = folded(created + [(.account, .emailVerified(uid: uid, email: "v@example.com"))])
        let read = try Fixtures.checkpointRoundTrip(views).views
        #expect(read.users.rows.first?.emailVerified == true)
        #expect(read.users == views.users)
    }
}
