// MARK: - DataSlots

/// The members of a flat `data` object, located in place: for each known member name, where its
/// value is and what kind it is. `scan` accepts only what `JSONReader` accepts (and less: no
/// whitespace, no nested values, no unknown or escaped names, no fractions), so a line it gives
/// up on goes to the generic reader for the verdict. No allocation unless a string has escapes.
struct DataSlots {
    /// A value's kind.
    enum Kind: UInt8 {
        case absent, string, escapedString, int, trueValue, falseValue, null
    }

    /// Where a member's value is: for strings, the bytes between the quotes.
    struct Slot {
        var start: Int32 = 0
        var end: Int32 = 0
        var kind = Kind.absent
    }

    /// Every member name of the catalogue's payloads.
    enum Key: Int, CaseIterable {
        case uid, email, passwordHash, withImage, imageName, path, contentType, bytes, sha256, userName, profileImageName,
             createdAt, step, reason, message, sessionId, tokenHash, expiresAt

        /// The name as written.
        var name: StaticString {
            switch self {
            case .uid: "uid"
            case .email: "email"
            case .passwordHash: "passwordHash"
            case .withImage: "withImage"
            case .imageName: "imageName"
            case .path: "path"
            case .contentType: "contentType"
            case .bytes: "bytes"
            case .sha256: "sha256"
            case .userName: "userName"
            case .profileImageName: "profileImageName"
            case .createdAt: "createdAt"
            case .step: "step"
            case .reason: "reason"
            case .message: "message"
            case .sessionId: "sessionId"
            case .tokenHash: "tokenHash"
            case .expiresAt: "expiresAt"
            }
        }

        /// The key spelled by `count` bytes at `pointer`, if any: the candidate picked by length and
        /// first byte, then compared whole.
        static func find(_ pointer: UnsafePointer<UInt8>, count: Int) -> Key? {
            let candidate: Key
            switch (count, pointer[0]) {
            case (3, UInt8(ascii: "u")): candidate = .uid
            case (4, UInt8(ascii: "p")): candidate = .path
            case (4, UInt8(ascii: "s")): candidate = .step
            case (5, UInt8(ascii: "e")): candidate = .email
            case (5, UInt8(ascii: "b")): candidate = .bytes
            case (6, UInt8(ascii: "s")): candidate = .sha256
            case (6, UInt8(ascii: "r")): candidate = .reason
            case (7, UInt8(ascii: "m")): candidate = .message
            case (8, UInt8(ascii: "u")): candidate = .userName
            case (9, UInt8(ascii: "w")): candidate = .withImage
            case (9, UInt8(ascii: "i")): candidate = .imageName
            case (9, UInt8(ascii: "c")): candidate = .createdAt
            case (9, UInt8(ascii: "s")): candidate = .sessionId
            case (9, UInt8(ascii: "t")): candidate = .tokenHash
            case (9, UInt8(ascii: "e")): candidate = .expiresAt
            case (11, UInt8(ascii: "c")): candidate = .contentType
            case (12, UInt8(ascii: "p")): candidate = .passwordHash
            case (16, UInt8(ascii: "p")): candidate = .profileImageName
            default: return nil
            }
            return equal(pointer, candidate.name) ? candidate : nil
        }
    }

    private var slots: (Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot) =
        (Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot())

    /// The slot of `key`. A switch over the tuple's fields: reading it through its bytes copied
    /// all 18 slots on every access (a tenth of the line decoder's time).
    subscript(key: Key) -> Slot {
        @inline(__always) get {
            switch key {
            case .uid: slots.0
            case .email: slots.1
            case .passwordHash: slots.2
            case .withImage: slots.3
            case .imageName: slots.4
            case .path: slots.5
            case .contentType: slots.6
            case .bytes: slots.7
            case .sha256: slots.8
            case .userName: slots.9
            case .profileImageName: slots.10
            case .createdAt: slots.11
            case .step: slots.12
            case .reason: slots.13
            case .message: slots.14
            case .sessionId: slots.15
            case .tokenHash: slots.16
            case .expiresAt: slots.17
            }
        }
        @inline(__always) set {
            switch key {
            case .uid: slots.0 = newValue
            case .email: slots.1 = newValue
            case .passwordHash: slots.2 = newValue
            case .withImage: slots.3 = newValue
            case .imageName: slots.4 = newValue
            case .path: slots.5 = newValue
            case .contentType: slots.6 = newValue
            case .bytes: slots.7 = newValue
            case .sha256: slots.8 = newValue
            case .userName: slots.9 = newValue
            case .profileImageName: slots.10 = newValue
            case .createdAt: slots.11 = newValue
            case .step: slots.12 = newValue
            case .reason: slots.13 = newValue
            case .message: slots.14 = newValue
            case .sessionId: slots.15 = newValue
            case .tokenHash: slots.16 = newValue
            case .expiresAt: slots.17 = newValue
            }
        }
    }

    // MARK: - Scan

