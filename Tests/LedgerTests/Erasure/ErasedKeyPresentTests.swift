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

            let keys = dir.path + "/events.keys"
            // Still under way after every wait: named, with the erasure cut short.
            var waits = 0
            let named = ErasedKeys.problems(logPath: dir.logPath, keyStore: keys, erasedOn: [subject: 7]) { _ in waits += 1 }
            #expect(waits == CacheCheck.attempts - 1 && named.markerStays)
            #expect(named.problems.map(\.kind) == [.erasedKeyPresent] && named.problems.first?.line == 7)
            #expect(named.problems.first?.message.contains("an erasure was cut short (erasure.pending)") == true, "\(named)")

            // The whole report: each kind once per thing, in line order, the text saying the log is intact.
            let verified = try dir.run(["verify", "--json"])
            let problems = try #require(try parseObject(verified.stdout)["problems"] as? [[String: Any]])
            let lines = problems.compactMap { $0["line"] as? Int }
            #expect(lines == lines.sorted() && problems.contains { $0["kind"] as? String == "erased-key-present" }, "\(problems)")
            let text = try dir.run(["verify"])
            #expect(text.stdout.contains("MISMATCH: the log is intact") && !text.stdout.contains("NOT INTACT"), "\(text)")

            // A marker that names another subject is no erasure of this one: not waited for, and not called cut short.
            let marker = dir.path + "/erasure.pending"
            let markerBytes = try readBytes(marker)
            try writeBytes(Array("account-00000000-0000-4000-8000-000000000000\n".utf8), to: marker)
            waits = 0
            let other = ErasedKeys.problems(logPath: dir.logPath, keyStore: keys, erasedOn: [subject: 7]) { _ in waits += 1 }
            #expect(waits == 0 && !other.markerStays && other.problems.first?.message.contains("restored from a backup") == true, "\(other)")
            try writeBytes(markerBytes, to: marker)

            // Finished during the wait (here by `recover`, as the erasure's own process would): nothing to name.
            let finished = ErasedKeys.problems(logPath: dir.logPath, keyStore: keys, erasedOn: [subject: 7]) { _ in
                _ = try? dir.run(["recover"])
            }
            #expect(finished.problems.isEmpty && !finished.markerStays, "\(finished)")
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: subject) == .erased)
            // Ann's key, live, is never named: the log erases only Ben.
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    /// An erasure that finishes between verify's look at its marker and its look at the keys: the
    /// marker named the subject, and the key is then found destroyed, so nothing is reported (the
    /// other order read a live key and no marker: a false "restored").
    @Test func anErasureFinishedBetweenTheTwoLooksIsNoProblem() throws {
        try withLedgerDir { dir in
            _ = try dir.register(email: "ann@example.com", username: "Ann", password: Self.password)
            let ben = try #require(try parseObject(try dir.register(email: "ben@example.com", username: "Ben", password: Self.password).stdout)["uid"] as? String)
            #expect(try dir.run(["account", "delete", ben], env: ["LEDGER_FAILPOINTS": "PersonalDataErased=crash"]).status != 0)
            let subject = SubjectID.account(try #require(UUIDBits(uuid: ben)))
            var finished = false
            let found = ErasedKeys.problems(logPath: dir.logPath, keyStore: dir.path + "/events.keys", erasedOn: [subject: 7], pause: { _ in }) {
                guard !finished else { return }
                finished = true
                _ = try? dir.run(["recover"])  // what the erasure's own process does next
            }
            #expect(finished && found.problems.isEmpty && !found.markerStays, "\(found)")
            #expect(try KeyStore(directory: dir.path, writable: false).state(of: subject) == .erased)
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/erasure.pending"))
        }
    }

    /// A key store restored from a backup both lacks a key made since (`missing-key`) and holds one
    /// erased since: both are named, and `--keys FILE` is the key store looked at.
    @Test func aRestoredKeyStoreIsNamedBesideAMissingKeyAndWithKeys() throws {
        try withLedgerDir { dir in
            let ann = try #require(try parseObject(try dir.register(email: "ann@example.com", username: "Ann", password: Self.password).stdout)["uid"] as? String)
            _ = try dir.register(email: "ben@example.com", username: "Ben", password: Self.password)
            let backup = try readBytes(dir.path + "/events.keys")
            #expect(try dir.run(["account", "delete", ann]).status == 0)
            _ = try dir.register(email: "cid@example.com", username: "Cid", password: Self.password)
            let current = try readBytes(dir.path + "/events.keys")
            try writeBytes(backup, to: dir.path + "/events.keys")

            let verified = try dir.run(["verify", "--json"])
            #expect(verified.status == 1, "\(verified)")
            let problems = try #require(try parseObject(verified.stdout)["problems"] as? [[String: Any]])
            #expect(Set(problems.compactMap { $0["kind"] as? String }) == ["erased-key-present", "missing-key"], "\(problems)")
            let lines = problems.compactMap { $0["line"] as? Int }
            #expect(lines == lines.sorted(), "in line order: \(problems)")

            // The log alone, with its keys given: the restored file is named, the current one is fine.
            let elsewhere = dir.path + "/copy"
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            try writeBytes(try dir.logBytes(), to: elsewhere + "/log.jsonl")
            try writeBytes(backup, to: elsewhere + "/restored.keys")
            try writeBytes(current, to: elsewhere + "/current.keys")
            let withRestored = try dir.run(["verify", elsewhere + "/log.jsonl", "--keys", elsewhere + "/restored.keys", "--json"])
            #expect(withRestored.status == 1 && withRestored.stdout.contains("restored.keys still holds a live key of account-" + ann), "\(withRestored)")
            try writeBytes(backup, to: elsewhere + "/events.keys")  // beside the log, but not the one given
            let withCurrent = try dir.run(["verify", elsewhere + "/log.jsonl", "--keys", elsewhere + "/current.keys", "--json"])
            #expect(withCurrent.status == 0, "\(withCurrent)")
        }
    }
}
