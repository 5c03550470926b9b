import Foundation
import LedgerDomain
import LedgerKit
import Testing

/// The samples and the Python tools of `Events/`: the schemas, the independent verifier, and ledger agree.
struct SamplesTests {
    /// A log written by `FileEventStore` with every event type (both forms of the optional members),
    /// in a new folder: data version 2.
    static func writeEveryTypeLog(in dir: String) throws -> FileEventStore {
        let store = FileEventStore(directory: dir, clock: FixedClock(step: 1234), random: SeededRandom(seed: 21))
        try appendEveryType(to: store)
        return store
    }

    /// The same events as a store of data version 1 writes them (every member in the clear).
    static func everyTypeVersion1Log() throws -> [UInt8] {
        let store = InMemoryEventStore(clock: FixedClock(step: 1234), random: SeededRandom(seed: 21))
        try appendEveryType(to: store)
        return store.log
    }

    /// Appends `writeEveryTypeLog`'s events to `store`.
    private static func appendEveryType(to store: any LedgerStore) throws {
        var n = 0
        for variant in [1, 2] {
            for type in EventType.allCases {
                n += 1
                _ = try store.append([Fixtures.event(type, variant)], to: Fixtures.stream(for: type, n), expected: .noStream)
            }
        }
        _ = try store.append([Fixtures.registration(3), Fixtures.event(.imageStored, 3), Fixtures.event(.profileWritten, 3)],
                             to: Fixtures.stream(.registration, 100), expected: .noStream)
    }

    /// The expected head of a sample, read from `Events/samples/EXPECTED.md`.
    static func expectedHead(section: String) throws -> Head {
        let text = try readText(Paths.repo("Events/samples/EXPECTED.md"))
        let part = try #require(text.components(separatedBy: "## ").first { $0.hasPrefix(section) }, "section \(section)")
        let match = try #require(part.firstMatch(of: /head:? seq (\d+), hash `([0-9a-f]{64})`/), "a head in \(section)")
        return Head(seq: Int(match.1)!, hash: String(match.2))
    }

