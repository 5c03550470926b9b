import Foundation
import LedgerKit
import Testing

// The data directory's files end to end: a complete last line that is damaged is damage (never a
// torn tail moved away), and no store file is read or written through a symbolic link.

@Suite struct StoreFilesCLITests {
    private let password = "correct horse 1"

    /// Registers, signs in and out: the log's last line is an acknowledged `SessionEnded`.
    private func loggedOut(_ dir: LedgerDir, _ email: String) throws {
        let registered = try dir.register(email: email, password: password)
        try #require(registered.status == 0, "\(registered)")
        let login = try parseObject(try dir.login(email: email, password: password).stdout)
        let sessionId = try #require(login["sessionId"] as? String)
        let logout = try dir.run(["logout", "--session", sessionId])
        try #require(logout.status == 0, "\(logout)")
        try #require(try dir.events().last?["type"] as? String == "SessionEnded")
    }

    // MARK: - Torn means incomplete

    /// One byte of a complete last line damaged so that it is no longer JSON: writers refuse
    /// (exit 1, nothing moved to `.broken`, the log byte-identical) and `verify` names the line.
    @Test func aDamagedCompleteLastLineIsRefusedNotRepaired() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail()
            try loggedOut(dir, email)
            var lines = splitLines(try dir.logBytes())
            let last = lines.count - 1
            let colon = try #require(lines[last].firstIndex(of: UInt8(ascii: ":")))
            lines[last][colon] = UInt8(ascii: ";")
            let damaged = lines.flatMap { $0 }
            try writeBytes(damaged, to: dir.logPath)

            let login = try dir.login(email: email, password: password)
            #expect(login.status == 1, "\(login)")
            #expect(login.stderr.contains("damaged"), "\(login.stderr)")
            let register = try dir.register(email: uniqueEmail(), password: password)
            #expect(register.status == 1, "\(register)")
            let recover = try dir.run(["recover"])
            #expect(recover.status == 1, "\(recover)")
            #expect(!FileManager.default.fileExists(atPath: dir.logPath + ".broken"))
            #expect(try dir.logBytes() == damaged, "the log is byte-identical")

            let verify = try dir.run(["verify", "--json"])
            #expect(verify.status == 1, "\(verify)")
            let problems = try #require(try parseObject(verify.stdout)["problems"] as? [[String: Any]])
            #expect(problems.count == 1)
            #expect(problems.first?["line"] as? Int == lines.count)
            #expect(problems.first?["kind"] as? String == "invalid-json")
        }
    }

    /// The acknowledged last line (`SessionEnded`) loses only its final newline: it is a whole event,
    /// so the next writer adds the newline back and keeps it (the session stays ended), never moving
    /// it to `.broken` as a write that was never acknowledged.
    @Test func aWholeLastLineWithoutItsNewlineIsCompletedNotMovedAway() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail()
            try loggedOut(dir, email)
            let original = try dir.logBytes()
            let cut = Array(original.dropLast())
            try writeBytes(cut, to: dir.logPath)
            let verify = try dir.run(["verify", "--json"])
            #expect(verify.status == 1 && verify.stdout.contains("without its final newline"), "\(verify)")

            let login = try dir.login(email: email, password: password)
            #expect(login.status == 0, "\(login)")
            #expect(!FileManager.default.fileExists(atPath: dir.logPath + ".broken"))
            let log = try dir.logBytes()
            #expect(Array(log.prefix(original.count)) == original, "the event is kept, its newline restored")
            let sessions = try #require(try dir.json(["sessions"]) as? [[String: Any]])
            // The registration's session, the one that logged out (still ended), this login's.
            #expect(sessions.compactMap { $0["status"] as? String } == ["active", "ended", "active"], "the ended session stays ended")
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    // MARK: - No symlinks followed

    /// `events.jsonl` a link to a one-line file outside the data directory: writers and readers
    /// refuse (exit 3, naming the link), and the outside file is byte-identical.
    @Test func aSymlinkedLogIsRefusedByWritersAndReaders() throws {
        try withTempDirectory { outside in
            try withLedgerDir { dir in
                let target = outside + "/victim.txt"
                let content = Array("one line that is not a log\n".utf8)
                try writeBytes(content, to: target)
                try FileManager.default.createSymbolicLink(atPath: dir.logPath, withDestinationPath: target)

                for arguments in [LedgerDir.registerArguments(email: uniqueEmail(), username: "Test User"),
                                  ["replay"], ["verify"], ["users"], ["recover"]] {
                    let result = try dir.run(arguments, stdin: password + "\n")
                    #expect(result.status == 3, "\(arguments): \(result)")
                    #expect(result.stderrLines.count == 1, "\(arguments): \(result.stderr)")
                    #expect(result.stderr.contains("events.jsonl: it is a symbolic link"), "\(arguments): \(result.stderr)")
                }
                #expect(try readBytes(target) == content)
                #expect(!FileManager.default.fileExists(atPath: target + ".broken"))
                #expect(!FileManager.default.fileExists(atPath: dir.logPath + ".broken"))
                #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir.logPath) == target)
            }
        }
    }

    /// A linked lock file is refused (exit 3) and its target never written; a linked index, a
    /// cache, is replaced by a fresh regular file without its target being read or written.
    @Test func aSymlinkedLockIsRefusedAndALinkedIndexIsReplaced() throws {
        try withTempDirectory { outside in
            try withLedgerDir { dir in
                try #require(try dir.register(email: uniqueEmail(), password: password).status == 0)
                let target = outside + "/victim.txt"
                let content = Array("one line outside\n".utf8)
                try writeBytes(content, to: target)

                let lock = dir.path + "/events.lock"
                try FileManager.default.removeItem(atPath: lock)
                try FileManager.default.createSymbolicLink(atPath: lock, withDestinationPath: target)
                let refused = try dir.register(email: uniqueEmail(), password: password)
                #expect(refused.status == 3, "\(refused)")
                #expect(refused.stderr.contains("events.lock: it is a symbolic link"), "\(refused.stderr)")
                #expect(try readBytes(target) == content)
                try FileManager.default.removeItem(atPath: lock)

                let index = dir.logPath + ".index"
                try? FileManager.default.removeItem(atPath: index)
                try FileManager.default.createSymbolicLink(atPath: index, withDestinationPath: target)
                let email = uniqueEmail()
                let registered = try dir.register(email: email, password: password)
                #expect(registered.status == 0, "\(registered)")
                #expect(try readBytes(target) == content, "the index's link target is neither read nor written")
                let kind = try FileManager.default.attributesOfItem(atPath: index)[.type] as? FileAttributeType
                #expect(kind == .typeRegular, "the link was replaced by a regular index")
                #expect(try dir.login(email: email, password: password).status == 0)
                #expect(try dir.run(["verify"]).status == 0)
            }
        }
    }

    /// A FIFO as the log is refused, never waited on.
    @Test func aFIFOAsTheLogIsRefusedWithoutHanging() throws {
        try withLedgerDir { dir in
            try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
            #expect(mkfifo(dir.logPath, 0o600) == 0)
            for arguments in [["verify"], ["replay"]] {
                let result = try dir.run(arguments)
                #expect(result.status == 3, "\(arguments): \(result)")
                #expect(result.stderr.contains("it is a FIFO"), "\(arguments): \(result.stderr)")
            }
        }
    }
}
