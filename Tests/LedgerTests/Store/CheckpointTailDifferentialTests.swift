@testable import LedgerCLI
@testable import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - CheckpointTailDifferentialTests

/// A read from a checkpoint (the views of lines 0..<k written, read back, then the tail k..<n folded
/// onto them) gives exactly the views of a fold of 0..<n, for random histories cut anywhere.
@Suite struct CheckpointTailDifferentialTests {
    /// For 30 seeds, cuts at 0, at a random line and at the end: every view alike, byte for byte.
    @Test(arguments: 1...30)
    func checkpointPlusTailIsTheWholeFold(seed: Int) throws {
        let events = try Self.history(seed: UInt64(seed))
        let random = SeededRandom(seed: UInt64(seed) &* 7919)
        // Before the first line, at a random line, after the last.
        let cuts = [0, 1 + random.next(events.count - 1), events.count]
        var whole = LedgerViews(), atCuts: [Int: LedgerViews] = [:]
        for (k, event) in events.enumerated() {
            if cuts.contains(k) { atCuts[k] = whole }
            whole.apply(event, hash: Self.hash(event.seq))
        }
        atCuts[events.count] = whole
        #expect(whole.invariantViolations().isEmpty, "seed \(seed): the whole fold's own invariants")
        for k in cuts {
            var views = try Self.roundTrip(try #require(atCuts[k]))
            for event in events[k...] { views.apply(event, hash: Self.hash(event.seq)) }
            let asOf = events.last!.at
            for difference in Self.differences(views, whole, asOf: asOf) {
                Issue.record("seed \(seed), cut at \(k) of \(events.count): \(difference)")
            }
        }
        // The history reached what the test is about.
        #expect(whole.registrations.rows.contains { $0.failure != nil } && whole.registrations.rows.contains { !$0.compensations.isEmpty },
                "seed \(seed): failed and compensated registrations")
        #expect(whole.images.count > 0 && whole.sessions.count > 0 && whole.signIns.count > 0, "seed \(seed)")
        #expect(whole.accountChanges.changes.contains { $0.change == .personalDataErased }, "seed \(seed): an erasure")
    }

    /// The history of `seed`: a generated log's registrations (some failed or compensated), images,
    /// sessions and refused sign-ins, interleaved at random with `UserHistory`'s account lifecycle
    /// (email changes in two normal forms, verifications, disables, deletions, erasures), renumbered.
    static func history(seed: UInt64) throws -> [ViewEvent] {
        let generated = try withTempDirectory("checkpoint-tail") { folder in
            try decodedEvents(ofLog: try GeneratedLog.make(in: folder, events: 400, seed: Int(seed))).map { ViewEvent($0) }
        }
        var lifecycle = UserHistory.events(seed: seed, count: 200, start: generated[0].at, traffic: true)[...]
        var log = generated[...]
        let random = SeededRandom(seed: seed ^ 0x1E4F)  // not the lifecycle's sequence
        var events: [ViewEvent] = []
        while !log.isEmpty || !lifecycle.isEmpty {
            // Each next event from either side, in proportion to what is left of it.
            var event = random.next(log.count + lifecycle.count) < log.count ? log.removeFirst() : lifecycle.removeFirst()
            event.seq = events.count + 1
            events.append(event)
        }
        return events
    }

    /// A line hash for `seq` (the views keep the last one as the head).
    private static func hash(_ seq: Int) -> Digest32 { Digest32(a: UInt64(seq), b: 0xC4EC, c: 0, d: 0) }

    /// `views` written as a checkpoint, with one made-up id fingerprint per event, and read back.
    private static func roundTrip(_ views: LedgerViews) throws -> LedgerViews {
        var bytes: [UInt8] = []
        CheckpointWriter.write(views, ids: IDFingerprints(seed: .zero, sorted: (0..<UInt64(views.events)).map { $0 + 1 })!) {
            bytes.append(contentsOf: $0)
        }
        var offset = 0
        return try CheckpointReader.read { out in
            let n = min(out.count, bytes.count - offset)
            out.copyBytes(from: bytes[offset..<(offset + n)])
            offset += n
            return n
        }.views
    }

    // MARK: Comparing

    /// How `got` differs from `want`, in words: the first differing row of each view (texts byte for
    /// byte), the rule breaks, the head, the `replay --json` digests and the sign-in rows' JSON, and
    /// anything else the views' `==` sees; empty when alike.
    static func differences(_ got: LedgerViews, _ want: LedgerViews, asOf: Timestamp) -> [String] {
        let byJSON = { (json: JSONValue) in JSONWriter.bytes(json) }
        let digests = { (views: LedgerViews) in ViewDigest.digests(LoadedViews(views: views, asOfTime: asOf)).map { "\($0) \($1)" } }
        let signInJSON = { (views: LedgerViews) in
            var bytes: [UInt8] = []
            ViewRowsWriter.signInFailures(views.signIns, at: asOf) { bytes.append(contentsOf: $0) }
            return bytes
        }
        let rows = [
            firstDifference("users", got.users.rows, want.users.rows) { Spelled($0) == Spelled($1) },
            firstDifference("sessions", got.sessions.rows, want.sessions.rows) { $0 == $1 && byJSON($0.json(at: asOf)) == byJSON($1.json(at: asOf)) },
            firstDifference("images", got.images.rows, want.images.rows) { $0 == $1 },
            firstDifference("registrations", got.registrations.rows, want.registrations.rows) { $0 == $1 && byJSON($0.json) == byJSON($1.json) },
            firstDifference("sign-ins", got.signIns.rows, want.signIns.rows) { $0 == $1 && $0.email.utf8.elementsEqual($1.email.utf8) },
            firstDifference("account changes", got.accountChanges.changes, want.accountChanges.changes) { $0 == $1 && byJSON($0.json) == byJSON($1.json) },
            firstDifference("revoked sessions", got.accountChanges.revoked, want.accountChanges.revoked) { $0 == $1 },
            firstDifference("rule breaks", got.ruleBreaks, want.ruleBreaks) { $0 == $1 },
        ]
        let wholes: [String?] = [
            got.head == want.head && got.events == want.events ? nil : "head \(got.head) after \(got.events) events, not \(want.head) after \(want.events)",
            digests(got) == digests(want) ? nil : "digests \(digests(got)), not \(digests(want))",
            signInJSON(got) == signInJSON(want) ? nil : "the sign-in rows' JSON differs",
            got == want ? nil : "the views differ by `==` (rows, an index, or the moved-away emails)",
            got.invariantViolations().isEmpty ? nil : "invariants broken: \(got.invariantViolations().prefix(3))",
        ]
        return (rows + wholes).compactMap { $0 }
    }

    /// The first row of `view` where `got` and `want` differ (by `same`), in words; nil when alike.
    private static func firstDifference<Row>(_ view: String, _ got: [Row], _ want: [Row], same: (Row, Row) -> Bool) -> String? {
        for i in 0..<max(got.count, want.count) {
            let (g, w) = (i < got.count ? got[i] : nil, i < want.count ? want[i] : nil)
            if let g, let w, same(g, w) { continue }
            let show = { (row: Row?) in row.map { String(describing: $0) } ?? "none" }
            return "\(view) row \(i): checkpoint plus tail \(show(g)), whole fold \(show(w))"
        }
        return nil
    }
}
