import LedgerDomain
import LedgerKit
import Testing

// MARK: - RepeatedIDFinderTests

/// The end-of-read repeat check says "maybe" for every repeated id, wherever it is, and "no" for
/// distinct ids (their 64-bit fingerprints do not collide at these sizes).
struct RepeatedIDFinderTests {
    /// `count` distinct ids from a seeded generator.
    private func ids(_ count: Int, seed: UInt64) -> [UUIDBits] {
        let random = SeededRandom(seed: seed)
        var seen = Set<UUIDBits>()
        var out: [UUIDBits] = []
        while out.count < count {
            let id = UUIDBits(high: random.next(), low: random.next())
            if seen.insert(id).inserted { out.append(id) }
        }
        return out
    }

    private func finder(_ ids: [UUIDBits]) -> RepeatedIDFinder {
        var finder = RepeatedIDFinder()
        finder.reserve(lines: ids.count)
        for id in ids { finder.add(id) }
        return finder
    }

    @Test func distinctIdsNeverRepeat() {
        #expect(!RepeatedIDFinder().mayRepeat())
        for count in [1, 2, 255, 256, 257, 5_000, 200_000] {
            let found = finder(ids(count, seed: UInt64(count)))
            #expect(found.count == count)
            #expect(!found.mayRepeat(), "\(count) distinct ids")
        }
    }

    @Test(arguments: [2, 3, 200, 300, 70_000])
    func aRepeatIsFoundWhereverItIs(_ count: Int) {
        let distinct = ids(count, seed: 7)
        for (from, to) in [(0, count), (count - 1, count), (count / 2, 0), (0, 1)] {
            var withRepeat = distinct
            withRepeat.insert(distinct[from], at: to)
            #expect(finder(withRepeat).mayRepeat(), "id \(from) again at \(to) of \(count)")
        }
    }

    /// Ids that differ in the same high bits of both halves must not share a fingerprint whatever the
    /// process's seed (else a log could make every read happen twice).
    @Test func idsFlippedInBothHalvesDoNotShareAFingerprint() {
        for id in ids(2_000, seed: 5) {
            for bit in [63, 62, 61, 32, 31, 0] as [UInt64] {
                let flipped = UUIDBits(high: id.high ^ (1 << bit), low: id.low ^ (1 << bit))
                #expect(id.seededHash != flipped.seededHash, "bit \(bit) of \(id.uuidString)")
            }
        }
        let pair = [UUIDBits(uuid: "2454e22f-e051-4467-a281-09fc1de4cf38")!, UUIDBits(uuid: "a454e22f-e051-4467-2281-09fc1de4cf38")!]
        #expect(!finder(pair).mayRepeat())
    }

    /// `newMayRepeat` checks the ids added since its last call against one another and every one
    /// before them (export asks it before writing each piece of lines).
    @Test func newMayRepeatFindsARepeatInItsBatchOrAnEarlierOne() {
        let some = ids(3_001, seed: 11)
        for (at, from) in [(2_500, 100), (2_500, 2_400), (1, 0), (-1, -1)] {
            var finder = RepeatedIDFinder()
            finder.reserve(lines: 16)  // the set grows batch after batch
            var withRepeat = Array(some.prefix(3_000))
            if at >= 0 { withRepeat[at] = some[from] }
            var answers: [Bool] = []
            for (n, id) in withRepeat.enumerated() {
                finder.add(id)
                if (n + 1) % 1_000 == 0 { answers.append(finder.newMayRepeat()) }
            }
            if at >= 0 {
                // After a maybe, later answers mean nothing.
                #expect(answers.prefix(at / 1_000 + 1) == (0...at / 1_000).map { $0 == at / 1_000 }[...], "id \(from) again at \(at)")
            } else {
                #expect(answers == [false, false, false])
                #expect(finder.mayHold(some[2_999]) && finder.mayHold(some[0]) && !finder.mayHold(some[3_000]))
            }
        }
    }

    @Test func theZeroIdAndManyRepeatsAreFound() {
        #expect(finder([.zero, .zero]).mayRepeat())
        #expect(!finder([.zero, UUIDBits(high: 0, low: 1)]).mayRepeat())
        let some = ids(1_000, seed: 3)
        #expect(finder(some + some).mayRepeat())
    }