    @Test func samplesSatisfyTheSchemas() throws {
        let result = try pythonTool("validate_samples.py")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.last?.hasPrefix("validated ") == true)
        #expect(result.stdoutLines.last?.contains("invalid") == false)
    }

    @Test func aStoreWrittenLogSatisfiesTheSchemas() throws {
        try withTempDirectory { dir in
            let store = try Self.writeEveryTypeLog(in: dir)
            let lines = splitLines(try readBytes(store.logPath)).count
            let result = try pythonTool("validate_samples.py", [store.logPath])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutLines.last == "validated \(lines) lines in 1 files")
        }
    }

    @Test func theSchemaToolRefusesADateThatDoesNotExist() throws {
        try withTempDirectory { dir in
            let store = try Self.writeEveryTypeLog(in: dir)
            let line = try #require(try readText(store.logPath).split(separator: "\n").first.map(String.init))
            let at = try #require(line.range(of: #""at":""#).map { line[$0.upperBound...].prefix(10) })
            let path = "\(dir)/feb29.jsonl"
            let edited = line.replacingAll(#""at":"\#(at)"#, with: #""at":"2023-02-29"#)
            let body = String(try #require(edited.range(of: #","hash":""#).map { edited[..<$0.lowerBound] }))
            try writeBytes(LineCodec.line(body: Array(body.utf8), hash: SHA256.hex(body)), to: path)
            let result = try pythonTool("validate_samples.py", [path])
            #expect(result.status == 1, "\(result)")
            #expect(result.stdout.contains("is not a real calendar date"), "\(result)")
            // ledger refuses it too, though its hash holds.
            let verified = try ledger("verify", path)
            #expect(verified.status == 1 && !verified.stdout.contains("bad-hash") && verified.stdout.contains("line 1"), "\(verified)")
        }
    }

    @Test func theSchemasRejectABadLine() throws {
        try withTempDirectory { dir in
            // Turn the first AccountCreated's email to uppercase, in a version 1 log where it is in the
            // clear: the schema forbids it (the hash is not the point here).
            let log = String(decoding: try Self.everyTypeVersion1Log(), as: UTF8.self)
            let text = log.replacingAll("user1@example.com", with: "USER1@example.com")
            #expect(text != log)
            let path = "\(dir)/bad.jsonl"
            try writeBytes(Array(text.utf8), to: path)
            let result = try pythonTool("validate_samples.py", [path])
            #expect(result.status == 1, "\(result)")
            #expect(result.stdout.contains("\(path):1:"))
        }
    }

    /// A version 2 line holds its personal members encrypted, and only a type with personal members
    /// is written in version 2: the schemas refuse a personal member in the clear in a v 2 line, an
    /// encrypted one in a v 1 line, an encrypted member with another member, and a v 2 of any other type.
    @Test func theSchemasRejectAVersion2LineOutOfForm() throws {
        try withTempDirectory { dir in
            let store = try Self.writeEveryTypeLog(in: dir)
            let envelopes = try LogRewriting.envelopes(try readBytes(store.logPath))
            let created = try #require(envelopes.first { $0.type == "AccountCreated" })
            let stored = try #require(created.data["email"])
            let image = try #require(envelopes.first { $0.type == "ImageStored" })
            var clear = created, relabeled = created, extra = created, other = image
            clear.data["email"] = .string(try FolderKeys(dir).text("email", of: created))
            relabeled.v = 1
            extra.data["email"] = .object(JSONObject((stored.objectValue?.members ?? []).map { ($0.key, $0.value) } + [("note", .string("x"))]))
            other.v = 2
            let cases: [(Envelope, String)] = [
                (clear, "data email: plain text in a v 2 line"),
                (relabeled, "data email: an encrypted member in a v 1 line"),
                (extra, "data email: {"),  // not valid under any of its two forms
                (other, "no data schema for type 'ImageStored' v 2"),
            ]
            for (n, (line, message)) in cases.enumerated() {
                let path = "\(dir)/bad-\(n).jsonl"
                try writeBytes(LogRewriting.chained([line]), to: path)
                let result = try pythonTool("validate_samples.py", [path])
                #expect(result.status == 1 && result.stdout.contains("\(path):1: \(message)"), "\(message): \(result)")
            }
        }
    }

    @Test func theIndependentVerifierAcceptsAStoreWrittenLog() throws {
        try withTempDirectory { dir in
            let store = try Self.writeEveryTypeLog(in: dir)
            let head = try store.head()
            let result = try pythonTool("verify_log.py", [store.logPath])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutLines == ["ok \(head.seq) \(head.seq) \(head.hash)"])
        }
    }

    @Test func theIndependentVerifierOnTheSamples() throws {
        let demoHead = try Self.expectedHead(section: "demo/events.jsonl")
        let demo = try pythonTool("verify_log.py", [Paths.demoLog])
        #expect(demo.status == 0)
        #expect(demo.stdoutLines == ["ok 25 25 \(demoHead.hash)"])

        let torn = try pythonTool("verify_log.py", [Paths.tornSample])
        #expect(torn.status == 1)
        #expect(torn.stdoutLines == ["bad line 25: no final newline (torn tail)"])

        let edited = try pythonTool("verify_log.py", [Paths.editedSample])
        #expect(edited.status == 1)
        #expect(edited.stdoutLines == ["bad line 9: hash mismatch"])
    }

    @Test func ledgerAgreesWithExpectedMD() throws {
        let demoHead = try Self.expectedHead(section: "demo/events.jsonl")
        #expect(demoHead.seq == 25)
        let report = try LogVerifier.verify(path: Paths.demoLog)
        #expect(report.ok)
        #expect(report.events == 25)
        #expect(report.head == demoHead)
        let cli = try ledger("verify", Paths.demoLog)
        #expect(cli.status == 0)
        #expect(cli.stdoutLines == ["ok: 25 events, head 25:\(demoHead.hash)"])

        let tornHead = try Self.expectedHead(section: "torn-tail.jsonl")
        let torn = try LogVerifier.verify(path: Paths.tornSample)
        #expect(torn.head == tornHead)
        #expect(torn.problems.map(\.kind) == [.tornTail])
        #expect(torn.problems.map(\.line) == [25])

        let edited = try LogVerifier.verify(path: Paths.editedSample)
        #expect(edited.problems.map(\.kind) == [.badHash], "line 10's prev still matches: no broken-chain")
        #expect(edited.problems.map(\.line) == [9])
        #expect(edited.head.seq == 8)
        #expect(edited.events == 25)
    }

    /// The lifecycle sample: both verifiers accept it at the head EXPECTED.md names, and ledger's
    /// views say what EXPECTED.md says (users, sessions, images, the deletions' reasons).
    @Test func theLifecycleSampleAgreesWithExpectedMD() throws {
        let head = try Self.expectedHead(section: "lifecycle/events.jsonl")
        #expect(head.seq == 33)
        let python = try pythonTool("verify_log.py", [Paths.lifecycleLog])
        #expect(python.stdoutLines == ["ok 33 33 \(head.hash)"])
        let cli = try ledger("verify", Paths.lifecycleLog)
        #expect(cli.stdoutLines == ["ok: 33 events, head 33:\(head.hash)"])
        let replay = try ledger("replay", Paths.lifecycleLog, "--json")
        #expect(replay.stdout.contains(#""users":{"pending":0,"active":1,"deleted":2,"disabled":0}"#))
        #expect(replay.stdout.contains(#""sessions":{"active":1,"ended":5,"expired":0}"#))
        #expect(replay.stdout.contains(#""images":{"stored":0,"deleted":1}"#))
        let expected = try readText(Paths.repo("Events/samples/EXPECTED.md"))
        #expect(expected.contains("- users: active 1, pending 0, deleted 2, disabled 0"))
        #expect(expected.contains("- deletions: user-request 1, operator 1"))
        let audit = try ledger("audit", "--data", Paths.repo("Events/samples/lifecycle"), "--json")
        #expect(audit.status == 0)
        #expect(audit.stdout.contains(#""change":"deleted","reason":"user-request"}"#) && audit.stdout.contains(#""change":"deleted","reason":"operator"}"#))
        #expect(audit.stdout.contains(#""change":"email-changed","newEmail":"erin@example.org"}"#))
    }

    // MARK: - Both verifiers on crafted damage

    /// A kind of damage, how to make it on line 3 of a valid 5-line log, and what each verifier says.
    struct Damage: Sendable, CustomTestStringConvertible {
        let name: String
        let kind: ProblemKind
        let python: String
        var testDescription: String { name }

        static let all: [Damage] = [
            Damage(name: "members out of order", kind: .invalidJSON, python: "out of order"),
            Damage(name: "extra member", kind: .invalidJSON, python: "out of order"),
            Damage(name: "seq skips", kind: .seqGap, python: "seq 4, expected 3"),
            Damage(name: "prev wrong", kind: .brokenChain, python: "prev does not match"),
            Damage(name: "id repeated", kind: .invalidData, python: "is a duplicate"),
            Damage(name: "hash wrong", kind: .badHash, python: "hash mismatch"),
            Damage(name: "not JSON", kind: .invalidJSON, python: "not a JSON line"),
            Damage(name: "blank line", kind: .invalidJSON, python: "not a JSON line"),
            Damage(name: "envelope member twice", kind: .invalidJSON, python: "appears twice"),
            Damage(name: "data member twice", kind: .invalidJSON, python: "appears twice"),
            Damage(name: "v unknown", kind: .invalidData, python: "'SignInFailed' v 3 is unknown"),
        ]
    }

    /// Rewrites line 3 of `lines` (valid, hashed) per `damage`, rehashing so that only the intended fault remains.
    static func damage(_ lines: [[UInt8]], _ damage: Damage) throws -> [UInt8] {
        let envelopes = try lines.enumerated().map { n, line in
            try Array(line.dropLast()).withUnsafeBufferPointer { try LineCodec.decode($0, lineNumber: n + 1).0 }
        }
        let e = envelopes[2]
        func rehashed(_ body: String) -> [UInt8] { LineCodec.line(body: Array(body.utf8), hash: SHA256.hex(body)) }
        func body(seq: Int = e.seq, id: String = e.id, v: Int = e.v, prev: String = e.prev) -> String {
            String(decoding: LineCodec.body(seq: seq, id: id, at: e.at, type: e.type, v: v, stream: e.stream, data: e.data, prev: prev), as: UTF8.self)
        }
        var line: [UInt8]
        switch damage.name {
        case "members out of order":
            line = rehashed(body().replacingAll(#"{"seq":3,"id":"\#(e.id)""#, with: #"{"id":"\#(e.id)","seq":3"#))
        case "extra member":
            line = rehashed(body().replacingAll(#","prev":"#, with: #","note":1,"prev":"#))
        case "seq skips": line = rehashed(body(seq: 4))
        case "prev wrong": line = rehashed(body(prev: Fixtures.hex64(1)))
        case "id repeated": line = rehashed(body(id: envelopes[0].id))
        case "v unknown": line = rehashed(body(v: 3))
        case "hash wrong": line = LineCodec.line(body: Array(body().utf8), hash: Fixtures.hex64(2))
        case "not JSON": line = Array("{\"seq\":3,\n".utf8)
        case "envelope member twice": line = rehashed(body().replacingAll(#"{"seq":3,"#, with: #"{"seq":3,"seq":3,"#))
        case "data member twice": line = rehashed(body().replacingAll(#""data":{"#, with: #""data":{"reason":"locked","#))
        default: line = [0x0A]
        }
        var out = lines
        out[2] = line
        return Array(out.joined())
    }

    /// Only a type with personal members has a version 2: a `v` of 2 on any other line, rechained
    /// so that nothing else is wrong, is refused by both verifiers on its line.
    @Test func bothVerifiersRefuseAVersion2LineOfATypeWithoutPersonalMembers() throws {
        try withTempDirectory { dir in
            let memory = InMemoryEventStore(clock: FixedClock(step: 10), random: SeededRandom(seed: 8))
            for n in 1...2 { _ = try memory.append([Fixtures.signIn(n)], to: Fixtures.stream(.signin, n), expected: .noStream) }
            _ = try memory.append([Fixtures.event(.sessionStarted, 3)], to: Fixtures.stream(.session, 3), expected: .noStream)
            var envelopes = try LogRewriting.envelopes(memory.log)
            envelopes[2].v = 2
            let path = "\(dir)/events.jsonl"
            try writeBytes(LogRewriting.chained(envelopes), to: path)
            let report = try LogVerifier.verify(path: path)
            #expect(report.problems.map(\.line) == [3] && report.problems.first?.kind == .invalidData, "\(report.problems)")
            let python = try pythonTool("verify_log.py", [path])
            #expect(python.status == 1 && python.stdoutLines == ["bad line 3: 'SessionStarted' v 2 is unknown"], "\(python)")
            // The same v on a line of a type with personal members is the form verify_log.py accepts
            // (ledger then checks the members are encrypted).
            envelopes[2].v = 1
            envelopes[1].v = 2
            try writeBytes(LogRewriting.chained(envelopes), to: path)
            #expect(try pythonTool("verify_log.py", [path]).status == 0)
            #expect(try LogVerifier.verify(path: path).problems.first?.kind == .invalidData, "plain text in a version 2 line")
        }
    }

    @Test(arguments: Damage.all)
    func bothVerifiersFindTheSameDamage(damage: Damage) throws {
        try withTempDirectory { dir in
            let memory = InMemoryEventStore(clock: FixedClock(step: 10), random: SeededRandom(seed: 8))
            for n in 1...5 { _ = try memory.append([Fixtures.signIn(n)], to: Fixtures.stream(.signin, n), expected: .noStream) }
            let path = "\(dir)/events.jsonl"
            try writeBytes(try Self.damage(splitLines(memory.log), damage), to: path)

            let report = try LogVerifier.verify(path: path)
            #expect(report.problems.first?.line == 3, "\(report.problems)")
            #expect(report.problems.first?.kind == damage.kind, "\(report.problems)")
            let python = try pythonTool("verify_log.py", [path])
            #expect(python.status == 1)
            #expect(python.stdout.hasPrefix("bad line 3: "), "\(python)")
            #expect(python.stdout.contains(damage.python), "\(python)")
        }
    }
}
