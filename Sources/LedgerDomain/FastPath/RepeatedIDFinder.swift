// MARK: - RepeatedIDFinder

/// Tells whether any two of many event ids may be equal, checked once at the end instead of per
/// line. A replay that folds a million lines spent a tenth of its time on the id set's probes: each
/// a miss in a 32 MiB table. This keeps a 64-bit fingerprint per id (`fingerprint(seed:)`, under a
/// random seed) in a flat array, written in order, and looks for a repeat with two passes over it at
/// the end. A finder continuing after a checkpoint takes the checkpoint's seed and fingerprints
/// (`prior`), and also looks each new fingerprint up there.
///
/// A "maybe" is a repeated id, or two ids whose fingerprints collide (for a million random ids,
/// about one read in 10^7; a log writer who does not know the seed cannot aim for it).
/// Either way the caller reads again with `ChainChecker`'s exact set, which names the line.
public struct RepeatedIDFinder: Sendable {
    /// The seed of every fingerprint.
    public let seed: UUIDBits
    private var fingerprints: [UInt64] = []
    /// The ids before the first one added, when continuing after them.
    private let prior: IDFingerprints?
    /// How many of `fingerprints` `newMayRepeat` has checked, and those as a set (built only by it).
    private var checked = 0
    private var seen = FingerprintSet()

    /// An empty finder, under a fresh random seed.
    public init() {
        seed = IDFingerprints.randomSeed()
        prior = nil
    }

    /// An empty finder under `seed` (to compare its fingerprints with those kept under that seed).
    public init(seed: UUIDBits) {
        self.seed = seed
        prior = nil
    }

    /// A finder continuing after the ids `prior` holds, under their seed.
    public init(after prior: IDFingerprints) {
        seed = prior.seed
        self.prior = prior
    }

    /// The fingerprints of the prior ids and of those added, sorted; nil when two of them may be
    /// equal (the check `mayRepeat` does, done on the way).
    public func all() -> IDFingerprints? {
        guard let prior else { return IDFingerprints(seed: seed, sorted: fingerprints.sorted()) }
        return prior.merged(with: fingerprints)
    }

    /// Ids added.
    public var count: Int { fingerprints.count }

    /// Makes room for about `lines` ids (at most 4 Mi at once, like `ChainChecker.reserve`).
    public mutating func reserve(lines: Int) {
        fingerprints.reserveCapacity(fingerprints.count + min(max(0, lines), 1 << 22))
    }

    /// Adds one id.
    @inline(__always)
    public mutating func add(_ id: UUIDBits) { fingerprints.append(id.fingerprint(seed: seed)) }

    /// True when two of the ids added, or one added and one prior, may be equal (see the type's
    /// note); false when no two are. The prior ids are distinct already; each added one is looked up
    /// among them. Works on a copy of the fingerprints: `checkRepeats` spares it.
    public func mayRepeat() -> Bool {
        var copy = self
        return copy.checkRepeats()
    }

    /// `mayRepeat`, reordering the fingerprints where they lie (reads call it last: `newMayRepeat`
    /// after it would see them moved):
    /// no second array of 8 bytes an id at the end of a read.
    public mutating func checkRepeats() -> Bool {
        if addedMayRepeat() { return true }
        guard let prior, prior.count > 0 else { return false }
        return prior.containsAny(of: fingerprints)
    }

    /// True when an id added since the last call (or the first) may equal another one added, or a
    /// prior one (a maybe, as `mayRepeat`, or two fingerprints alike in `FingerprintSet`'s tags);
    /// false when none does. In one batch against a set of
    /// the fingerprints checked before, for a read that must know before it acts on the lines
    /// (export, before it writes them). After a maybe, the answers of later calls mean nothing.
    public mutating func newMayRepeat() -> Bool {
        var start = checked
        checked = fingerprints.count
        if let prior, prior.count > 0, prior.containsAny(of: fingerprints[start...]) { return true }
        var set = seen
        seen = FingerprintSet()  // the set is changed in place, not copied
        defer { seen = set }
        if !set.hasRoom(for: checked - start) {
            // Sized for the lines reserved, else twice those so far: the set cannot grow, so a
            // larger one takes every fingerprint checked before again.
            set = FingerprintSet(capacity: Swift.max(fingerprints.capacity, 2 * checked))
            start = 0
        }
        return !fingerprints.withUnsafeBufferPointer { set.insert(UnsafeBufferPointer(rebasing: $0[start..<checked])) }
    }

