import LedgerDomain
import LedgerKit

// MARK: - LogRewriting

/// A log taken apart into envelopes and written back with every `prev` and `hash` recomputed: what
/// someone with write access to the data directory can do (the chain is then whole again).
enum LogRewriting {
    /// The envelopes of the complete lines in `bytes`.
    static func envelopes(_ bytes: [UInt8]) throws -> [Envelope] {
        try splitLines(bytes).enumerated().map { n, line in
            try Array(line.dropLast()).withUnsafeBufferPointer { try LineCodec.decode($0, lineNumber: n + 1).0 }
        }
    }

    /// The hashed text of the line `e` holds (everything before `,"hash":"`), e.g. for `editLine`.
    static func body(_ e: Envelope) -> String {
        String(decoding: LineCodec.body(seq: e.seq, id: e.id, at: e.at, type: e.type, v: e.v, stream: e.stream, batch: e.batch,
                                        data: e.data, prev: e.prev), as: UTF8.self)
    }

    /// `envelopes` as log bytes, chained from the genesis hash; with `renumbering`, `seq` 1, 2, … too.
    static func chained(_ envelopes: [Envelope], renumbering: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        var prev = Envelope.genesisHash
        for (n, e) in envelopes.enumerated() {
            let body = LineCodec.body(seq: renumbering ? n + 1 : e.seq, id: e.id, at: e.at, type: e.type, v: e.v, stream: e.stream, batch: e.batch,
                                      data: e.data, prev: prev)
            prev = body.withUnsafeBytes { SHA256.hex($0) }
            out += LineCodec.line(body: body, hash: prev)
        }
        return out
    }

    /// The fingerprints of every id of the log at `path` under `seed`, as a checkpoint of it carries them.
    static func fingerprints(ofLog path: String, seed: UUIDBits = UUIDBits(high: 1, low: 2)) throws -> IDFingerprints {
        let ids = try envelopes(try readBytes(path)).map { UUIDBits(uuid: $0.id)! }
        guard let fingerprints = IDFingerprints(seed: seed, ids: ids) else { throw SystemTestError("ids repeat in \(path)") }
        return fingerprints
    }
}
