import Foundation
import LedgerDomain
import LedgerKit
import Testing

/// `ledger export` of the file store, end to end through the built `ledger`: the log's verified
/// lines byte for byte, in pieces larger than one write, up to damage or a torn tail.
@Suite struct ExportCLITests {
    /// A data folder holding a generated log of 4,000 events (about 2 MB: several export pieces).
    private func withGeneratedLog(_ body: (LedgerDir, [UInt8]) throws -> Void) throws {
        try withLedgerDir { dir in
            let log = try GeneratedLog.make(in: dir.path, events: 4000, seed: 41)
            #expect(rename(log, dir.logPath) == 0)
            let bytes = try dir.logBytes()
            #expect(bytes.count > 1 << 20)
            try body(dir, bytes)
        }
    }

    @Test func anIntactLogIsWrittenByteForByte() throws {
        try withGeneratedLog { dir, bytes in
            let exported = try dir.run(["export"])
            #expect(exported.status == 0 && exported.stderr.isEmpty, "\(exported.stderr)")
            #expect(Array(exported.stdout.utf8) == bytes)
        }
    }

    @Test func aDamagedLineStopsTheExportAfterTheLinesBeforeIt() throws {
        try withGeneratedLog { dir, _ in
            try damageLine(dir.logPath, line: 3000)  // past the first piece
            let lines = splitLines(try dir.logBytes())
            let exported = try dir.run(["export"])
            #expect(exported.status == 1)
            #expect(Array(exported.stdout.utf8) == lines[0..<3000].flatMap { $0 })
            #expect(exported.stderr.contains("line 3001") && exported.stderr.contains("stopped there"), "\(exported.stderr)")
        }
    }

    /// `bytes` rewritten with line `at` (1-based) given the id of line `from`, every hash and `prev`
    /// recomputed: the repeated id is the only damage.
    private func repeatingID(_ bytes: [UInt8], at: Int, from: Int) throws -> [UInt8] {
        var envelopes = try LogRewriting.envelopes(bytes)
        envelopes[at - 1].id = envelopes[from - 1].id
        return LogRewriting.chained(envelopes)
    }

    /// Ids are checked a piece at a time before it is written: a repeat in a later piece of an id
    /// of an earlier one, one within the second piece and one within the first all stop the export
    /// after the line before it, with the error of the per-line check.
    @Test(arguments: [(3_000, 10), (2_600, 2_500), (2, 1)])
    func aRepeatedIdStopsTheExportAfterTheLinesBeforeIt(_ at: Int, _ from: Int) throws {
        try withGeneratedLog { dir, bytes in
            try writeBytes(try repeatingID(bytes, at: at, from: from), to: dir.logPath)
            let lines = splitLines(try dir.logBytes())
            let end = { (line: Int) in lines[0..<line].reduce(0) { $0 + $1.count } }
            if at == 3_000 { #expect(end(from) < 1 << 20 && end(at - 1) > 1 << 20) }  // in different pieces
            if at == 2_600 { #expect(end(from - 1) > (1 << 20) + 4096 && end(at) < 2 << 20) }  // both in the second
            let exported = try dir.run(["export"])
            #expect(exported.status == 1)
            let before = Array(exported.stdout.utf8) == lines[0..<(at - 1)].flatMap { $0 }  // a Bool: no diff of 2 MB on failure
            #expect(before, "\(exported.stdout.utf8.count) bytes written")
            #expect(exported.stderr.contains("line \(at)") && exported.stderr.contains("was already used")
                    && exported.stderr.contains("stopped there"), "\(exported.stderr)")
        }
    }

    /// Over random places, up to three lines given an earlier line's id (or none): export writes
    /// exactly the lines before the first repeat a set of every id finds, `verify` names that line
    /// first, and both fail exactly when there is one. Export's set of fingerprints and its pieces
    /// decide nothing a plain check of the ids would not.
    @Test(arguments: 0..<6)
    func exportAndVerifyStopWhereASetOfTheIdsFindsTheFirstRepeat(seed: Int) throws {
        try withGeneratedLog { dir, bytes in
            let random = SeededRandom(seed: UInt64(seed) &+ 101)
            var envelopes = try LogRewriting.envelopes(bytes)
            for _ in 0..<random.next(4) {
                let at = 1 + random.next(envelopes.count - 1)
                envelopes[at].id = envelopes[random.next(at)].id
            }
            try writeBytes(LogRewriting.chained(envelopes), to: dir.logPath)
            var seen: Set<String> = []
            let firstRepeat = envelopes.firstIndex { !seen.insert($0.id).inserted }.map { $0 + 1 }
            let lines = splitLines(try dir.logBytes())
            let verified = try dir.run(["verify", "--json"])
            let problems = try parseObject(verified.stdout)["problems"] as? [[String: Any]] ?? []
            #expect(problems.compactMap { $0["line"] as? Int }.min() == firstRepeat, "seed \(seed): \(verified.stdout.prefix(400))")
            let exported = try dir.run(["export"])
            #expect(exported.status == (firstRepeat == nil ? 0 : 1) && verified.status == exported.status, "seed \(seed): \(exported.stderr)")
            let written = Array(exported.stdout.utf8) == lines[0..<((firstRepeat ?? lines.count + 1) - 1)].flatMap { $0 }  // a Bool: no 2 MB diff
            #expect(written, "seed \(seed): \(exported.stdout.utf8.count) bytes written, first repeat at line \(firstRepeat.map(String.init) ?? "none")")
        }
    }

    /// A torn last line that is a whole event but repeats an id is an incomplete write, as the
    /// per-line check says, not "a whole event" (the next writer would not keep it).
    @Test func aTornTailRepeatingAnIdIsAnIncompleteWrite() throws {
        try withGeneratedLog { dir, bytes in
            let envelopes = try LogRewriting.envelopes(bytes)
            for repeating in [false, true] {
                var next = envelopes[envelopes.count - 1]
                next.seq += 1
                next.id = repeating ? envelopes[4].id : "7d0c5a4e-1b2c-4d3e-8f40-5a6b7c8d9e0f"
                let log = LogRewriting.chained(envelopes + [next])
                try writeBytes(Array(log.dropLast()), to: dir.logPath)
                let exported = try dir.run(["export"])
                #expect(exported.status == 0)
                let whole = Array(exported.stdout.utf8) == bytes  // a Bool: no diff of 2 MB on failure
                #expect(whole, "\(exported.stdout.utf8.count) bytes written")
                let said = repeating ? "an incomplete write" : "a whole event without its final newline"
                #expect(exported.stderr.contains(said) && exported.stderr.contains("not exported"), "\(exported.stderr)")
            }
        }
    }

    @Test func aTornTailIsLeftOutWithAWarning() throws {
        try withGeneratedLog { dir, bytes in
            try writeBytes(bytes + Array(#"{"seq":4001,"id""#.utf8), to: dir.logPath)
            let exported = try dir.run(["export"])
            #expect(exported.status == 0)
            #expect(Array(exported.stdout.utf8) == bytes)
            #expect(exported.stderr.contains("not exported"), "\(exported.stderr)")
        }
    }

    @Test func noLogIsAnEnvironmentError() throws {
        try withLedgerDir { dir in
            let exported = try dir.run(["export"])
            #expect(exported.status == 3 && exported.stdout.isEmpty)
            #expect(exported.stderr.contains("no log at \(dir.logPath)"), "\(exported.stderr)")
        }
    }
}
