import Foundation
import LedgerKit
import Testing

// The data directory's files end to end: a complete last line that is damaged is damage (never a
// torn tail moved away), no store file is read or written through a symbolic link, none is
// written through a hard link, and the data directory's own folders are never links.

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

    // MARK: - No hard links written through, no linked folders

    /// The index's temp name a hard link to a file outside the data directory (and the index gone,
    /// so the next writer builds a new one there): `register` and `login` succeed and the outside
    /// file is byte-identical — the temp name is removed first and the file created new.
    @Test func aHardLinkedIndexTempIsNeverWrittenThrough() throws {
        try withTempDirectory { outside in
            try withLedgerDir { dir in
                let email = uniqueEmail()
                try #require(try dir.register(email: email, password: password).status == 0)
                let target = outside + "/authorized_keys"
                let content = Array("ssh-ed25519 AAAA… someone@host\n".utf8)
                try writeBytes(content, to: target)
                let index = dir.logPath + ".index"
                for arguments in [LedgerDir.registerArguments(email: uniqueEmail(), username: "Test User"),
                                  ["login", "--email", email, "--password-stdin"]] {
                    try? FileManager.default.removeItem(atPath: index)
                    try? FileManager.default.removeItem(atPath: index + ".new")
                    try FileManager.default.linkItem(atPath: target, toPath: index + ".new")
                    let result = try dir.run(arguments, stdin: password + "\n")
                    #expect(result.status == 0, "\(arguments): \(result)")
                    #expect(try readBytes(target) == content, "\(arguments): the outside file is byte-identical")
                }
                #expect(try dir.run(["verify"]).status == 0)
            }
        }
    }

    /// `events.jsonl` with a second name outside the data directory: writers refuse (exit 3, one
    /// line naming the hard link) and the file's bytes are unchanged; readers read it (the same
    /// file: reading changes nothing).
    @Test func aHardLinkedLogIsRefusedByWriters() throws {
        try withTempDirectory { outside in
            try withLedgerDir { dir in
                let email = uniqueEmail()
                try loggedOut(dir, email)
                let second = outside + "/copy.jsonl"
                try FileManager.default.linkItem(atPath: dir.logPath, toPath: second)
                let before = try readBytes(second)

                for arguments in [LedgerDir.registerArguments(email: uniqueEmail(), username: "Test User"),
                                  ["login", "--email", email, "--password-stdin"], ["recover"]] {
                    let result = try dir.run(arguments, stdin: password + "\n")
                    #expect(result.status == 3, "\(arguments): \(result)")
                    #expect(result.stderrLines.count == 1, "\(arguments): \(result.stderr)")
                    #expect(result.stderr.contains("events.jsonl: it is a hard link"), "\(arguments): \(result.stderr)")
                }
                #expect(try readBytes(second) == before, "nothing was written through the second name")
                #expect(!FileManager.default.fileExists(atPath: dir.brokenPath))
                #expect(try dir.run(["verify"]).status == 0, "a reader reads the same file")
            }
        }
    }

    /// `locks` a symbolic link to a folder holding `Cargo.lock`: `recover`, `register` and `login`
    /// refuse (exit 3, naming `locks`) and nothing in the target is removed or created.
    @Test func aSymlinkedLocksFolderIsRefused() throws {
        try withTempDirectory { outside in
            try withLedgerDir { dir in
                let email = uniqueEmail()
                try #require(try dir.register(email: email, password: password).status == 0)
                let project = outside + "/proj"
                try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
                let cargo = project + "/Cargo.lock"
                try writeBytes(Array("# lock file\n".utf8), to: cargo)
                let locks = dir.path + "/locks"
                try? FileManager.default.removeItem(atPath: locks)
                try FileManager.default.createSymbolicLink(atPath: locks, withDestinationPath: project)

                for arguments in [["recover"], LedgerDir.registerArguments(email: uniqueEmail(), username: "Test User"),
                                  ["login", "--email", email, "--password-stdin"]] {
                    let result = try dir.run(arguments, stdin: password + "\n")
                    #expect(result.status == 3, "\(arguments): \(result)")
                    #expect(result.stderrLines.count == 1, "\(arguments): \(result.stderr)")
                    #expect(result.stderr.contains("locks: it is a symbolic link, not a folder"), "\(arguments): \(result.stderr)")
                }
                #expect(FileManager.default.fileExists(atPath: cargo), "recover removed nothing in the link's target")
                #expect(try FileManager.default.contentsOfDirectory(atPath: project) == ["Cargo.lock"], "nothing created there")
            }
        }
    }

    /// `profile_image` a symbolic link to a folder holding a UUID-named file (an orphan to the log):
    /// `recover` refuses (exit 3, naming `profile_image`) and the file is still there.
    @Test func aSymlinkedImageFolderIsRefused() throws {
        try withTempDirectory { outside in
            try withLedgerDir { dir in
                try #require(try dir.register(email: uniqueEmail(), password: password).status == 0)
                let pictures = outside + "/pictures"
                try FileManager.default.createDirectory(atPath: pictures, withIntermediateDirectories: true)
                let file = pictures + "/" + UUID().uuidString.lowercased()
                try writeBytes(Array("not ledger's\n".utf8), to: file)
                try? FileManager.default.removeItem(atPath: dir.imageFolder)
                try FileManager.default.createSymbolicLink(atPath: dir.imageFolder, withDestinationPath: pictures)

                let recover = try dir.run(["recover"])
                #expect(recover.status == 3, "\(recover)")
                #expect(recover.stderrLines.count == 1, "\(recover.stderr)")
                for read in [["audit"], ["report", "--html", dir.path + "/report.html"]] {
                    let refused = try dir.run(read)
                    #expect(refused.status == 3 && refused.stderr.contains("profile_image"), "\(read): \(refused)")
                }
                #expect(recover.stderr.contains("profile_image: it is a symbolic link, not a folder"), "\(recover.stderr)")
                #expect(FileManager.default.fileExists(atPath: file), "recover removed nothing in the link's target")
                let image = Paths.repo("Events/samples/demo/profile_image/05c4796f-c6d0-5b0f-80c6-01aa5f708738")
                let register = try dir.register(email: uniqueEmail(), password: password, image: image)
                #expect(register.status == 3, "\(register)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: pictures).count == 1, "no blob written there")
            }
        }
    }

    /// An atomic write (checkpoint, blob) whose temp name is a hard link to a file elsewhere (a
    /// leftover of a process with the same pid, or planted): the name is removed first and the
    /// temp file created new, so the other file is untouched.
    @Test func anAtomicWriteNeverWritesThroughItsTempName() throws {
        try withTempDirectory { dir in
            let target = dir + "/outside"
            let content = Array("keep me\n".utf8)
            try writeBytes(content, to: target)
            let path = dir + "/events.jsonl.checkpoint"
            try FileManager.default.linkItem(atPath: target, toPath: "\(path).tmp-\(getpid())")
            try FileSystem.writeAtomically(Array("new\n".utf8), to: path)
            #expect(try readBytes(target) == content)
            #expect(try readBytes(path) == Array("new\n".utf8))
        }
    }

    /// A file with a second name is refused for writing before anything is written, even with
    /// `O_TRUNC`; read-only, it is read.
    @Test func aHardLinkIsRefusedForWritingAndReadForReading() throws {
        try withTempDirectory { dir in
            let target = dir + "/outside"
            let content = Array("keep me\n".utf8)
            try writeBytes(content, to: target)
            let name = dir + "/events.lock"
            try FileManager.default.linkItem(atPath: target, toPath: name)
            for flags in [O_RDWR, O_WRONLY | O_TRUNC, O_RDWR | O_CREAT | O_APPEND] {
                #expect(throws: SystemError.self) { try FileDescriptor(path: name, flags: flags) }
                do { _ = try FileDescriptor(path: name, flags: flags) } catch let error as SystemError {
                    #expect(error.isNotRegular && "\(error)".contains("it is a hard link"), "\(error)")
                }
            }
            #expect(try readBytes(target) == content)
            #expect(try FileSystem.read(name) == content)
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

    /// A FIFO where the writers' index or its checkpoint goes is neither read nor waited on: the
    /// writers, `recover` and `verify` finish (each under `timeout`, so a hang fails the test).
    @Test(arguments: ["events.jsonl.index.checkpoint", "events.jsonl.index"])
    func aFIFOAsAnIndexFileNeverHangsACommand(_ name: String) throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: "fifo@example.com").status == 0)
            try? FileSystem.remove(dir.logPath + ".index")
            try? FileSystem.remove(FileSystem.join(dir.path, name))
            #expect(mkfifo(FileSystem.join(dir.path, name), 0o600) == 0)
            let bounded = { (arguments: [String], stdin: String?) throws -> ProcessResult in
                try LedgerTests.run("/usr/bin/timeout", ["20", Paths.ledger] + arguments + ["--data", dir.path], stdin: stdin,
                                    env: ["LEDGER_HASH_COST": "1"])
            }
            let login = try bounded(["login", "--email", "fifo@example.com", "--password-stdin", "--json"], "correct horse 1\n")
            #expect(login.status == 0, "\(login)")
            #expect(try bounded(["account", "disable", "fifo@example.com"], nil).status == 0)
            #expect(try bounded(["recover"], nil).status == 0)
            let verified = try bounded(["verify"], nil)
            #expect(verified.status != 124, "verify hung: \(verified)")
        }
    }
}
