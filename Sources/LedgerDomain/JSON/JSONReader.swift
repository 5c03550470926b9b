// MARK: - JSONReader

/// A strict RFC 8259 reader over UTF-8 bytes: no trailing commas, no duplicate keys, valid UTF-8,
/// paired surrogates, nesting limited to `maxDepth` so hostile input cannot exhaust the stack.
public struct JSONReader {
    /// Deepest nesting accepted.
    public static let maxDepth = 256

    // Internal, not private: the string grammar (JSONReader+Strings.swift) reads them too.
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Parses exactly one JSON value (surrounding whitespace allowed) from `bytes`.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONValue {
        var reader = JSONReader(bytes)
        reader.skipWhitespace()
        let value = try reader.parseValue()
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.error("unexpected data after the value") }
        return value
    }

    /// Parses the one JSON value that starts exactly at `offset` of `bytes`, with the reader's rules
    /// and counting nesting as if it sat `depth` levels deep (so a value inside a document gets the
    /// same verdict as when the whole document is parsed). Returns it and the offset just after it.
    public static func parseValue(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int, depth: Int) throws(JSONError) -> (JSONValue, end: Int) {
        var reader = JSONReader(bytes)
        reader.index = offset
        reader.depth = depth
        let value = try reader.parseValue()
        return (value, reader.index)
    }

    /// Parses exactly one JSON value from an array of bytes.
    public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        do {
            return try bytes.withUnsafeBufferPointer { buffer in try parse(buffer) }
        } catch let error as JSONError {
            throw error
        } catch {
            throw JSONError(offset: 0, reason: "unreadable input")
        }
    }

    /// Parses exactly one JSON value from a string.
    public static func parse(_ text: String) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    // MARK: - Values

    func error(_ reason: String) -> JSONError { JSONError(offset: index, reason: reason) }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw error("invalid literal") }
        let base = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != base[offset] {
            throw error("invalid literal")
        }
        index += count
    }

    private mutating func enter() throws(JSONError) {
        depth += 1
        guard depth <= Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth)") }
    }

    private mutating func parseObject() throws(JSONError) -> JSONValue {
        try enter()
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        var keys = Set<String>()  // used once an object passes 16 members
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(JSONObject())
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let keyOffset = index
            let key = try parseString()
            // Small objects (every envelope and payload) check duplicates linearly; wide ones with a set,
            // so a hostile object with a million members stays linear overall.
            let duplicate: Bool
            if members.count < 16 {
                duplicate = members.contains(where: { $0.key == key })
            } else {
                if keys.isEmpty { keys = Set(members.map(\.key)) }
                duplicate = !keys.insert(key).inserted
            }
            guard !duplicate else {
                throw JSONError(offset: keyOffset, reason: "duplicate member \"\(key)\"")
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            guard let next = current else { throw error("unterminated object") }
            index += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { index -= 1; throw error("expected ',' or '}'") }
        }
        depth -= 1
        return .object(JSONObject(uniqueMembers: members))
    }

    private mutating func parseArray() throws(JSONError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard let next = current else { throw error("unterminated array") }
            index += 1
            if next == UInt8(ascii: "]") { break }
            guard next == UInt8(ascii: ",") else { index -= 1; throw error("expected ',' or ']'") }
        }
        depth -= 1
        return .array(elements)
    }

    // MARK: - Numbers

    private mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        var integral = true
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { throw error("invalid number") }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = current, isDigit(next) { throw error("leading zero in number") }
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard let next = current, isDigit(next) else { throw error("invalid number fraction") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            integral = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let next = current, isDigit(next) else { throw error("invalid number exponent") }
            skipDigits()
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if integral, let value = Int(text) { return .int(value) }
        // Beyond the range of Double (e.g. 1e400) is refused rather than read as infinity, which JSON cannot write back.
        guard let value = Double(text), value.isFinite else { throw JSONError(offset: start, reason: "unrepresentable number") }
        return .double(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { index += 1 }
    }
}
