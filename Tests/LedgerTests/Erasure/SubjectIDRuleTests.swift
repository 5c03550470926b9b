import LedgerDomain
import Testing

// MARK: - SubjectIDRuleTests

/// `SubjectID` reads an id as bytes (every sealed member of every line has one); what it accepts
/// must be exactly the documented rule (Events/README.md): `account-` and a lowercase UUID, or
/// `address-` and a real calendar date written `YYYY-MM-DD` (as a timestamp of that day's midnight
/// prints it), then nothing or `.N` with N ≥ 1 spelled as Int prints it, in at most 64 bytes. The
/// reference below spells that rule with strings and `Timestamp`; both must agree on ids near the
/// valid ones, from the text and from its bytes.
@Suite struct SubjectIDRuleTests {
    /// The rule with strings, as the documentation states it.
    static func reference(_ text: String) -> Bool {
        guard text.utf8.count <= SubjectID.maxLength else { return false }
        if text.hasPrefix("account-") {
            let rest = String(text.dropFirst(8))
            guard let uid = UUIDBits(uuid: rest) else { return false }
            return uid.uuidString == rest
        }
        guard text.hasPrefix("address-") else { return false }
        let rest = text.dropFirst(8)
        let day = String(rest.prefix(10))
        guard day.utf8.count == 10, let midnight = Timestamp(rfc3339: day + "T00:00:00.000Z"), midnight.rfc3339.hasPrefix(day) else { return false }
        let generation = rest.dropFirst(10)
        if generation.isEmpty { return true }
        guard generation.first == ".", let n = Int(generation.dropFirst()), n >= 1 else { return false }
        return String(n) == generation.dropFirst()
    }

    /// Ids around the valid ones: every date of a few years (leap years and centuries included),
    /// generations, and each of those with one byte changed, cut or added.
    static func candidates() -> [String] {
        var ids = ["account-a808bd42-6001-5835-a8dc-eaf62aa0980b", "account-A808BD42-6001-5835-a8dc-eaf62aa0980b", "", "address-", "account-"]
        for year in [0, 4, 1900, 2000, 2023, 2024, 2100, 9999] {
            for month in 0...13 {
                for day in [0, 1, 28, 29, 30, 31, 32] {
                    func pad(_ n: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(n).count)) + String(n) }
                    ids.append("address-\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))")
                }
            }
        }
        for generation in [".1", ".0", ".01", ".10", ".+1", ".-1", ".", "..1", ".1a", ".9223372036854775807", ".9223372036854775808",
                           ".\u{0661}", "x", "\u{0301}", ".1\u{0301}", String(repeating: "1", count: 50)] {
            ids.append("address-2026-11-29" + generation)
        }
        let random = SeededRandom(seed: 7)
        let base = ids
        for id in base where !id.isEmpty {
            for _ in 0..<6 {
                var bytes = Array(id.utf8)
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 4 {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes.remove(at: at)
                case 2: bytes.insert([0x30, 0x2D, 0x2E, 0x61, 0xCC, 0x81][Int(random.next() % 6)], at: at)
                default: bytes[at] = bytes[at] ^ 0x20
                }
                ids.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        return ids
    }

    @Test func theBytesRuleIsTheDocumentedRule() {
        var accepted = 0
        for id in Self.candidates() {
            let expected = Self.reference(id)
            #expect((SubjectID(id) != nil) == expected, "\(id.debugDescription)")
            var text = id
            let fromBytes = text.withUTF8 { SubjectID(utf8: $0) }
            #expect((fromBytes != nil) == expected, "bytes of \(id.debugDescription)")
            #expect(fromBytes?.text == (expected ? id : nil))
            if expected { accepted += 1 }
        }
        #expect(accepted > 300, "the candidates hold valid ids too")
    }
}
