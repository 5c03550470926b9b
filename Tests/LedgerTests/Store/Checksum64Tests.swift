import Glibc
@testable import LedgerKit
import Testing

/// `Checksum64.Running`: the checksum of bytes given in pieces is the checksum of the whole, so the
/// index checkpoint a read copies a piece at a time is sealed as one written from its mapping.
@Suite struct Checksum64Tests {
    @Test(arguments: [0, 1, 31, 32, 33, 4096, 10_007])
    func piecesGiveTheChecksumOfTheWhole(_ count: Int) {
        var state: UInt64 = 0x5EED &+ UInt64(count)
        let bytes = (0..<count).map { _ -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        let whole = bytes.withUnsafeBytes { Checksum64.of($0) }
        for piece in [32, 64, 4096] {
            var running = Checksum64.Running()
            bytes.withUnsafeBytes { raw in
                var at = 0
                while at < raw.count {
                    let end = min(at + piece, raw.count)
                    let taken = running.update(UnsafeRawBufferPointer(rebasing: raw[at..<end]))
                    #expect(taken)
                    at = end
                }
            }
            #expect(running.value == whole, "pieces of \(piece)")
        }
        // Bytes that changed change the checksum.
        if count > 0 {
            var other = bytes
            other[count / 2] ^= 1
            #expect(other.withUnsafeBytes { Checksum64.of($0) } != whole)
        }
    }

    @Test func aPieceAfterAShortOneIsRefused() {
        var running = Checksum64.Running()
        let bytes = [UInt8](repeating: 7, count: 40)
        bytes.withUnsafeBytes { raw in
            let first = running.update(UnsafeRawBufferPointer(rebasing: raw[0..<20]))
            let second = running.update(UnsafeRawBufferPointer(rebasing: raw[20...]))
            #expect(first && !second)
        }
    }

    /// `SlotsChecksum` reads a file's range in pieces (4 MiB) and gives the checksum of the range,
    /// and nothing for a range the file does not hold whole.
    @Test(arguments: [0, 100, (4 << 20) - 32, 4 << 20, (9 << 20) + 96])
    func aFilesRangeIsSummedAsAWhole(_ count: Int) throws {
        try withTempDirectory { dir in
            var state: UInt64 = 0xC0FFEE &+ UInt64(count)
            let bytes = (0..<(count + 4_133)).map { _ -> UInt8 in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(truncatingIfNeeded: state >> 33)
            }
            let path = dir + "/table"
            try writeBytes(bytes, to: path)
            let file = try FileDescriptor(path: path, flags: O_RDONLY)
            let start = 4_101
            let whole = bytes.withUnsafeBytes { Checksum64.of(UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)])) }
            let sum = SlotsChecksum(source: file.fd, start: start, count: count)
            sum.run()
            #expect(sum.value == whole)
            let short = SlotsChecksum(source: file.fd, start: start + 33, count: count)
            short.run()
            #expect(count == 0 || short.value == nil, "a range past the file's end")
        }
    }
}
