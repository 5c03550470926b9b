@testable import LedgerKit
import LedgerDomain
import Testing

// MARK: - KeySlotTests

/// One slot of the key store read byte by byte: zeros are empty, a sealed slot reads back, and
/// any single byte changed anywhere in it (state, length, subject, padding, key, checksum) makes it
/// torn or another valid-looking nothing, never a different key.
struct KeySlotTests {
    static let live = KeySlot(state: .live, subject: SubjectID("account-7f1c0a9e-2b3d-4c5e-8f60-718293a4b5c6")!,
                              key: (0..<32).map { UInt8($0 &* 7 &+ 1) })
    static let erased = KeySlot(state: .erased, subject: SubjectID("address-2026-11-20")!,
                                key: [UInt8](repeating: 0, count: 32))

    @Test func zerosAreEmptyAndASealedSlotReadsBack() {
        #expect(KeySlot.decode([UInt8](repeating: 0, count: KeyStoreLayout.slotSize)[...]) == .empty)
        for slot in [Self.live, Self.erased] { #expect(KeySlot.decode(slot.encoded()[...]) == .slot(slot)) }
    }

    /// Every byte of both slots flipped in turn, and every byte of an empty slot set: never the
    /// same slot read back, never empty unless all 128 bytes are zero.
    @Test func anyOneByteChangedIsNeverReadAsTheSlot() {
        for slot in [Self.live, Self.erased] {
            let bytes = slot.encoded()
            for at in bytes.indices {
                for flip: UInt8 in [0x01, 0x80, 0xFF] {
                    var changed = bytes
                    changed[at] ^= flip
                    let decoded = KeySlot.decode(changed[...])
                    #expect(decoded != .slot(slot) && decoded != .empty, "byte \(at) ^ \(flip)")
                    if case .slot(let other) = decoded { #expect(other.key != slot.key || other.subject != slot.subject) }
                }
            }
        }
        for at in 0..<KeyStoreLayout.slotSize {
            var one = [UInt8](repeating: 0, count: KeyStoreLayout.slotSize)
            one[at] = 1
            #expect(KeySlot.decode(one[...]) != .empty, "byte \(at)")
        }
    }

    @Test func allZeroLooksAtEveryByte() {
        for count in 0...40 {
            for at in 0..<count {
                var bytes = [UInt8](repeating: 0, count: count)
                bytes[at] = 0x40
                #expect(!bytes.withUnsafeBytes { KeySlot.allZero($0) }, "count \(count), byte \(at)")
            }
            #expect([UInt8](repeating: 0, count: count).withUnsafeBytes { KeySlot.allZero($0) })
        }
    }
}