    /// Locates the members of the object starting at `bytes[from]`; returns the index after its `}`.
    mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        let n = bytes.count
        guard n < Int(Int32.max) else { return nil }
        var i = from
        guard i < n, bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        guard i < n else { return nil }
        if bytes[i] == UInt8(ascii: "}") { return i + 1 }
        while true {
            // The name: plain printable ASCII.
            guard i < n, bytes[i] == UInt8(ascii: "\"") else { return nil }
            let nameStart = i + 1
            i = nameStart
            while i < n, bytes[i] != UInt8(ascii: "\"") {
                guard bytes[i] > 0x20, bytes[i] < 0x7F, bytes[i] != UInt8(ascii: "\\") else { return nil }
                i += 1
            }
            guard i < n, let key = Key.find(bytes.baseAddress! + nameStart, count: i - nameStart), self[key].kind == .absent else { return nil }
            i += 1
            guard i < n, bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            guard i < n else { return nil }
            var slot = Slot()
            switch bytes[i] {
            case UInt8(ascii: "\""):
                guard let (kind, end) = Self.string(bytes, quote: i) else { return nil }
                slot = Slot(start: Int32(i + 1), end: Int32(end - 1), kind: kind)
                i = end
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = i
                if bytes[i] == UInt8(ascii: "0") {
                    i += 1
                } else {
                    while i < n, bytes[i] &- UInt8(ascii: "0") < 10 { i += 1 }
                }
                guard i - start <= 18, i < n, bytes[i] != UInt8(ascii: "."), bytes[i] | 0x20 != UInt8(ascii: "e"),
                      bytes[i] &- UInt8(ascii: "0") >= 10 else { return nil }
                slot = Slot(start: Int32(start), end: Int32(i), kind: .int)
            case UInt8(ascii: "t"):
                guard i + 4 <= n, equal(bytes.baseAddress! + i, "true") else { return nil }
                slot.kind = .trueValue; i += 4
            case UInt8(ascii: "f"):
                guard i + 5 <= n, equal(bytes.baseAddress! + i, "false") else { return nil }
                slot.kind = .falseValue; i += 5
            case UInt8(ascii: "n"):
                guard i + 4 <= n, equal(bytes.baseAddress! + i, "null") else { return nil }
                slot.kind = .null; i += 4
            default:
                return nil
            }
            self[key] = slot
            guard i < n else { return nil }
            if bytes[i] == UInt8(ascii: "}") { return i + 1 }
            guard bytes[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
    }

    /// The string whose opening quote is at `quote`: its kind and the index after its closing quote,
    /// or nil when `JSONReader` would refuse it (control characters, bad escapes, invalid UTF-8).
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, quote: Int) -> (Kind, Int)? {
        var i = quote + 1
        var ascii = true
        let raw = UnsafeRawPointer(bytes.baseAddress!)
        while i < bytes.count {
            // Eight plain bytes (printable ASCII other than a quote or a backslash) at a time.
            if i + 8 <= bytes.count, !needsLook(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                i += 8
                continue
            }
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                if !ascii, String(validating: UnsafeBufferPointer(rebasing: bytes[(quote + 1)..<i]), as: UTF8.self) == nil { return nil }
                return (.string, i + 1)
            }
            if byte == UInt8(ascii: "\\") {
                // Escapes are rare: the reader checks and decodes this one string.
                guard let (value, end) = try? JSONReader.parseValue(in: bytes, at: quote, depth: 1), value.stringValue != nil else { return nil }
                return (.escapedString, end)
            }
            if byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            i += 1
        }
        return nil
    }

    /// True when one of the eight bytes of `word` is a quote, a backslash, a control character or
    /// not ASCII (the exact "has a byte" tests of Bit Twiddling Hacks: no false negatives).
    @inline(__always)
    static func needsLook(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22), backslashes = word ^ (ones &* 0x5C)
        let zeroQuote = (quotes &- ones) & ~quotes & highs
        let zeroBackslash = (backslashes &- ones) & ~backslashes & highs
        let control = (word &- ones &* 0x20) & ~word & highs
        return (zeroQuote | zeroBackslash | control | (word & highs)) != 0
    }

    // MARK: - Values

    /// The raw bytes of an unescaped string member.
    func plain(_ key: Key, in line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        let slot = self[key]
        guard slot.kind == .string else { return nil }
        return UnsafeBufferPointer(rebasing: line[Int(slot.start)..<Int(slot.end)])
    }

    /// A string member's value.
    func string(_ key: Key, in line: UnsafeBufferPointer<UInt8>) -> String? {
        let slot = self[key]
        switch slot.kind {
        case .string:
            // `scan` validated the UTF-8 already: decoding repairs nothing.
            return String(decoding: UnsafeBufferPointer(rebasing: line[Int(slot.start)..<Int(slot.end)]), as: UTF8.self)
        case .escapedString:
            return (try? JSONReader.parseValue(in: line, at: Int(slot.start) - 1, depth: 1))?.0.stringValue
        default:
            return nil
        }
    }

    /// A lowercase-UUID member.
    func uuid(_ key: Key, in line: UnsafeBufferPointer<UInt8>) -> UUIDBits? { plain(key, in: line).flatMap { UUIDBits(uuidBytes: $0) } }

    /// A 64-hex-digit member.
    func digest(_ key: Key, in line: UnsafeBufferPointer<UInt8>) -> Digest32? { plain(key, in: line).flatMap { Digest32(hexBytes: $0) } }

    /// A canonical-time member.
    func timestamp(_ key: Key, in line: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        plain(key, in: line).flatMap { Timestamp(canonicalBytes: $0) }
    }

    /// A non-negative integer member.
    func int(_ key: Key, in line: UnsafeBufferPointer<UInt8>) -> Int? {
        let slot = self[key]
        guard slot.kind == .int else { return nil }
        var value = 0
        for i in Int(slot.start)..<Int(slot.end) { value = value * 10 + Int(line[i] &- UInt8(ascii: "0")) }
        return value
    }

    /// True when the unescaped string member spells `literal`.
    func equals(_ key: Key, _ literal: StaticString, in line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let raw = plain(key, in: line), raw.count == literal.utf8CodeUnitCount else { return false }
        return equal(raw.baseAddress!, literal)
    }
}
