@testable import LedgerDomain
import Testing

// MARK: - StringWordScanTests

/// The eight-bytes-at-a-time test of the in-place string reader flags a word exactly when one of its
/// bytes is a quote, a backslash, a control character or not ASCII.
struct StringWordScanTests {
    /// The byte-by-byte rule the word test must agree with.
    private func needsLook(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80
    }

    @Test func everyByteValueAtEveryPositionAmongPlainBytes() {
        for position in 0..<8 {
            for value in 0...255 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[position] = UInt8(value)
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                #expect(MemberSlots.needsLook(word) == needsLook(UInt8(value)), "byte \(value) at \(position)")
            }
        }
    }

    @Test func randomWordsAgreeWithTheByteRule() {
        let random = SeededRandom(seed: 77)
        for _ in 0..<200_000 {
            // Mostly printable bytes, so that words with exactly one special byte are common.
            let bytes = (0..<8).map { _ in random.next(10) == 0 ? UInt8(random.next(256)) : UInt8(0x20 + random.next(95)) }
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            #expect(MemberSlots.needsLook(word) == bytes.contains(where: needsLook))
        }
    }
}
