import Foundation
import Glibc
import Testing

// The hostile-input drill (Docs/Reliability.md, promise 5), end to end: the special cases of the fuzz harness run through
// the built `ledger` (a 100 MB line, 100,000-deep nesting, invalid UTF-8, huge numbers, `..` and
// symlinks in image paths, a data directory that is missing, not a directory, or read-only), and a
// short seeded run of `ledger-fuzz` itself. The long run is `ledger-fuzz all --iterations 1000000`
// on a release build; see `Sources/ledger-fuzz/main.swift`.

/// A hostile line inserted into the demo log, which `ledger verify` must report as `invalid-json`.
struct HostileLine: CustomTestStringConvertible, Sendable {
    let label: String
    /// The line's bytes, without the newline.
    let bytes: [UInt8]
    /// Text the problem's message must contain.
    let message: String

    var testDescription: String { label }

    /// A demo-shaped line (valid apart from what `edit` puts into it).
    private static func line(_ edit: (String) -> String) -> [UInt8] {
        Array(edit(#"{"seq":10,"id":"00000000-0000-4000-8000-00000000000a","at":"2026-11-29T09:40:00.000Z","type":"SignInFailed","v":1,"stream":"signin-00000000-0000-4000-8000-00000000000b","data":{"email":"EMAIL","reason":"unknown-email"},"prev":"\#(String(repeating: "0", count: 64))","hash":"\#(String(repeating: "a", count: 64))"}"#).utf8)
    }

    private static func replacingEmail(with bytes: [UInt8]) -> [UInt8] {
        let text = line { $0 }
        let marker = Array("EMAIL".utf8)
        guard let at = (0...(text.count - marker.count)).first(where: { Array(text[$0..<($0 + marker.count)]) == marker }) else { return text }
        return Array(text[..<at]) + bytes + Array(text[(at + marker.count)...])
    }

    static let all: [HostileLine] = [
        HostileLine(label: "100,000-deep [[[[", bytes: [UInt8](repeating: UInt8(ascii: "["), count: 100_000), message: "nesting deeper than 256"),
        HostileLine(label: "100,000-deep {\"a\":{\"a\":", bytes: Array(String(repeating: #"{"a":"#, count: 100_000).utf8), message: "nesting deeper than 256"),
        HostileLine(label: "data nested 300 deep", bytes: line { $0.replacingOccurrences(of: #""reason":"unknown-email""#, with: #""x":"# + String(repeating: "[", count: 300) + String(repeating: "]", count: 300)) }, message: "nesting deeper than 256"),
        HostileLine(label: "invalid UTF-8 (C3 28) in a string", bytes: replacingEmail(with: [0x61, 0xC3, 0x28, 0x40, 0x62, 0x2E, 0x63, 0x6F]), message: "invalid UTF-8"),
        HostileLine(label: "overlong NUL (C0 80)", bytes: replacingEmail(with: [0xC0, 0x80]), message: "invalid UTF-8"),
        HostileLine(label: "UTF-8-encoded surrogate (ED A0 80)", bytes: replacingEmail(with: [0xED, 0xA0, 0x80]), message: "invalid UTF-8"),
        HostileLine(label: "byte FF outside a string", bytes: [0xFF] + line { $0 }, message: "unexpected character"),
        HostileLine(label: "lone surrogate escape", bytes: replacingEmail(with: Array(#"\ud800"#.utf8)), message: "unpaired surrogate"),
        HostileLine(label: "raw NUL in a string", bytes: replacingEmail(with: [0x61, 0x00, 0x62]), message: "control character"),
        HostileLine(label: "seq 1e400", bytes: line { $0.replacingOccurrences(of: #""seq":10"#, with: #""seq":1e400"#) }, message: "unrepresentable number"),
        HostileLine(label: "seq 99999999999999999999999", bytes: line { $0.replacingOccurrences(of: #""seq":10"#, with: #""seq":99999999999999999999999"#) }, message: "seq must be a positive integer"),
        HostileLine(label: "duplicate member", bytes: line { $0.replacingOccurrences(of: #""v":1,"#, with: #""v":1,"v":1,"#) }, message: "duplicate member"),
    ]
}

@Suite struct FuzzSmokeTests {
    /// The demo log's lines, each with its newline.
    private func demoLines() throws -> [[UInt8]] { splitLines(try readBytes(Paths.demoLog)) }

    /// `ledger verify FILE --json`, parsed.
    private func verify(_ log: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> (status: Int32, report: [String: Any]) {
        let result = try ledger("verify", log, "--json")
        #expect(result.stderr.isEmpty, "\(result)", sourceLocation: sourceLocation)
        return (result.status, try parseObject(result.stdout))
    }

    private func problems(_ report: [String: Any]) -> [[String: Any]] { report["problems"] as? [[String: Any]] ?? [] }

    // MARK: The log line decoder, end to end

    @Test func hundredMegabyteLineIsReportedOnItsLineWithoutCrashing() throws {
        try withTempDirectory("ledger-fuzz-big") { folder in
            let lines = try demoLines()
            let last = try parseObject(String(decoding: lines[lines.count - 1], as: UTF8.self))
            let prev = try #require(last["hash"] as? String)
            // Line 26: a well-formed SignInFailed with a 100 MiB extra member in `data` and a hash that does not match.
            var big = Array(#"{"seq":26,"id":"00000000-0000-4000-8000-000000000019","at":"2026-11-29T12:00:00.000Z","type":"SignInFailed","v":1,"stream":"signin-00000000-0000-4000-8000-000000000020","data":{"email":"big@example.com","reason":"unknown-email","pad":""#.utf8)
            big += [UInt8](repeating: UInt8(ascii: "a"), count: 100 << 20)
            big += Array(#""},"prev":"\#(prev)","hash":"\#(String(repeating: "0", count: 64))"}"#.utf8) + [0x0A]
            let log = folder + "/events.jsonl"
            try writeBytes(Array(lines.joined()) + big, to: log)
            big = []

            let started = Date()
            let (status, report) = try verify(log)
            let seconds = Date().timeIntervalSince(started)
            #expect(status == 1)
            #expect(report["events"] as? Int == 26)
            #expect((report["head"] as? [String: Any])?["seq"] as? Int == 25)
            let found = problems(report)
            #expect(found.count == 1)
            #expect(found.first?["line"] as? Int == 26)
            #expect(found.first?["kind"] as? String == "bad-hash")
            // Generous: a debug build on a shared machine takes tens of seconds; a release build about one.
            #expect(seconds < 300, "verify took \(seconds) s")
        }
    }

    @Test func lineWithAMillionMembersIsCheckedInLinearTime() throws {
        // A 12 MB line of a million members: duplicate-member detection and object building must stay
        // linear overall (a linear search per member would take hours).
        try withTempDirectory("ledger-fuzz-wide") { folder in
            var line = Array(#"{"seq":26,"id":"00000000-0000-4000-8000-000000000019","at":"2026-11-29T12:00:00.000Z","type":"SignInFailed","v":1,"stream":"signin-00000000-0000-4000-8000-000000000020","data":{"email":"wide@example.com","reason":"unknown-email""#.utf8)
            for n in 0..<1_000_000 { line += Array(#","k\#(n)":0"#.utf8) }
            line += Array(#"},"prev":"\#(String(repeating: "0", count: 64))","hash":"\#(String(repeating: "0", count: 64))"}"#.utf8) + [0x0A]
            let log = folder + "/events.jsonl"
            try writeBytes(Array(try demoLines().joined()) + line, to: log)
            let started = Date()
            let (status, report) = try verify(log)
            let seconds = Date().timeIntervalSince(started)
            #expect(status == 1)
            #expect(problems(report).first?["line"] as? Int == 26)
            #expect(problems(report).first?["kind"] as? String == "bad-hash")
            #expect(seconds < 120, "verify took \(seconds) s")
        }
    }

    @Test(arguments: HostileLine.all)
    func hostileLineInTheMiddleIsInvalidJSONOnItsLine(_ hostile: HostileLine) throws {
        try withTempDirectory("ledger-fuzz-line") { folder in
            var lines = try demoLines()
            lines.insert(hostile.bytes + [0x0A], at: 9)  // becomes line 10; the demo's line 10 follows as line 11
            let log = folder + "/events.jsonl"
            try writeBytes(Array(lines.joined()), to: log)
            let (status, report) = try verify(log)
            #expect(status == 1)
            let found = problems(report)
            // Exactly one problem: the chain goes on past an undecodable line.
            #expect(found.count == 1, "\(found)")
            #expect(found.first?["line"] as? Int == 10)
            #expect(found.first?["kind"] as? String == "invalid-json")
            #expect((found.first?["message"] as? String)?.contains(hostile.message) == true, "\(found)")
            #expect(report["events"] as? Int == 26)
        }
    }

    @Test func hundredThousandDeepLastLineIsDamageWithoutStackOverflow() throws {
        // A complete last line that is not JSON is damage (invalid-json), not an unfinished write;
        // the decoder's depth limit holds on it.
        try withTempDirectory("ledger-fuzz-deep") { folder in
            let log = folder + "/events.jsonl"
            try writeBytes(Array(try demoLines().joined()) + [UInt8](repeating: UInt8(ascii: "["), count: 100_000) + [0x0A], to: log)
            let (status, report) = try verify(log)
            #expect(status == 1)
            let found = problems(report)
            #expect(found.count == 1)
            #expect(found.first?["line"] as? Int == 26)
            #expect(found.first?["kind"] as? String == "invalid-json")
        }
    }

    @Test func lineWhoseSeqIsIntMaxIsFollowedWithoutOverflow() throws {
        // A damaged line leaves the checker's head at its declared seq: Int.max must not trap on `+ 1`.
        try withTempDirectory("ledger-fuzz-seq") { folder in
            var lines = try demoLines()
            let text = String(decoding: lines[9], as: UTF8.self).replacingOccurrences(of: #""seq":10,"#, with: #""seq":9223372036854775807,"#)
            lines[9] = Array(text.utf8)
            let log = folder + "/events.jsonl"
            try writeBytes(Array(lines.joined()), to: log)
            let (status, report) = try verify(log)
            #expect(status == 1)
            let found = problems(report)
            #expect(found.first?["line"] as? Int == 10)
            #expect(found.first?["kind"] as? String == "bad-hash")
            #expect(found.dropFirst().first?["line"] as? Int == 11)
            #expect(found.dropFirst().first?["kind"] as? String == "seq-gap")
        }
    }

    // MARK: Image paths

    /// Registers with `--image path`; returns the exit status and the `--json` outcome.
    private func register(image path: String, in dir: LedgerDir) throws -> (status: Int32, output: [String: Any]) {
        let result = try dir.register(email: uniqueEmail("image"), image: path)
        return (result.status, try parseObject(result.stdout))
    }

    @Test func imageGivenAsSymlinkToValidPNGIsRefused() throws {
        try withTempDirectory("ledger-fuzz-inputs") { inputs in
            try withLedgerDir { dir in
                try writeBytes(try readBytes(samplePNG), to: inputs + "/real.png")
                try FileManager.default.createSymbolicLink(atPath: inputs + "/link.png", withDestinationPath: inputs + "/real.png")
                try FileManager.default.createSymbolicLink(atPath: inputs + "/demo.png", withDestinationPath: samplePNG)
                for link in ["link.png", "demo.png"] {
                    let (status, output) = try register(image: inputs + "/" + link, in: dir)
                    #expect(status == 1)
                    #expect(output["step"] as? String == "validation")
                    #expect(output["reason"] as? String == "invalid-image-path", "\(link): \(output)")
                }
                #expect(dir.imageFiles().isEmpty)
                // The same PNG, not through a link, is accepted: the refusals were for the path alone.
                let (status, output) = try register(image: inputs + "/real.png", in: dir)
                #expect(status == 0, "\(output)")
            }
        }
    }

    @Test func imagePathWithDotDotIsRefused() throws {
        try withTempDirectory("ledger-fuzz-inputs") { inputs in
            try withLedgerDir { dir in
                try writeBytes(try readBytes(samplePNG), to: inputs + "/real.png")
                try FileManager.default.createDirectory(atPath: inputs + "/sub", withIntermediateDirectories: true)
                for path in [inputs + "/sub/../real.png", "../" + inputs + "/real.png", inputs + "/sub/.."] {
                    let (status, output) = try register(image: path, in: dir)
                    #expect(status == 1)
                    #expect(output["reason"] as? String == "invalid-image-path", "\(path): \(output)")
                }
                #expect(dir.imageFiles().isEmpty)
            }
        }
    }

    @Test func imageThatIsNotARegularFileIsRefusedWithoutReadingIt() throws {
        // `/dev/zero` never ends: it must be refused by its type, before any read.
        try withTempDirectory("ledger-fuzz-inputs") { inputs in
            try withLedgerDir { dir in
                for path in ["/dev/zero", "/dev/urandom", inputs] {
                    let (status, output) = try register(image: path, in: dir)
                    #expect(status == 1)
                    #expect(output["reason"] as? String == "invalid-image-path", "\(path): \(output)")
                }
            }
        }
    }

    // MARK: Data directories

    @Test func missingDataDirectoryIsAnEnvironmentErrorAndIsNotCreated() throws {
        try withTempDirectory("ledger-fuzz-data") { folder in
            let missing = folder + "/missing"
            for command in ["verify", "users", "events", "audit"] {
                let result = try ledger(command, "--data", missing)
                #expect(result.status == 3, "\(command): \(result)")
                #expect(result.stderr.contains("no log at"), "\(command): \(result)")
            }
            #expect(!FileManager.default.fileExists(atPath: missing))
        }
    }

    @Test func dataDirectoryUnderARegularFileIsAnEnvironmentError() throws {
        try withTempDirectory("ledger-fuzz-data") { folder in
            try writeBytes(Array("not a folder\n".utf8), to: folder + "/file")
            let dir = LedgerDir(path: folder + "/file/data")
            let result = try dir.register(email: uniqueEmail("nodir"))
            #expect(result.status == 3, "\(result)")
            #expect(result.stderr.contains("Not a directory"), "\(result)")
            #expect(try readText(folder + "/file") == "not a folder\n")
        }
    }

    /// Runs `ledger` as an unprivileged user when the tests run as root (root ignores permission bits).
    private func ledgerWithoutPrivileges(_ arguments: [String], stdin: String? = nil) throws -> ProcessResult {
        if geteuid() != 0 { return try run(Paths.ledger, arguments, stdin: stdin, env: fastHashEnvironment) }
        return try run(Self.setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", Paths.ledger] + arguments,
                       stdin: stdin, env: fastHashEnvironment)
    }

    static let setpriv = "/usr/bin/setpriv"

    @Test(.enabled(if: geteuid() != 0 || access(FuzzSmokeTests.setpriv, X_OK) == 0, "root ignores permissions and setpriv is missing"))
    func readOnlyDataDirectoryServesReadsAndRefusesWrites() throws {
        try withTempDirectory("ledger-fuzz-data") { folder in
            let data = folder + "/ro"
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            try writeBytes(try readBytes(Paths.demoLog), to: data + "/events.jsonl")
            chmod(folder, 0o755); chmod(data + "/events.jsonl", 0o444); chmod(data, 0o555)
            defer { chmod(data, 0o755) }

            let verified = try ledgerWithoutPrivileges(["verify", "--data", data])
            #expect(verified.status == 0, "\(verified)")
            let users = try ledgerWithoutPrivileges(["users", "--data", data, "--json"])
            #expect(users.status == 0, "\(users)")

            let registered = try ledgerWithoutPrivileges(LedgerDir.registerArguments(email: uniqueEmail("ro"), username: "RO") + ["--data", data],
                                                         stdin: "long enough password\n")
            #expect(registered.status == 3, "\(registered)")
            #expect(registered.stderr.lowercased().contains("permission denied"), "\(registered)")
            #expect(try readBytes(data + "/events.jsonl") == (try readBytes(Paths.demoLog)))
            #expect(try FileManager.default.contentsOfDirectory(atPath: data) == ["events.jsonl"])
        }
    }

    // MARK: The harness itself

    @Test func shortSeededFuzzRunPasses() throws {
        let fuzzer = Paths.binaries + "/ledger-fuzz"
        try #require(FileManager.default.isExecutableFile(atPath: fuzzer), "build it: swift build --product ledger-fuzz")
        let result = try run(fuzzer, ["all", "--iterations", "20000", "--seed", "1"])
        #expect(result.status == 0, "\(result)")
        let summary = try #require(result.stdoutLines.last)
        #expect(summary.hasPrefix("fuzzed 20033 inputs (decoder 10033, image 10000) in "), "\(summary)")
        #expect(summary.hasSuffix(": 0 crashes, 0 hangs, 0 invariant failures; seed 1"), "\(summary)")
        // The inputs reached past the JSON reader: envelopes, events and every kind of chain problem.
        let decoder = try #require(result.stdoutLines.first { $0.hasPrefix("decoder: ") })
        for kind in ["bad-hash", "seq-gap", "broken-chain", "unknown-type", "invalid-data", "invalid-json"] {
            #expect(decoder.contains(kind), "\(decoder)")
        }
    }

    @Test func fuzzerRefusesBadUsage() throws {
        let fuzzer = Paths.binaries + "/ledger-fuzz"
        try #require(FileManager.default.isExecutableFile(atPath: fuzzer), "build it: swift build --product ledger-fuzz")
        for arguments in [[], ["nope"], ["all", "--iterations", "-1"], ["decoder", "--seed"]] {
            let result = try run(fuzzer, arguments)
            #expect(result.status == 2, "\(arguments): \(result)")
        }
    }
}
