import LedgerDomain
import Testing

// MARK: - HexDigitsTests

/// The word-at-a-time hex readers behind `UUIDBits(uuidBytes:)` and `Digest32(hexBytes:)`, and the
/// writer behind `uuidString` and `hex`, against byte-by-byte references: every byte value at every
/// position, every nibble at every position, and random texts.
struct HexDigitsTests {
    /// The reference: lowercase hex digits only, most significant first.
    private func reference(_ bytes: [UInt8]) -> UInt64? {
        var value: UInt64 = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt64(byte - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        return value
    }

    private func hex8(_ bytes: [UInt8]) -> UInt64? {
        var bad = false
        let value = bytes.withUnsafeBufferPointer { HexDigits.hex8($0.baseAddress!, &bad) }
        return bad ? nil : value
    }

    private func hex4(_ bytes: [UInt8]) -> UInt64? {
        var bad = false
        let value = bytes.withUnsafeBufferPointer { HexDigits.hex4($0.baseAddress!, &bad) }
        return bad ? nil : value
    }

    @Test func everyByteAtEveryPosition() {
        let base = Array("9a0fc3e7".utf8)
        for position in 0..<8 {
            for byte in 0...255 {
                var text = base
                text[position] = UInt8(byte)
                #expect(hex8(text) == reference(text), "byte \(byte) at \(position)")
                let four = Array(text[4...])
                #expect(hex4(four) == reference(four), "byte \(byte) at \(position - 4) of 4")
            }
        }
    }

    @Test func randomTextsAndTheParsersBuiltOnThem() {
        let random = SeededRandom(seed: 77)
        let alphabet = Array("0123456789abcdefABCDEF-g/:`@ \u{7F}".utf8) + [0x80, 0xFF, 0x00]
        for _ in 0..<20_000 {
            let text = (0..<8).map { _ in random.next(4) == 0 ? random.pick(alphabet) : random.pick(Array("0123456789abcdef".utf8)) }
            #expect(hex8(text) == reference(text))
        }
        for _ in 0..<2_000 {
            let digits = (0..<64).map { _ in random.pick(Array("0123456789abcdef".utf8)) }
            let hex = String(decoding: digits, as: UTF8.self)
            #expect(Digest32(hex: hex)?.hex == hex)
            let uuid = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20).prefix(12)]
                .joined(separator: "-")
            #expect(UUIDBits(uuid: uuid)?.uuidString == uuid)
            #expect(UUIDBits(uuid: uuid.uppercased()) == nil || uuid.uppercased() == uuid)
        }
    }

    /// `spell8`'s eight bytes, lowest first.
    private func spelled(_ value: UInt32) -> String {
        let word = HexDigits.spell8(value)
        return String(decoding: (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }, as: UTF8.self)
    }

    private func reference(_ value: UInt32) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 8 - text.count) + text
    }

    @Test func spellingEveryNibbleAtEveryPosition() {
        for position in 0..<8 {
            for nibble in UInt32(0)...15 {
                for background in [UInt32(0), 0xFFFF_FFFF, 0x9A0F_C3E7] {
                    let value = background & ~(0xF << (4 * position)) | nibble << (4 * position)
                    #expect(spelled(value) == reference(value), "nibble \(nibble) at \(position) in \(background)")
                }
            }
        }
        let random = SeededRandom(seed: 78)
        for _ in 0..<20_000 {
            let value = UInt32(truncatingIfNeeded: random.next())
            #expect(spelled(value) == reference(value))
        }
    }
}
