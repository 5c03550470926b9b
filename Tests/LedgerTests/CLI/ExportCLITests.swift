import Foundation
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
