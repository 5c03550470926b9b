// MARK: - Head as an anchor

extension Head {
    /// `SEQ:HASH`: the head as `ledger verify` and the report print it, and `verify --expect` takes it.
    public var anchor: String { "\(seq):\(hash)" }

    /// A head from `SEQ:HASH` (a seq of at least 1, a 64-digit lowercase hex hash); nil for anything else.
    public init?(anchor text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seq = Int(parts[0]), seq >= 1,
              parts[1].utf8.count == 64, parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        self.init(seq: seq, hash: String(parts[1]))
    }
}
