import LedgerDomain

/// `views` written to a checkpoint (with one fingerprint per event) and read back.
func checkpointRoundTrip(_ views: LedgerViews) throws -> LedgerViews {
    var bytes: [UInt8] = []
    CheckpointWriter.write(views, ids: IDFingerprints(seed: .zero, sorted: (0..<UInt64(views.events)).map { $0 + 1 })!) {
        bytes.append(contentsOf: $0)
    }
    var offset = 0
    return try CheckpointReader.read { out in
        let n = min(out.count, bytes.count - offset)
        out.copyBytes(from: bytes[offset..<(offset + n)])
        offset += n
        return n
    }.views
}
