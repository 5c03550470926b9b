// MARK: - JSONReader: strings

/// The string grammar of `JSONReader`: escapes, paired surrogates, valid UTF-8.
extension JSONReader {
    /// Reads the string whose opening quote is at `index`, escapes decoded, and moves past its closing quote.
    mutating func parseString() throws(JSONError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return try validated(slice, at: start)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in string") }
            index += 1
        }
        guard index < bytes.count else { throw error("unterminated string") }
        var buffer = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try buffer.withUnsafeBufferPointer { (slice) throws(JSONError) -> String in
                    try validated(slice, at: start)
                }
            case UInt8(ascii: "\\"):
                index += 1
                try parseEscape(into: &buffer)
            case 0..<0x20:
                throw error("control character in string")
            default:
                buffer.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    private func validated(_ slice: UnsafeBufferPointer<UInt8>, at offset: Int) throws(JSONError) -> String {
        // ASCII needs no UTF-8 validation (the common case in the log: ids, hashes, codes, emails).
        if slice.allSatisfy({ $0 < 0x80 }) { return String(decoding: slice, as: UTF8.self) }
        guard let string = String(validating: slice, as: UTF8.self) else {
            throw JSONError(offset: offset, reason: "invalid UTF-8 in string")
        }
        return string
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONError) {
        guard let byte = current else { throw error("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): buffer.append(0x22)
        case UInt8(ascii: "\\"): buffer.append(0x5C)
        case UInt8(ascii: "/"): buffer.append(0x2F)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try parseHex4())
            if (0xD800...0xDBFF).contains(scalar) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate")
                }
                index += 2
                let low = UInt32(try parseHex4())
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
            buffer.append(contentsOf: UTF8.encode(unicode)!)
        default:
            index -= 1
            throw error("invalid escape")
        }
    }

    private mutating func parseHex4() throws(JSONError) -> UInt16 {
        guard bytes.count - index >= 4 else { throw error("short \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}
