import Foundation
import Glibc
import Testing

/// `ledger events --follow`, end to end: other processes append, the follower prints each new
/// line once, and a signal ends it with exit 0.
struct EventsFollowCLITests {
    /// Appends `bytes` to the file at `path`.
    static func append(_ bytes: [UInt8], to path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
    }

    @Test func followPrintsEveryAppendedLineOnceUntilSIGINT() throws {
        try withTempDirectory { path in
            let dir = LedgerDir(path: path)
            let follower = try BackgroundProcess(Paths.ledger, ["events", "--follow", "--json", "--data", path], env: fastHashEnvironment)
            // No log yet: it says so once and waits.
            #expect(follower.waitUntil { (try? $0.stderr())?.contains("waiting for the first event") == true })

            let drill = try run(Paths.drill, ["append", path, "3"])
            #expect(drill.status == 0, "\(drill)")
            let firstThree = try readText(dir.logPath)
            #expect(follower.waitUntil { (try? $0.stdout()) == firstThree }, "the drill's 3 events")

            let registered = try dir.register(email: "follower@example.com")
            #expect(registered.status == 0, "\(registered)")
            #expect(try run(Paths.drill, ["append", path, "2"]).status == 0)
            let log = try readText(dir.logPath)
            #expect(splitLines(Array(log.utf8)).count == 3 + 3 + 2, "AccountCreated, ProfileWritten, SessionStarted")
            #expect(follower.waitUntil { (try? $0.stdout()) == log }, "every appended line")
            #expect(follower.isRunning)

            follower.send(SIGINT)
            let result = try follower.wait()
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout == log, "each line once, byte for byte as stored")
            #expect(result.stderrLines == ["ledger: no log at \(dir.logPath) yet; waiting for the first event (Ctrl-C to stop)"])
        }
    }

    @Test func aTableWithAFilterEndsWithItsCountOnSIGTERM() throws {
        try withTempDirectory { path in
            try writeBytes(try readBytes(Paths.demoLog), to: path + "/events.jsonl")
            let follower = try BackgroundProcess(Paths.ledger, ["events", "--follow", "--type", "SignInFailed", "--data", path])
            // The header and the demo's three refused sign-ins.
            #expect(follower.waitUntil { (try? $0.stdout())?.split(separator: "\n").count == 4 })
            #expect(try run(Paths.drill, ["append", path, "2"]).status == 0)
            #expect(follower.waitUntil { (try? $0.stdout())?.split(separator: "\n").count == 6 })
            follower.send(SIGTERM)
            let result = try follower.wait()
            #expect(result.status == 0, "\(result)")
            let lines = result.stdoutLines
            #expect(lines.count == 7, "\(result)")
            #expect(lines.first?.split(separator: " ") == ["SEQ", "AT", "TYPE", "STREAM"])
            #expect(lines.last == "5 events")
            let rows = lines.dropFirst().dropLast()
            #expect(rows.allSatisfy { $0.contains(" SignInFailed ") })
            let typeColumn = Set(rows.map { $0.range(of: "SignInFailed")!.lowerBound.utf16Offset(in: $0) })
            #expect(typeColumn.count == 1, "rows printed later line up with the first: \(result)")
            #expect(result.stderr.isEmpty)
        }
    }

    @Test func aTornTailIsWaitedForAndPrintedOnceComplete() throws {
        try withTempDirectory { path in
            #expect(try run(Paths.drill, ["append", path + "/source", "5"]).status == 0)
            let lines = splitLines(try readBytes(path + "/source/events.jsonl"))
            let log = path + "/copy.jsonl"
            try writeBytes(Array(lines[0...2].joined()), to: log)
            let follower = try BackgroundProcess(Paths.ledger, ["events", log, "--follow", "--json"])
            let three = String(decoding: Array(lines[0...2].joined()), as: UTF8.self)
            #expect(follower.waitUntil { (try? $0.stdout()) == three })

            try Self.append(Array(lines[3].prefix(40)), to: log)  // a write in progress
            usleep(700_000)
            #expect(try follower.stdout() == three, "nothing of the incomplete line")
            #expect(try follower.stderr().isEmpty, "no warning while following")
            #expect(follower.isRunning)

            try Self.append(Array(lines[3].dropFirst(40)) + lines[4], to: log)
            let all = String(decoding: Array(lines.joined()), as: UTF8.self)
            #expect(follower.waitUntil { (try? $0.stdout()) == all })
            follower.send(SIGINT)
            let result = try follower.wait()
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout == all)
            #expect(result.stderr.isEmpty)
        }
    }

    @Test func damageStopsTheFollowerWithExit1() throws {
        try withTempDirectory { path in
            let log = path + "/events.jsonl"
            let demo = try readText(Paths.demoLog)
            try writeBytes(Array(demo.utf8), to: log)
            let follower = try BackgroundProcess(Paths.ledger, ["events", "--follow", "--json", "--data", path])
            #expect(follower.waitUntil { (try? $0.stdout()) == demo })
            try Self.append(Array("{\"seq\":26}\n".utf8), to: log)
            let result = try follower.wait()
            #expect(result.status == 1, "\(result)")
            #expect(result.stdout == demo)
            #expect(result.stderrLines.count == 1, "\(result)")
            #expect(result.stderr.hasPrefix("ledger: line 26: "))
            #expect(result.stderr.contains("run `ledger verify`"))
        }
    }

    @Test func aLogCutUnderTheFollowerStopsItWithExit1() throws {
        try withTempDirectory { path in
            let log = path + "/events.jsonl"
            let demo = try readBytes(Paths.demoLog)
            try writeBytes(demo, to: log)
            let follower = try BackgroundProcess(Paths.ledger, ["events", "--follow", "--data", path])
            #expect(follower.waitUntil { (try? $0.stdout())?.split(separator: "\n").count == 26 })
            #expect(truncate(log, 100) == 0)
            let result = try follower.wait()
            #expect(result.status == 1, "\(result)")
            #expect(result.stdoutLines.last == "25 events", "the count line before the error")
            #expect(result.stderrLines.count == 1, "\(result)")
            #expect(result.stderr.contains("was cut below"))
        }
    }

    @Test func followEndsByItselfAtTheLimit() throws {
        let result = try run(Paths.ledger, ["events", Paths.demoLog, "--follow", "--json", "--limit", "2"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines == Array(try readText(Paths.demoLog).split(separator: "\n").prefix(2).map(String.init)))
    }
}
