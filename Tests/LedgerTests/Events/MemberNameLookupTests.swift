@testable import LedgerDomain
import Testing

// MARK: - MemberNameLookupTests

/// The in-place reader's member-name lookup (`MemberSlots.scan` against a payload's rules) finds every
/// member name of each catalogue type, in the slot of its rule, and nothing else.
struct MemberNameLookupTests {
    /// The slot `scan` puts member `name` in, for a payload of `rules`; nil when it refuses the name.
    private func slot(of name: [UInt8], rules: [MemberRule]) -> Int? {
        let object = Array("{\"".utf8) + name + Array("\":1}".utf8)
        return object.withUnsafeBufferPointer { bytes -> Int? in
            MemberSlots.withEmpty { slots in
                guard rules.withUnsafeBufferPointer({ slots.scan(bytes, from: 0, rules: $0) }) == bytes.count else { return nil }
                return rules.indices.first { slots[$0].kind == .int }
            }
        }
    }

    @Test func everyNameFindsItsSlot() {
        for type in EventType.allCases {
            let rules = type.payloadType.memberRules
            for (index, rule) in rules.enumerated() { #expect(slot(of: Array(rule.name.utf8), rules: rules) == index, "\(type) \(rule.name)") }
        }
    }

    @Test func everyOneByteChangeFindsNothingOrAnotherRealName() {
        for type in EventType.allCases {
            let rules = type.payloadType.memberRules
            let names = rules.map { Array($0.name.utf8) }
            for name in names {
                for position in name.indices {
                    for value in [UInt8(ascii: "a"), UInt8(ascii: "Z"), UInt8(ascii: "_"), name[position] ^ 0x20] where value != name[position] {
                        var changed = name
                        changed[position] = value
                        let found = slot(of: changed, rules: rules)
                        #expect(found == nil || names.contains(changed), "\(String(decoding: changed, as: UTF8.self))")
                        if let found { #expect(names[found] == changed) }
                    }
                }
                #expect(slot(of: Array(name.dropLast()), rules: rules) == nil)
                #expect(slot(of: name + [UInt8(ascii: "s")], rules: rules) == nil)
            }
        }
    }
}
