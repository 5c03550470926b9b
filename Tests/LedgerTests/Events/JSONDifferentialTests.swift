import Foundation
import LedgerDomain
import Testing

/// Our JSON reader against Foundation's `JSONSerialization` on thousands of generated and mutated inputs.
///
/// The rules: when ours accepts, `JSONSerialization` must accept and give an equal value; when
/// `JSONSerialization` rejects, ours must reject. `JSONSerialization` is more lenient in places (trailing
/// commas, a BOM, UTF-16/32 detection, deeper nesting), so "it accepts, we reject" is allowed for mutated input.
///
/// Deliberate differences, excluded from the comparison: ours rejects duplicate keys (JSONSerialization keeps
/// the last) and unpaired surrogate escapes (JSONSerialization accepts some). Those inputs are generated on
/// purpose in `deliberateDifferencesAreRejectedByOurs`, where only our rejection is asserted.
struct JSONDifferentialTests {
    static let seeds: [UInt64] = [1, 2, 3, 4]

    /// Parses with Foundation; nil when it rejects.
    static func foundation(_ bytes: [UInt8]) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    /// True when Foundation's `value` equals ours (booleans are not numbers; numbers compare by value).
    static func same(_ ours: JSONValue, _ theirs: Any) -> Bool { difference(ours, theirs) == nil }

