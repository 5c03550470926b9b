// MARK: - IDBytes

/// Random bytes for event ids, drawn from the store's random source a kilobyte at a time: each call
/// to the CSPRNG costs microseconds whatever its size (a tenth of a registration's CPU when drawn per
/// id). Ids are public (every line shows its own), so bytes kept for later reveal nothing. They are
/// taken in the order drawn; a seeded source shared with other users (tokens, uids) therefore hands
/// them other bytes than if the store drew 16 at a time. A buffer copied into a forked child would
/// repeat ids there: nothing forks a process holding a store.
final class IDBytes {
    private var bytes: [UInt8] = []
    private var next = 0
    /// Bytes per draw.
    static let draw = 1024

    /// The next 16 bytes, drawing more from `random` when none are left.
    func take16(from random: any RandomSource) -> [UInt8] {
        if next + 16 > bytes.count {
            bytes = random.bytes(Self.draw)
            next = 0
        }
        defer { next += 16 }
        return Array(bytes[next..<(next + 16)])
    }
}
