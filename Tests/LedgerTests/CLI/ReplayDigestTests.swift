import Foundation
import Testing

/// `ledger replay --json`'s `digest`, and no progress line outside a terminal.
struct ReplayDigestTests {
    @Test func digestNamesEveryViewAndIsStableAcrossEquivalentReplays() throws {
        let full = try run(Paths.ledger, ["replay", Paths.demoLog, "--json"])
        #expect(full.status == 0, "\(full)")
        #expect(full.stderr.isEmpty, "no progress line in a pipe")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(full.stdout.utf8)) as? [String: Any])
        let digest = try #require(object["digest"] as? [String: String])
        #expect(Set(digest.keys) == ["users", "sessions", "images", "registrations"])
        #expect(digest.values.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
        // As of the head, the views are the same views.
        let asOfHead = try run(Paths.ledger, ["replay", Paths.demoLog, "--json", "--as-of", "25"])
        let other = try #require(try JSONSerialization.jsonObject(with: Data(asOfHead.stdout.utf8)) as? [String: Any])
        #expect(other["digest"] as? [String: String] == digest)
        // An earlier point in time has different users.
        let earlier = try run(Paths.ledger, ["replay", Paths.demoLog, "--json", "--as-of", "2"])
        let early = try #require(try JSONSerialization.jsonObject(with: Data(earlier.stdout.utf8)) as? [String: Any])
        #expect((early["digest"] as? [String: String])?["users"] != digest["users"])
    }
}
