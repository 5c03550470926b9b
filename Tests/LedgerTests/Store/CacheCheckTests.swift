@testable import LedgerDomain
@testable import LedgerKit
import Testing

// verify's checkpoint check compares everything a read restores, not only the rows it prints.

@Suite struct CacheCheckTests {
    /// Views restored from two accounts of one email, deleted W then active X, with the creation seqs
    /// as given: the seqs decide which account is the email's last one, so its live account.
    private func restored(wCreated: Int, xCreated: Int) -> LedgerViews {
        var views = LedgerViews()
        let w = UUIDBits(high: 1, low: 1), x = UUIDBits(high: 1, low: 2)
        views.users.restore(uid: w, registration: UUIDBits(high: 2, low: 1), email: "alice@example.com", userName: nil,
                            profileImage: nil, createdAt: nil, status: .deleted, emailSeq: wCreated)
        views.users.restore(uid: x, registration: UUIDBits(high: 2, low: 2), email: "alice@example.com", userName: "Alice",
                            profileImage: nil, createdAt: Timestamp(millis: 1), status: .active, emailSeq: xCreated)
        return views
    }

    /// A checkpoint re-sealed with W's and X's creation seqs swapped prints the same rows, but a
    /// read from it would find no live account for alice (so a second one could be created unseen):
    /// the digest verify compares tells them apart.
    @Test func swappedCreationSeqsAreADifferenceThoughTheRowsAreTheSame() throws {
        let honest = restored(wCreated: 1, xCreated: 3), doctored = restored(wCreated: 3, xCreated: 1)
        #expect(honest.users.live(email: "alice@example.com") != nil)
        #expect(doctored.users.live(email: "alice@example.com") == nil)
        #expect(honest.users.rows == doctored.users.rows, "the rows alone cannot tell")
        let ids = try #require(IDFingerprints(seed: UUIDBits(high: 1, low: 2), sorted: []))
        let a = CacheCheck.digest(honest, ids: ids), b = CacheCheck.digest(doctored, ids: ids)
        #expect(a.count == CacheCheck.parts.count)
        #expect(zip(a, b).map { $0 != $1 } == CacheCheck.parts.indices.map { $0 == CacheCheck.parts.count - 1 })
    }

    /// A checkpoint that says an email is verified when the log does not is a difference in the users.
    @Test func aVerifiedFlagTheLogDoesNotHoldIsADifference() throws {
        let honest = restored(wCreated: 1, xCreated: 3)
        var doctored = LedgerViews()
        for record in honest.users.records {
            doctored.users.restore(uid: record.uid, registration: record.registration, email: honest.users.email(of: record),
                                   userName: honest.users.userName(of: record), profileImage: record.profileImage,
                                   createdAt: record.createdAt, status: record.status, emailSeq: record.emailSeq,
                                   emailVerified: record.status == .active)
        }
        let ids = try #require(IDFingerprints(seed: UUIDBits(high: 1, low: 2), sorted: []))
        let a = CacheCheck.digest(honest, ids: ids), b = CacheCheck.digest(doctored, ids: ids)
        #expect(a[0] != b[0], "the users part differs")
        #expect(zip(a, b).dropFirst().dropLast().allSatisfy { $0 == $1 })
    }
}