    /// The check done in place answers as on a copy and keeps every fingerprint (a checkpoint saved
    /// after it carries them all), with and without a checkpoint's ids before them.
    @Test(arguments: [1, 2, 257, 5_000, 70_000])
    func theCheckInPlaceKeepsEveryFingerprint(_ count: Int) {
        let distinct = ids(count, seed: 11)
        var plain = finder(distinct)
        let before = plain.all()
        #expect(before != nil)
        let plainRepeats = plain.checkRepeats()
        #expect(!plainRepeats)
        #expect(plain.all() == before && plain.count == count)
        var repeated = finder(distinct + [distinct[count / 2]])
        let repeats = repeated.checkRepeats()
        #expect(repeats)
        // After a checkpoint: the later ids are also looked up among its fingerprints.
        let prior = finder(ids(3_000, seed: 12)).all()!
        var after = RepeatedIDFinder(after: prior)
        for id in distinct { after.add(id) }
        let merged = after.all()
        let afterRepeats = after.checkRepeats()
        #expect(!afterRepeats && after.all() == merged && merged?.count == count + 3_000)
        var again = RepeatedIDFinder(after: finder(distinct).all()!)
        again.add(distinct[count - 1])
        let againRepeats = again.checkRepeats()
        #expect(againRepeats)
    }
}

// MARK: - DeferredIDCheckTests

/// Replay checks ids once at the end (`ChainChecker.deferIDChecks`) and reads again the strict way
/// on a maybe, so a repeated id is still reported at its line, with the message `verify` gives.
struct DeferredIDCheckTests {
    /// The lines of a 3,000-line log as ledger writes them in a new folder (data version 2).
    private func makeLines(_ dir: String) throws -> [[UInt8]] { splitLines(try Fixtures.mixedLog(in: dir, seed: 9)) }

    /// `lines` with line `at` (1-based) given the id of line `from`, every hash and `prev` after it
    /// recomputed: the repeated id is the only damage.
    private func repeatingID(_ lines: [[UInt8]], at: Int, from: Int) throws -> [UInt8] {
        var envelopes = try LogRewriting.envelopes(lines.flatMap { $0 })
        envelopes[at - 1].id = envelopes[from - 1].id
        return LogRewriting.chained(envelopes)
    }

    private func load(_ path: String, asOf: AsOf? = nil) throws -> LoadedViews {
        try ViewLoader.load(path: path, asOf: asOf, now: Timestamp(millis: 0))
    }

    @Test(arguments: [(2, 1), (1_500, 1_499), (2_999, 3), (3_000, 1_024)])
    func aRepeatedIdIsDamageAtItsLine(_ at: Int, _ from: Int) throws {
        try withTempDirectory { dir in
            let path = "\(dir)/repeat.jsonl"
            try writeBytes(try repeatingID(try makeLines(dir), at: at, from: from), to: path)
            let verified = try LogVerifier.verify(path: path)
            #expect(verified.problems.map(\.line) == [at])
            #expect(verified.problems.first?.message.contains("was already used") == true)
            do {
                _ = try load(path)
                Issue.record("a log with line \(at) repeating line \(from)'s id loaded")
            } catch let error as StoreError {
                #expect(error.code == .damaged)
                #expect(error.problem?.line == at)
                #expect(error.problem?.description == verified.problems.first?.description)
            }
            // Up to the line before it (the line after the as-of point is checked too), the log is sound.
            if at > 2 {
                let before = try load(path, asOf: .seq(at - 2))
                #expect(before.views.events == at - 2)
                #expect(before.views.head.seq == at - 2)
            }
        }
    }

    @Test func aSoundLogLoadsAsTheStrictFoldDoes() throws {
        try withTempDirectory { dir in
            let lines = try makeLines(dir)
            let path = "\(dir)/sound.jsonl"
            try writeBytes(lines.flatMap { $0 }, to: path)
            let loaded = try load(path)
            var expected = LedgerViews()
            var checker = ChainChecker(opener: KeyRing(directory: dir))  // the folder's keys, as the loader reads with
            for (n, line) in lines.enumerated() {
                try Array(line.dropLast()).withUnsafeBufferPointer { body in
                    let (envelope, bodyLength) = try LineCodec.decode(body, lineNumber: n + 1)
                    let hash = SHA256.hex(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: body[0..<bodyLength])))
                    expected.apply(try checker.check(envelope, bodyHash: hash))
                }
            }
            #expect(loaded.views == expected)
            #expect(loaded.views.events == 3_000)
        }
    }

    @Test func theCheckerAcceptsARepeatInPlaceOnlyWhenDeferring() throws {
        // Lines of data version 1: each is read in place.
        let bytes = try repeatingID(splitLines(try Fixtures.mixedVersion1Log(seed: 9)), at: 10, from: 4)
        let lines = splitLines(bytes)
        for deferring in [false, true] {
            var checker = ChainChecker()
            if deferring { checker.deferIDChecks(lines: lines.count) }
            var accepted = 0
            for line in lines.prefix(10) {
                let facts = try #require(Array(line.dropLast()).withUnsafeBufferPointer { LineCodec.readInPlace($0) })
                if checker.check(facts, bodyHash: facts.hash) { accepted += 1 }
            }
            #expect(accepted == (deferring ? 10 : 9))
            let mayRepeat = checker.idsMayRepeat()
            #expect(mayRepeat == deferring)
        }
    }
}
