import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - ErasureLineTests

/// Finding a line by its seq in a log file (`ErasureLine.lineStart`), as a recorded erasure is
/// looked up before anything is done because of it: every seq of files of random line lengths (a
/// line longer than a probe included) is found where it starts; a seq past the end, or a file
/// whose lines do not start with their seq, gives nothing, without looping.
@Suite struct ErasureLineTests {
    /// `count` lines `{"seq":N,…}` of random lengths (some over 4 KiB), and where each starts.
    private static func lines(_ count: Int, seed: UInt64) -> (bytes: [UInt8], starts: [Int]) {
        let random = SeededRandom(seed: seed)
        var bytes: [UInt8] = [], starts: [Int] = []
        for seq in 1...count {
            starts.append(bytes.count)
            let pad = Int(random.bytes(2).withUnsafeBytes { $0.load(as: UInt16.self) }) % (seq % 97 == 0 ? 9000 : 300)
            bytes += Array(#"{"seq":\#(seq),"pad":""#.utf8) + [UInt8](repeating: 0x61, count: pad) + Array("\"}\n".utf8)
        }
        return (bytes, starts)
    }

    @Test(arguments: [1, 2, 3, 500] as [Int])
    func everySeqIsFoundWhereItsLineStarts(_ count: Int) throws {
        try withTempDirectory { dir in
            let (bytes, starts) = Self.lines(count, seed: UInt64(count))
            try writeBytes(bytes, to: dir + "/log")
            let log = try FileDescriptor(path: dir + "/log", flags: O_RDONLY)
            for seq in 1...count {
                #expect(ErasureLine.lineStart(seq: seq, in: log, size: bytes.count) == starts[seq - 1], "seq \(seq)")
            }
            #expect(ErasureLine.lineStart(seq: count + 1, in: log, size: bytes.count) == nil)
            #expect(ErasureLine.lineStart(seq: 0, in: log, size: bytes.count) == nil)
        }
    }

    @Test func aLogSpelledOtherwiseIsNotSearched() throws {
        try withTempDirectory { dir in
            let bytes = Array(#"{"id":"x","seq":1}"#.utf8) + [0x0A] + Array(#"{"seq":2}"#.utf8) + [0x0A]
            try writeBytes(bytes, to: dir + "/log")
            let log = try FileDescriptor(path: dir + "/log", flags: O_RDONLY)
            #expect(ErasureLine.lineStart(seq: 2, in: log, size: bytes.count) == nil)
            #expect(ErasureLine.holds(RecordedErasure(seq: 2, subject: .account(UUIDBits(high: 1, low: 2))), in: log, size: bytes.count) == false)
        }
    }
}
