@testable import LedgerDomain
import Testing

// MARK: - DataSlotsKeyTests

/// The in-place reader's member-name lookup (picked by length and first byte) finds every catalogue
/// name and nothing else.
struct DataSlotsKeyTests {
    private func find(_ name: [UInt8]) -> DataSlots.Key? {
        name.withUnsafeBufferPointer { DataSlots.Key.find($0.baseAddress!, count: $0.count) }
    }

    private func bytes(_ key: DataSlots.Key) -> [UInt8] {
        Array(UnsafeBufferPointer(start: key.name.utf8Start, count: key.name.utf8CodeUnitCount))
    }

    @Test func everyNameFindsItsKey() {
        for key in DataSlots.Key.allCases { #expect(find(bytes(key)) == key, "\(key)") }
    }

    @Test func everyOneByteChangeFindsNothingOrAnotherRealName() {
        let names = Set(DataSlots.Key.allCases.map(bytes))
        for key in DataSlots.Key.allCases {
            let name = bytes(key)
            for position in name.indices {
                for value in [UInt8(ascii: "a"), UInt8(ascii: "Z"), UInt8(ascii: "_"), name[position] ^ 0x20] where value != name[position] {
                    var changed = name
                    changed[position] = value
                    let found = find(changed)
                    #expect(found == nil || names.contains(changed), "\(String(decoding: changed, as: UTF8.self))")
                    if let found { #expect(bytes(found) == changed) }
                }
            }
            #expect(find(Array(name.dropLast())) == nil)
            #expect(find(name + [UInt8(ascii: "s")]) == nil)
        }
    }
}