    /// Where Foundation's value first differs from ours (a path like `$[2].key`), or nil when they are equal.
    static func difference(_ ours: JSONValue, _ theirs: Any, at path: String = "$") -> String? {
        let differs = "\(path): ours \(ours), Foundation \(theirs) (\(type(of: theirs)))"
        switch ours {
        case .null:
            return theirs is NSNull ? nil : differs
        case .bool(let flag):
            guard let number = theirs as? NSNumber, isBoolean(number), number.boolValue == flag else { return differs }
            return nil
        case .int(let int):
            guard let number = theirs as? NSNumber, !isBoolean(number) else { return differs }
            if let decimal = number as? NSDecimalNumber { return decimal.decimalValue == Decimal(int) ? nil : differs }
            return number.int64Value == Int64(int) && number.doubleValue == Double(int) ? nil : differs
        case .double(let double):
            guard let number = theirs as? NSNumber, !isBoolean(number) else { return differs }
            if number is NSDecimalNumber {
                // Decimal keeps 38 digits and converts to Double inexactly: compare closely, not exactly.
                return abs(number.doubleValue - double) <= abs(double) * 1e-12 ? nil : differs
            }
            return number.doubleValue == double ? nil : differs
        case .string(let text):
            guard let string = theirs as? String, withoutBOM(string) == withoutBOM(text) else { return differs }
            return nil
        case .array(let elements):
            guard let array = theirs as? [Any], array.count == elements.count else { return differs }
            for (index, pair) in zip(elements, array).enumerated() {
                if let found = difference(pair.0, pair.1, at: "\(path)[\(index)]") { return found }
            }
            return nil
        case .object(let object):
            guard let dictionary = theirs as? [String: Any] else { return differs }
            // Keys that differ only by U+FEFF may collapse into one in Foundation: nothing to compare.
            let keys = object.keys.map(withoutBOM)
            if Set(keys).count != keys.count { return nil }
            let theirs = Dictionary(dictionary.map { (withoutBOM($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
            guard theirs.count == keys.count else { return "\(path): \(keys.count) members, Foundation \(dictionary.count)" }
            for (key, member) in zip(keys, object.members) {
                guard let value = theirs[key] else { return "\(path): Foundation has no member \(member.key.debugDescription)" }
                if let found = difference(member.value, value, at: "\(path).\(member.key.debugDescription)") { return found }
            }
            return nil
        }
    }

    /// `text` without U+FEFF. Foundation drops a U+FEFF (byte order mark) written as raw UTF-8 at the start of a
    /// string or right after an escape (a quirk of its own; written as `\uFEFF` it is kept), while ours keeps it
    /// as RFC 8259 requires; so strings are compared without it.
    private static func withoutBOM(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\u{FEFF}" }))
    }

    private static func isBoolean(_ number: NSNumber) -> Bool { String(cString: number.objCType) == "c" }

    /// Generated (valid) texts in both encodings: ours and Foundation accept and agree, and ours gives back the value.
    @Test(arguments: seeds)
    func generatedInputsAgree(seed: UInt64) throws {
        let generator = JSONGenerator(random: SeededRandom(seed: seed))
        var failures: [String] = []
        for _ in 0..<250 {
            let value = generator.value()
            for text in [JSONWriter.bytes(value), generator.escapedText(value)] {
                let shown = String(decoding: text, as: UTF8.self)
                guard let ours = try? JSONReader.parse(text) else { failures.append("ours rejects \(shown)"); continue }
                if ours != value.asWrittenAndRead { failures.append("ours reads \(ours) from \(shown)") }
                guard let theirs = Self.foundation(text) else { failures.append("Foundation rejects \(shown)"); continue }
                if let found = Self.difference(ours, theirs) { failures.append("values differ for \(shown): \(found)") }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(3))")
    }

    /// Mutated texts: if ours accepts, Foundation accepts the same value; if Foundation rejects, ours rejects.
    @Test(arguments: seeds)
    func mutatedInputsAgree(seed: UInt64) throws {
        let generator = JSONGenerator(random: SeededRandom(seed: 100 + seed))
        var failures: [String] = []
        var (accepted, rejected) = (0, 0)
        for _ in 0..<120 {
            let value = generator.value()
            for text in [JSONWriter.bytes(value), generator.escapedText(value)] {
                for _ in 0..<5 {
                    let input = generator.mutate(text)
                    let ours = try? JSONReader.parse(input)
                    let theirs = Self.foundation(input)
                    let shown = "\(input)"
                    if let ours {
                        accepted += 1
                        if let theirs {
                            if let found = Self.difference(ours, theirs) { failures.append("values differ for \(shown): \(found)") }
                        } else {
                            failures.append("ours accepts what Foundation rejects: \(shown)")
                        }
                    } else {
                        rejected += 1
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(3))")
        // The mutations must exercise both outcomes, or the test proves little.
        #expect(accepted > 50)
        #expect(rejected > 300)
    }

    /// The deliberate differences (excluded above): duplicate keys and unpaired surrogates are always rejected by ours,
    /// whatever Foundation does with them.
    @Test(arguments: seeds)
    func deliberateDifferencesAreRejectedByOurs(seed: UInt64) throws {
        let generator = JSONGenerator(random: SeededRandom(seed: 200 + seed))
        var failures: [String] = []
        for _ in 0..<100 {
            // A duplicate key, at the top or nested.
            var object = generator.object(depth: 3)
            let key = generator.string(maxLength: 5)
            object[key] = generator.value(depth: 1)
            var text = JSONWriter.bytes(.object(object))
            text.removeLast()
            text += Array(((object.members.isEmpty ? "" : ",") + JSONWriter.string(.string(key)) + ":null}").utf8)
            let nested = Array("[1,{\"x\":".utf8) + text + Array("}]".utf8)
            for input in [text, nested] where (try? JSONReader.parse(input)) != nil {
                failures.append("duplicate key accepted: \(String(decoding: input, as: UTF8.self))")
            }
            // A lone surrogate escape inside an otherwise valid string.
            let lone = generator.random.pick(["\\ud800", "\\udbff", "\\udc00", "\\udfff"])
            let around = JSONWriter.string(.string(generator.string()))
            let string = Array((String(around.dropLast()) + lone + (generator.random.oneIn(2) ? "x" : "") + "\"").utf8)
            if (try? JSONReader.parse(string)) != nil { failures.append("lone surrogate accepted: \(String(decoding: string, as: UTF8.self))") }
        }
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(3))")
    }
}
