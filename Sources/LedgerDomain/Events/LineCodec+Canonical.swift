// MARK: - LineCodec fast path

extension LineCodec {
    /// Decodes a line spelled exactly as ledger writes it — envelope members in order, no whitespace,
    /// plain printable ASCII in the envelope's strings — reading each member in place and only `data`
    /// through the JSON reader. Nil for any other spelling (valid or not): `decodeGeneric` then gives
    /// the verdict, so a line decodes to the same envelope, or the same problem, either way.
    public static func decodeCanonical(_ line: UnsafeBufferPointer<UInt8>) -> (Envelope, bodyLength: Int)? {
        var cursor = CanonicalCursor(line)
        guard cursor.expect(#"{"seq":"#), let seq = cursor.positiveInt(),
              cursor.expect(#","id":""#), let id = cursor.plainString(), Identifiers.isLowercaseUUID(id),
              cursor.expect(#","at":""#), let atText = cursor.plainString(), Timestamp.isCanonical(atText),
              let at = Timestamp(rfc3339: atText),
              cursor.expect(#","type":""#), let type = cursor.plainString(), !type.isEmpty,
              cursor.expect(#","v":"#), let v = cursor.positiveInt(),
              cursor.expect(#","stream":""#), let stream = cursor.plainString(), StreamName.parse(stream) != nil,
              let batch = cursor.batch(),
              cursor.expect(#","data":"#), cursor.peek == UInt8(ascii: "{"),
              let (value, end) = try? JSONReader.parseValue(in: line, at: cursor.index, depth: 1),
              case .object(let data) = value
        else { return nil }
        cursor.index = end
        let bodyLength = line.count - suffixLength
        guard cursor.expect(#","prev":""#), let prev = cursor.plainString(), Identifiers.isLowerHex(prev),
              cursor.index == bodyLength, cursor.expect(#","hash":""#), let hash = cursor.plainString(), Identifiers.isLowerHex(hash),
              cursor.expect("}"), cursor.index == line.count
        else { return nil }
        return (Envelope(seq: seq, id: id, at: at, type: type, v: v, stream: stream, batch: batch.isUnmarked ? nil : batch,
                         data: data, prev: prev, hash: hash), bodyLength)
    }
}

// MARK: - CanonicalCursor

/// Reads the fixed parts of a canonical line in place.
private struct CanonicalCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Consumes `literal` when the bytes continue with it.
    mutating func expect(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let start = literal.utf8Start
        for k in 0..<count where bytes[index + k] != start[k] { return false }
        index += count
        return true
    }

    /// A JSON integer of 1 to 18 digits without a leading zero (so ≥ 1 and no overflow).
    mutating func positiveInt() -> Int? {
        guard let first = peek, first >= UInt8(ascii: "1"), first <= UInt8(ascii: "9") else { return nil }
        var value = 0, digits = 0
        while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            guard digits < 18 else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        // A fraction or exponent makes it another spelling: leave it to the generic reader.
        if let byte = peek, byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return nil }
        return value
    }

    /// The optional `,"batch":[index,count]` member: `BatchMark.unmarked` when the bytes do not continue
    /// with it, nil when they do but not as a sound mark in canonical spelling.
    mutating func batch() -> BatchMark? {
        guard expect(#","batch":["#) else { return BatchMark.unmarked }
        guard let index = positiveInt(), expect(","), let count = positiveInt(), expect("]") else { return nil }
        return BatchMark(index: index, count: count)
    }

    /// The rest of a string whose opening quote was consumed, when it is printable ASCII without
    /// escapes; consumes the closing quote.
    mutating func plainString() -> String? {
        let start = index
        while let byte = peek {
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }
}
