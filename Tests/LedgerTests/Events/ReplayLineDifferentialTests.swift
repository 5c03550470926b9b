import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - ReplayLineDifferentialTests

/// `LineCodec.readInPlace` (replay's in-place reader) against the full path (`decodeGeneric`, then
/// `ChainChecker.prepare`, then `ViewEvent(_:)`): whenever it gives facts, the full path accepts the
/// line and gives the same event, id, `prev`, `hash` and body length; whenever the full path refuses a
/// line, it gives none. Checked on real lines and on thousands of envelope and payload mutations.
struct ReplayLineDifferentialTests {
    /// The full path's reading of `line`: the facts it implies, or nil when it refuses the line.
    private func fullPath(_ line: UnsafeBufferPointer<UInt8>, opener: any PersonalDataOpener) -> ReplayLine? {
        guard let (envelope, bodyLength) = try? LineCodec.decodeGeneric(line, lineNumber: 1),
              case .event(let event) = ChainChecker.prepare(envelope, opener: opener),
              let id = UUIDBits(uuid: envelope.id), let prev = Digest32(hex: envelope.prev), let hash = Digest32(hex: envelope.hash)
        else { return nil }
        return ReplayLine(event: ViewEvent(RecordedEvent(envelope: envelope, event: event)), id: id, prev: prev, hash: hash, bodyLength: bodyLength,
                          batch: envelope.batchMark)
    }

