import Foundation
import Glibc
import Synchronization
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - VerifyBesideWritersTests

/// `verify` run while writers register, delete and erase: the caches it copies (under the
/// writers' lock) are compared with the log as it was then, with the erasures appended since the
/// chain was verified, and an erasure under way (`erasure.pending`) is waited for, so no writer's
/// ordinary work reads as a `cache-mismatch`; one cut short is named as such.
@Suite struct VerifyBesideWritersTests {
    private static let password = "correct horse battery"
    /// How many times `verify` runs beside the writers.
    private static let verifies = 100

    /// The log's size.
    private static func size(_ dir: LedgerDir) throws -> Int { try dir.logBytes().count }

    /// Lines appended after the verified end, one of them erasing Ben, whose key a restored key
    /// store brought back (the writers' index, rebuilt after the erasure, holds nothing of him):
    /// compared with the log's erasures up to the copies' size, not only those the chain pass saw,
    /// the caches agree with the log, whatever the key store says.
    @Test func erasuresAppendedAfterTheChainWasVerifiedAreFolded() throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: "ann@example.com", username: "Ann", password: Self.password).status == 0)
            let verifiedEnd = try Self.size(dir)
            let ben = try #require(try parseObject(try dir.register(email: "ben@example.com", username: "Ben", password: Self.password).stdout)["uid"] as? String)
            #expect(try dir.register(email: "cy@example.com", username: "Cy", password: Self.password).status == 0)
            let keys = try readBytes(dir.path + "/events.keys")
            #expect(try dir.run(["account", "delete", ben], stdin: Self.password + "\n").status == 0)
            #expect(try dir.login(email: "cy@example.com", password: Self.password).status == 0)
            #expect(FileManager.default.fileExists(atPath: dir.logPath + ".index"), "a writer rebuilt the index after the erasure")
            try writeBytes(keys, to: dir.path + "/events.keys")
            let log = try FileDescriptor(path: dir.logPath, flags: O_RDONLY)
            let problems = try CacheCheck.problems(logPath: dir.logPath, log: log, erased: [], verifiedEnd: verifiedEnd)
            #expect(problems.isEmpty, "\(problems)")
            // The same copies compared with only the erasures the chain pass saw (none), as if the
            // log ended where it was verified: Ben's restored key opens his members, and the index differs.
            let unread = try CacheCheck.problems(logPath: dir.logPath, log: log, erased: [], verifiedEnd: try Self.size(dir))
            #expect(unread.contains { $0.kind == .cacheMismatch }, "what the erasures read on prevent: \(unread)")
        }
    }

    /// An erasure killed after its event, before its key and the caches went: `verify` waits for
    /// it, then reports the index that still holds the erased email and the key that still opens
    /// it, each naming the erasure cut short; `recover` finishes it and `verify` passes.
    @Test func anErasureCutShortIsNamed() throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: "ann@example.com", username: "Ann", password: Self.password).status == 0)
            let ben = try #require(try parseObject(try dir.register(email: "ben@example.com", username: "Ben", password: Self.password).stdout)["uid"] as? String)
            let killed = try dir.run(["account", "delete", ben], stdin: Self.password + "\n", env: ["LEDGER_FAILPOINTS": "PersonalDataErased=crash"])
            #expect(killed.status != 0, "\(killed)")
            #expect(FileManager.default.fileExists(atPath: dir.path + "/erasure.pending"))
            let verified = try dir.run(["verify", "--json"])
            #expect(verified.status == 1, "\(verified)")
            let problems = try #require(try parseObject(verified.stdout)["problems"] as? [[String: Any]])
            let kinds = Set(problems.compactMap { $0["kind"] as? String })
            #expect(kinds == ["cache-mismatch", "erased-key-present"], "\(problems)")
            #expect(problems.allSatisfy { ($0["message"] as? String)?.contains("an erasure was cut short (erasure.pending)") == true }, "\(problems)")
            #expect(try dir.run(["recover"]).status == 0)
            let after = try dir.run(["verify"])
            #expect(after.status == 0, "\(after)")
        }
    }

    /// The same, with the erasure's process still at work when the caches are first copied: the
    /// check waits (`pause`), and once the erasure is finished the copies agree with the log.
    @Test func anErasureUnderWayIsWaitedFor() throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: "ann@example.com", username: "Ann", password: Self.password).status == 0)
            let ben = try #require(try parseObject(try dir.register(email: "ben@example.com", username: "Ben", password: Self.password).stdout)["uid"] as? String)
            #expect(try dir.run(["account", "delete", ben], stdin: Self.password + "\n", env: ["LEDGER_FAILPOINTS": "PersonalDataErased=crash"]).status != 0)
            let log = try FileDescriptor(path: dir.logPath, flags: O_RDONLY)
            let subject = SubjectID.account(try #require(UUIDBits(uuid: ben)))
            var pauses: [Int] = []
            let problems = try CacheCheck.problems(logPath: dir.logPath, log: log, erased: [subject], verifiedEnd: try Self.size(dir)) { attempt in
                pauses.append(attempt)
                // The erasure's own process would finish it now: its key destroyed, the caches and the marker gone.
                if attempt == 3 { #expect(try! dir.run(["recover"]).status == 0) }
            }
            #expect(problems.isEmpty, "\(problems)")
            #expect(pauses == [2, 3], "it copied again until the marker was gone")
        }
    }

    /// The log grew between the chain pass and the copies (a registration), and an account
    /// delete ran to its end right after they were taken: the fold then misses the key it just
    /// destroyed, and the check, reading the log's erasures again, sees the new one and copies anew.
    @Test func anErasureRightAfterTheCopiesIsSeenAndTheCopiesTakenAgain() throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: "ann@example.com", username: "Ann", password: Self.password).status == 0)
            let ben = try #require(try parseObject(try dir.register(email: "ben@example.com", username: "Ben", password: Self.password).stdout)["uid"] as? String)
            let verifiedEnd = try Self.size(dir)
            #expect(try dir.register(email: "cy@example.com", username: "Cy", password: Self.password).status == 0)
            let log = try FileDescriptor(path: dir.logPath, flags: O_RDONLY)
            var copies: [Int] = []
            let problems = try CacheCheck.problems(logPath: dir.logPath, log: log, erased: [], verifiedEnd: verifiedEnd, copied: { attempt in
                copies.append(attempt)
                if attempt == 1 { #expect(try! dir.run(["account", "delete", ben], stdin: Self.password + "\n").status == 0) }
            })
            #expect(problems.isEmpty, "\(problems)")
            #expect(copies == [1, 2])
        }
    }

    /// Two writers register, sign in, delete and erase while `verify` runs again and again: every
    /// verify passes (each compares the caches it copied with the log as it was then).
    @Test func verifyPassesWhileWritersEraseBesideIt() throws {
        try withLedgerDir { dir in
            for i in 0..<3 { #expect(try dir.register(email: "seed\(i)@example.com", username: "Seed\(i)", password: Self.password).status == 0) }
            let stop = Mutex(false)
            let done = DispatchGroup()
            for writer in 1...2 {
                done.enter()
                // Threads of their own, each running the built binary in a loop.
                Thread {
                    defer { done.leave() }
                    var i = 0
                    while !stop.withLock({ $0 }), i < 200 {
                        i += 1
                        let email = "w\(writer)-\(i)@example.com", stranger = "stranger\(writer)-\(i)@example.com"
                        _ = try? dir.register(email: email, username: "W\(writer)x\(i)", password: Self.password)
                        _ = try? dir.login(email: stranger, password: "wrong password!")
                        _ = try? dir.run(["account", "delete", email], stdin: Self.password + "\n")
                        _ = try? dir.run(["erase", "--email", stranger])
                    }
                }.start()
            }
            var failures: [String] = []
            for _ in 0..<Self.verifies {
                let verified = try dir.run(["verify", "--json"])
                if verified.status != 0 { failures.append(verified.stdout + verified.stderr) }
            }
            stop.withLock { $0 = true }
            done.wait()
            #expect(failures.isEmpty, "\(failures.count) of \(Self.verifies) verifies failed: \(failures.first ?? "")")
            let erasures = try LogRewriting.envelopes(try dir.logBytes()).filter { $0.type == "PersonalDataErased" }.count
            #expect(erasures > 0, "the writers erased beside the verifies")
            #expect(try dir.run(["verify"]).status == 0)
        }
    }
}
