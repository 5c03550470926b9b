// MARK: - LineCodec

/// Encodes and decodes one log line (v1). Hashing is left to the caller: the domain does no crypto.
public enum LineCodec {
    /// `,"hash":"` — the bytes that separate a line's hashed body from its hash.
    public static let hashMarker = Array(#","hash":""#.utf8)
    /// The envelope members, in the order every line must have them (`batch` only on the lines of a
    /// batch of two lines or more: see `memberOrderInBatch`).
    public static let memberOrder = ["seq", "id", "at", "type", "v", "stream", "data", "prev", "hash"]
    /// The envelope members of a line that has `batch`, in order.
    public static let memberOrderInBatch = ["seq", "id", "at", "type", "v", "stream", "batch", "data", "prev", "hash"]
    /// Length of the fixed suffix `,"hash":"<64 hex>"}`.
    public static let suffixLength = hashMarker.count + 64 + 2
    /// Fewer bytes than any sound line has: its id, time, `prev` and hash alone are 188, its member
    /// names 50 more. Bytes divided by it bound the lines they can hold.
    public static let shortestLine = 200

    /// The hashed part of a line: every member before `,"hash":"`, in the v1 order; `batch` is
    /// written only when given and not `none`.
    public static func body(seq: Int, id: String, at: Timestamp, type: String, v: Int, stream: String, batch: BatchMark? = nil,
                            data: JSONObject, prev: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(320)
        out.append(contentsOf: #"{"seq":"#.utf8)
        out.append(contentsOf: String(seq).utf8)
        out.append(contentsOf: #","id":"#.utf8)
        JSONWriter.writeString(id, into: &out)
        out.append(contentsOf: #","at":""#.utf8)
        out.append(contentsOf: at.rfc3339.utf8)
        out.append(contentsOf: #"","type":"#.utf8)
        JSONWriter.writeString(type, into: &out)
        out.append(contentsOf: #","v":"#.utf8)
        out.append(contentsOf: String(v).utf8)
        out.append(contentsOf: #","stream":"#.utf8)
        JSONWriter.writeString(stream, into: &out)
        if let batch, !batch.isUnmarked {
            out.append(contentsOf: #","batch":["#.utf8)
            out.append(contentsOf: String(batch.index).utf8)
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: String(batch.count).utf8)
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: #","data":"#.utf8)
        JSONWriter.write(.object(data), into: &out)
        out.append(contentsOf: #","prev":""#.utf8)
        out.append(contentsOf: prev.utf8)
        out.append(UInt8(ascii: "\""))
        return out
    }

    /// A whole line: `body`, then `,"hash":"<hash>"}` and a newline.
    public static func line(body: [UInt8], hash: String) -> [UInt8] {
        var out = body
        out.append(contentsOf: hashMarker)
        out.append(contentsOf: hash.utf8)
        out.append(contentsOf: "\"}\n".utf8)
        return out
    }

    /// Decodes a line (without its newline) into an envelope, checking JSON and envelope shape only.
    /// Returns the envelope and the length of the hashed body. `lineNumber` is used in problems.
    public static func decode(_ line: UnsafeBufferPointer<UInt8>, lineNumber: Int) throws(LogProblem) -> (Envelope, bodyLength: Int) {
        if let canonical = decodeCanonical(line) { return canonical }
        return try decodeGeneric(line, lineNumber: lineNumber)
    }

    /// `decode` through a generic JSON tree of the whole line: any valid JSON spelling of a line, and
    /// the one-line problem for anything else. (Public so tests can compare it with the fast path.)
    public static func decodeGeneric(_ line: UnsafeBufferPointer<UInt8>, lineNumber: Int) throws(LogProblem) -> (Envelope, bodyLength: Int) {
        func invalid(_ message: String) -> LogProblem { LogProblem(line: lineNumber, kind: .invalidJSON, message: message) }
        let root: JSONValue
        do {
            root = try JSONReader.parse(line)
        } catch {
            throw invalid("not JSON: \(error)")
        }
        guard case .object(let object) = root else { throw invalid("not a JSON object") }
        let bodyLength = line.count - suffixLength
        guard bodyLength > 0, line[line.count - 1] == UInt8(ascii: "}"), line[line.count - 2] == UInt8(ascii: "\""),
              zip(hashMarker.indices, hashMarker).allSatisfy({ line[bodyLength + $0] == $1 }),
              object.members.last?.key == "hash"
        else { throw invalid(#"the line must end with ,"hash":"<64 lowercase hex>"}"#) }
        if let extra = object.keys.first(where: { !memberOrderInBatch.contains($0) }) { throw invalid("unexpected envelope member \"\(extra)\"") }
        guard let seq = object["seq"]?.intValue, seq >= 1 else { throw invalid("seq must be a positive integer") }
        guard let id = object["id"]?.stringValue, Identifiers.isLowercaseUUID(id) else { throw invalid("id must be a lowercase UUID") }
        guard let atText = object["at"]?.stringValue, Timestamp.isCanonical(atText), let at = Timestamp(rfc3339: atText)
        else { throw invalid("at must be RFC 3339 UTC with milliseconds, e.g. 2026-11-29T15:54:00.123Z") }
        guard let type = object["type"]?.stringValue, !type.isEmpty else { throw invalid("type must be a non-empty string") }
        guard let v = object["v"]?.intValue, v >= 1 else { throw invalid("v must be a positive integer") }
        guard let stream = object["stream"]?.stringValue, StreamName.parse(stream) != nil
        else { throw invalid("stream must be <registration|session|signin|account|migration>-<lowercase uuid>") }
        var batch: BatchMark?
        if let member = object["batch"] {
            guard case .array(let pair) = member, pair.count == 2, let index = pair[0].intValue, let count = pair[1].intValue,
                  let mark = BatchMark(index: index, count: count)
            else { throw invalid("batch must be [index,count]: integers with 2 ≤ count ≤ \(BatchMark.maxCount) and 1 ≤ index ≤ count") }
            batch = mark
        }
        guard let data = object["data"]?.objectValue else { throw invalid("data must be a JSON object") }
        guard let prev = object["prev"]?.stringValue, Identifiers.isLowerHex(prev) else { throw invalid("prev must be 64 lowercase hex digits") }
        guard let hash = object["hash"]?.stringValue, Identifiers.isLowerHex(hash) else { throw invalid("hash must be 64 lowercase hex digits") }
        let order = batch == nil ? memberOrder : memberOrderInBatch
        guard object.keys == order else { throw invalid("envelope members must be in the order \(order.joined(separator: ", "))") }
        return (Envelope(seq: seq, id: id, at: at, type: type, v: v, stream: stream, batch: batch, data: data, prev: prev, hash: hash), bodyLength)
    }
}
