import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - ErasedKeyPresentTests

/// `verify` names a key the log erased that the key store still holds (`erased-key-present`): a
/// stranger's address-day key restored from a backup, and an account's key left by an erasure cut
/// short, which it waits for as it waits to copy the caches.
@Suite struct ErasedKeyPresentTests {
    private static let password = "correct horse battery"

    @Test func aRestoredAddressKeyIsNamedOnItsErasure() throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: "ann@example.com", username: "Ann", password: Self.password).status == 0)
            #expect(try dir.login(email: "stranger@example.com", password: "guess one").status != 0)
            let backup = try readBytes(dir.path + "/events.keys")
            let erased = try dir.run(["erase", "--email", "stranger@example.com", "--json"])
            #expect(erased.status == 0, "\(erased)")
            #expect(try dir.run(["verify"]).status == 0, "the erasure itself is no problem")
            try writeBytes(backup, to: dir.path + "/events.keys")

            let verified = try dir.run(["verify", "--json"])
            #expect(verified.status == 1, "\(verified)")
            let problems = try #require(try parseObject(verified.stdout)["problems"] as? [[String: Any]])
            #expect(problems.map { $0["kind"] as? String } == ["erased-key-present"], "\(problems)")
            let line = try #require(problems.first?["line"] as? Int)
            let lines = String(decoding: try dir.logBytes(), as: UTF8.self).split(separator: "\n")
            let erasure = try #require(lines.first { $0.hasPrefix("{\"seq\":\(line),") })
            #expect(erasure.contains("\"type\":\"AddressDataErased\""), "on the erasure's line: \(erasure)")
            #expect((problems.first?["message"] as? String)?.contains("still holds a live key of address-") == true)
            #expect(!verified.stdout.contains("stranger"), "the report names the subject, never its data")

            let text = try dir.run(["verify"])
            #expect(text.status == 1 && text.stdout.contains("erased-key-present"), "\(text)")
            #expect(try dir.run(["recover"]).status == 0)
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    @Test func anErasureCutShortIsWaitedForThenNamed() throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: "ann@example.com", username: "Ann", password: Self.password).status == 0)
            let ben = try #require(try parseObject(try dir.register(email: "ben@example.com", username: "Ben", password: Self.password).stdout)["uid"] as? String)
            let killed = try dir.run(["account", "delete", ben], stdin: Self.password + "\n", env: ["LEDGER_FAILPOINTS": "PersonalDataErased=crash"])
            #expect(killed.status != 0, "\(killed)")
            let subject = SubjectID.account(try #require(UUIDBits(uuid: ben)))
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: subject) == .live)

            // Still under way after every wait: named, with the erasure cut short.
            var waits = 0
            let named = ErasedKeys.problems(logPath: dir.logPath, erasedOn: [subject: 7]) { _ in waits += 1 }
            #expect(waits == CacheCheck.attempts - 1)
            #expect(named.map(\.kind) == [.erasedKeyPresent] && named.first?.line == 7)
            #expect(named.first?.message.contains("an erasure was cut short (erasure.pending)") == true, "\(named)")

            // Finished during the wait (here by `recover`, as the erasure's own process would): nothing to name.
            let finished = ErasedKeys.problems(logPath: dir.logPath, erasedOn: [subject: 7]) { _ in
                _ = try? dir.run(["recover"])
            }
            #expect(finished.isEmpty, "\(finished)")
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: subject) == .erased)
            // Ann's key, live, is never named: the log erases only Ben.
            #expect(try dir.run(["verify"]).status == 0)
        }
    }
}
