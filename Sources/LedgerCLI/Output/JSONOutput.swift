import LedgerDomain

// MARK: - JSON output

extension Context {
    /// Prints `value` as one compact JSON line.
    func printJSON(_ value: JSONValue) { print(JSONWriter.string(value)) }
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