    /// True when `id` may be one of the ids added or prior (a maybe: it is, or its fingerprint
    /// collides); false when it is none of them.
    public func mayHold(_ id: UUIDBits) -> Bool {
        let fingerprint = id.fingerprint(seed: seed)
        return seen.mayContain(fingerprint) || fingerprints[checked...].contains(fingerprint) || prior?.contains(fingerprint) == true
    }

    /// `mayRepeat` among the ids added: `hasRepeat` over the fingerprints, in place.
    private mutating func addedMayRepeat() -> Bool {
        fingerprints.withUnsafeMutableBufferPointer { Self.hasRepeat($0) }
    }

    /// True when two of `values` are equal. Groups them in place by their top byte into 256
    /// buckets (each value moved once, as in an American flag sort), then each bucket by its next
    /// byte, and so on, until a bucket holds at most `smallBucket` values, which a small table in
    /// the cache checks. Every pass writes to 256 places at a time, whose lines stay in the cache:
    /// grouping ten million values by 16 bits at once made each move a cache and TLB miss, and
    /// the check a tenth of the read. The values are fingerprints under a secret seed, so their
    /// bytes are evenly spread whatever the ids; equal values stay together down to the last byte.
    static func hasRepeat(_ values: UnsafeMutableBufferPointer<UInt64>) -> Bool {
        guard values.count > 1 else { return false }
        var table = SmallTable(capacity: 2 * smallBucket)
        return hasRepeat(values, shift: 56, table: &table)
    }

    /// Buckets at most this large go to the small table.
    static let smallBucket = 256

    private static func hasRepeat(_ values: UnsafeMutableBufferPointer<UInt64>, shift: Int, table: inout SmallTable) -> Bool {
        if values.count <= 1 { return false }
        // All 64 bits alike: every value of the bucket is the same.
        if shift < 0 { return true }
        if values.count <= smallBucket { return table.hasRepeat(values) }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * 257) { scratch in
            let starts = UnsafeMutableBufferPointer(rebasing: scratch[0..<257])
            let next = UnsafeMutableBufferPointer(rebasing: scratch[257..<514])
            starts.initialize(repeating: 0)
            let s = UInt64(shift)
            for value in values { starts[Int(truncatingIfNeeded: (value >> s) & 0xFF) + 1] += 1 }
            for b in 0..<256 { starts[b + 1] += starts[b] }
            _ = next.initialize(from: starts)
            for b in 0..<256 {
                while next[b] < starts[b + 1] {
                    // Carry the value out of this slot along the buckets it belongs to, each
                    // displaced value going on, until one of this bucket comes back here.
                    var value = values[next[b]]
                    var target = Int(truncatingIfNeeded: (value >> s) & 0xFF)
                    while target != b {
                        let slot = next[target]
                        next[target] += 1
                        swap(&value, &values[slot])
                        target = Int(truncatingIfNeeded: (value >> s) & 0xFF)
                    }
                    values[next[b]] = value
                    next[b] += 1
                }
            }
            for b in 0..<256 where starts[b + 1] - starts[b] > 1 {
                let bucket = UnsafeMutableBufferPointer(rebasing: values[starts[b]..<starts[b + 1]])
                if hasRepeat(bucket, shift: shift - 8, table: &table) { return true }
            }
            return false
        }
    }

    /// An open-addressing set for one small bucket at a time, emptied between buckets.
    struct SmallTable {
        private var slots: [UInt64]
        private var used: [Bool]

        init(capacity: Int) {
            slots = [UInt64](repeating: 0, count: capacity)
            used = [Bool](repeating: false, count: capacity)
        }

        /// True when two of `values` are equal; leaves the table empty.
        mutating func hasRepeat(_ values: UnsafeMutableBufferPointer<UInt64>) -> Bool {
            var size = 16
            while size < values.count * 2 { size *= 2 }
            if size > slots.count { self = SmallTable(capacity: size) }
            let mask = size - 1
            var repeated = false
            slots.withUnsafeMutableBufferPointer { slots in
                used.withUnsafeMutableBufferPointer { used in
                    for value in values {
                        // The low bits: the buckets were chosen by the high ones.
                        var i = Int(truncatingIfNeeded: value) & mask
                        while used[i] {
                            if slots[i] == value { repeated = true; break }
                            i = (i + 1) & mask
                        }
                        if repeated { break }
                        slots[i] = value
                        used[i] = true
                    }
                    for i in 0..<size { used[i] = false }
                }
            }
            return repeated
        }
    }
}