    /// Compares both readings of `line`; returns whether the in-place reader gave facts.
    @discardableResult
    private func agree(_ line: [UInt8], opener: any PersonalDataOpener = SealedOpener(), sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        line.withUnsafeBufferPointer { buffer in
            let fast = LineCodec.readInPlace(buffer, opener: opener)
            guard let fast else { return false }
            let full = fullPath(buffer, opener: opener)
            #expect(full != nil, "facts from a line the full path refuses: \(String(decoding: line, as: UTF8.self))", sourceLocation: sourceLocation)
            if let full {
                #expect(fast.event == full.event, "\(String(decoding: line, as: UTF8.self))", sourceLocation: sourceLocation)
                #expect(fast.id == full.id && fast.prev == full.prev && fast.hash == full.hash && fast.bodyLength == full.bodyLength,
                        sourceLocation: sourceLocation)
                #expect(fast.batch == full.batch, "\(String(decoding: line, as: UTF8.self))", sourceLocation: sourceLocation)
            }
            return true
        }
    }

    /// Respellings of the `data` members: order, extra members, kinds, escapes, casing, limits.
    private func payloadMutations(of line: [UInt8]) -> [[UInt8]] {
        let text = String(decoding: line, as: UTF8.self)
        guard let open = text.range(of: #","data":{"#), let close = text.range(of: #"},"prev":""#) else { return [] }
        let inner = String(text[open.upperBound..<close.lowerBound])
        func with(_ data: String) -> [UInt8] { Array((String(text[..<open.upperBound]) + data + String(text[close.lowerBound...])).utf8) }
        var members = splitMembers(inner)
        var out: [[UInt8]] = [with(members.reversed().joined(separator: ",")), with(inner + #","extra":1"#),
                              with(#""extra":"x","# + inner), with(""), with(inner + "," + (members.first ?? ""))]
        for (i, member) in members.enumerated() {
            guard let colon = member.firstIndex(of: ":") else { continue }
            let name = member[..<colon], value = String(member[member.index(after: colon)...])
            var variants = ["null", "true", "false", "0", "-1", "1.5", "1e2", #""""#, #""X""#, "{}", "[]", #""\u0041""#,
                            " " + value, value + " ", #""é""#]
            if value.hasPrefix("\"") {
                let body = value.dropFirst().dropLast()
                variants += ["\"" + body.uppercased() + "\"", "\"" + body + "x\"", "\"" + body.dropLast() + "\"",
                             "\"\\u00" + String(format: "%02x", body.utf8.first ?? 0x61) + body.dropFirst() + "\""]
            }
            if value.first?.isNumber == true { variants += ["0" + value, value + ".0", "123456789012345678901"] }
            for variant in variants {
                var copy = members
                copy[i] = name + ":" + variant
                out.append(with(copy.joined(separator: ",")))
            }
            var without = members
            without.remove(at: i)
            out.append(with(without.joined(separator: ",")))
        }
        members.append(#""uid":"00000000-0000-4000-8000-000000000000""#)
        out.append(with(members.joined(separator: ",")))
        return out
    }

    /// Top-level members of a flat object's inside (values without nested commas or escaped quotes).
    private func splitMembers(_ inner: String) -> [String] {
        var out: [String] = [], current = "", inString = false, escaped = false
        for ch in inner {
            if inString {
                if escaped { escaped = false } else if ch == "\\" { escaped = true } else if ch == "\"" { inString = false }
            } else if ch == "\"" {
                inString = true
            } else if ch == "," {
                out.append(current); current = ""; continue
            }
            current.append(ch)
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    @Test func everyRealLineGivesFactsEqualToTheFullPath() throws {
        for line in try LineMutations.realLines() {
            #expect(agree(line), "no facts for \(String(decoding: line, as: UTF8.self))")
        }
    }

    /// A data version 2 line is read in place too, its members opened as the full path opens them:
    /// with the folder's keys (text), without them (erased), after an erasure (erased), and every
    /// mutation of such a line agrees or gives up.
    @Test func version2LinesAreReadInPlaceOpenedAsTheFullPathOpensThem() throws {
        try withTempDirectory { dir in
            let store = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 9))
            for (n, type) in EventType.allCases.enumerated() {
                _ = try store.append([Fixtures.event(type, n)], to: Fixtures.stream(for: type, n), expected: .noStream)
                _ = try store.append([Fixtures.event(type, n + 50)], to: Fixtures.stream(for: type, n + 50), expected: .noStream)
            }
            try store.destroyKeys(of: [.account(UUIDBits(uuid: Fixtures.uuid(1001))!)])  // AccountCreated 1's, among others
            let lines = splitLines(try readBytes(store.logPath)).map { Array($0.dropLast()) }
            let sealed = lines.filter { String(decoding: $0, as: UTF8.self).contains(#""v":2"#) }
            #expect(sealed.count >= 9)
            let keys = KeyRing(directory: dir)
            var read = 0, opened = 0
            for line in sealed {
                #expect(agree(line, opener: keys), "with keys: \(String(decoding: line, as: UTF8.self))")
                #expect(agree(line), "without keys")
                if let facts = line.withUnsafeBufferPointer({ LineCodec.readInPlace($0, opener: keys) }) {
                    read += 1
                    if case .accountCreated(_, let email, _) = facts.event.fact, !email.isEmpty { opened += 1 }
                }
                for mutated in LineMutations.mutations(of: line, random: SeededRandom(seed: 11)) { agree(mutated, opener: keys) }
                for mutated in payloadMutations(of: line) { agree(mutated, opener: keys) }
            }
            #expect(read == sealed.count && opened >= 1, "read \(read) of \(sealed.count), \(opened) AccountCreated opened")
        }
    }

    /// The lines of a batch are read in place with their `batch`, and its mutations agree with the full path.
    @Test func batchMembersAreReadInPlace() throws {
        let marked = try LineMutations.realLines().filter { String(decoding: $0, as: UTF8.self).contains(#","batch":["#) }
        #expect(marked.count == 3)
        let marks = marked.compactMap { line in line.withUnsafeBufferPointer { LineCodec.readInPlace($0)?.batch } }
        #expect(marks == BatchMark.marks(count: 3))
        var facts = 0
        for line in marked {
            for mutated in LineMutations.mutations(of: line, random: SeededRandom(seed: 7)) where agree(mutated) { facts += 1 }
        }
        #expect(facts > 0)
    }

    @Test func payloadMutationsAgree() throws {
        var checked = 0, facts = 0
        for line in try LineMutations.realLines() {
            for mutated in payloadMutations(of: line) {
                checked += 1
                if agree(mutated) { facts += 1 }
            }
        }
        #expect(checked > 1_000)
        #expect(facts > 100 && facts < checked)  // both verdicts were exercised
    }

    @Test(arguments: [UInt64(4), 5, 6])
    func envelopeMutationsAgree(seed: UInt64) throws {
        let random = SeededRandom(seed: seed)
        var checked = 0, facts = 0
        for line in try LineMutations.realLines() {
            for mutated in LineMutations.mutations(of: line, random: random) {
                checked += 1
                if agree(mutated) { facts += 1 }
            }
        }
        #expect(checked > 1_000)
        #expect(facts > 0 && facts < checked)
    }
}
