import LedgerKit

// MARK: - JSON output

extension Context {
    /// Prints `value` as one compact JSON line.
    func printJSON(_ value: JSONValue) { print(JSONWriter.string(value)) }

    /// Prints a view's `--json` rows as `ViewRowsWriter` streams them (the bytes `printJSON` would
    /// print for the same rows), without building them in memory first, nor a string of each piece
    /// (`outBytes`: the writer's bytes are JSON text already).
    func printRows(_ write: (@escaping (UnsafeRawBufferPointer) -> Void) -> Void) {
        write { [self] bytes in outBytes(bytes) }
        out("\n")
    }
}

extension Head {
    /// `{"seq":N,"hash":"…"}`.
    var json: JSONValue { .object(JSONObject([("seq", .int(seq)), ("hash", .string(hash))])) }
}

extension LogProblem {
    /// `{"line":N,"kind":"…","message":"…"}`.
    var json: JSONValue {
        .object(JSONObject([("line", .int(line)), ("kind", .string(kind.rawValue)), ("message", .string(message))]))
    }
}
