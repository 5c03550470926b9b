// MARK: - IDFingerprints

/// The 64-bit fingerprints (`UUIDBits.fingerprint(seed:)`) of every id of a log's prefix, under one
/// seed, sorted and distinct: what a checkpoint carries so that a read starting after it still finds
/// a line whose id repeats one before it. A fingerprint of a later id found here is a "maybe" (a
/// repeat, or two ids that collide): the reader then reads the whole log the strict way.
///
/// Held in memory, or left where a checkpoint's file keeps them (`FingerprintFile`): a read whose
/// tail is too short to save a new checkpoint only asks whether its few ids are among them, and
/// 8 bytes an event held for that were most of what a read from the checkpoint added to the views.
public struct IDFingerprints: Equatable, Sendable {
    /// The seed of every fingerprint.
    public let seed: UUIDBits
    private let storage: Storage

    private enum Storage: Sendable {
        case held([UInt64])
        case file(FingerprintFile)
    }

    /// Fingerprints already sorted and distinct under `seed`; nil when `sorted` is not strictly increasing.
    public init?(seed: UUIDBits, sorted: [UInt64]) {
        for i in sorted.indices.dropFirst() where sorted[i - 1] >= sorted[i] { return nil }
        self.seed = seed
        storage = .held(sorted)
    }

    /// The fingerprints of `ids` under `seed`; nil when two of them share one (a repeat or a collision).
    public init?(seed: UUIDBits, ids: some Sequence<UUIDBits>) {
        self.init(seed: seed, sorted: ids.map { $0.fingerprint(seed: seed) }.sorted())
    }

    /// Fingerprints under `seed` that `file` reads back, which its reader found strictly increasing.
    public init(seed: UUIDBits, file: FingerprintFile) {
        self.seed = seed
        storage = .file(file)
    }

    private init(seed: UUIDBits, checkedSorted: [UInt64]) { self.seed = seed; storage = .held(checkedSorted) }

    /// A seed no log writer can know in advance (a collision only costs a strict read, but must not be aimed).
    public static func randomSeed() -> UUIDBits {
        // The standard library's randomly seeded `Hasher`, as every seeded hash of the core: the
        // core draws no random numbers of its own.
        var first = Hasher(), second = Hasher()
        first.combine(0x6670_7365_6564 as UInt64)
        second.combine(0x6670_7365_6565 as UInt64)
        return UUIDBits(high: UInt64(bitPattern: Int64(first.finalize())), low: UInt64(bitPattern: Int64(second.finalize())))
    }

    /// Ids fingerprinted.
    public var count: Int {
        switch storage {
        case .held(let values): return values.count
        case .file(let file): return file.count
        }
    }

    /// True when the fingerprints are read from a file as they are asked for.
    public var isInFile: Bool { if case .file = storage { return true } else { return false } }

    /// The fingerprints, strictly increasing (read whole from a file; nil when it cannot be read back).
    public var sortedIfReadable: [UInt64]? {
        switch storage {
        case .held(let values): return values
        case .file(let file): return file.all()
        }
    }

    /// The fingerprints, strictly increasing (empty when a file cannot be read back: callers that
    /// write them hold them in memory).
    public var sorted: [UInt64] { sortedIfReadable ?? [] }

    /// True when `fingerprint` is one of these (or, in a file that cannot be read back, may be).
    public func contains(_ fingerprint: UInt64) -> Bool {
        switch storage {
        case .held(let values): return IDFingerprintsSearch.present(values.count, fingerprint) { values[$0] } == true
        case .file(let file): return IDFingerprintsSearch.present(file.count, fingerprint, file.value(at:)) != false
        }
    }

    /// True when any of `fingerprints` is one of these (or may be, as `contains`).
    public func containsAny(of fingerprints: some Collection<UInt64>) -> Bool {
        switch storage {
        case .held: return fingerprints.contains(where: contains)
        case .file(let file): return file.containsAny(of: fingerprints.sorted())
        }
    }

    /// These and `more` (fingerprints under the same seed) merged; nil when any of them repeats (or
    /// these are in a file that cannot be read back).
    public func merged(with more: [UInt64]) -> IDFingerprints? {
        guard let sorted = sortedIfReadable else { return nil }
        let added = more.sorted()
        var out: [UInt64] = []
        out.reserveCapacity(sorted.count + added.count)
        var i = 0, j = 0
        while i < sorted.count || j < added.count {
            let next: UInt64
            if j == added.count || (i < sorted.count && sorted[i] < added[j]) {
                next = sorted[i]; i += 1
            } else {
                next = added[j]; j += 1
            }
            if let last = out.last, last >= next { return nil }
            out.append(next)
        }
        return IDFingerprints(seed: seed, checkedSorted: out)
    }

    /// Equal seeds and fingerprints, wherever they are kept.
    public static func == (lhs: IDFingerprints, rhs: IDFingerprints) -> Bool {
        lhs.seed == rhs.seed && lhs.count == rhs.count && lhs.sortedIfReadable != nil && lhs.sortedIfReadable == rhs.sortedIfReadable
    }
}

// MARK: - FingerprintFile

/// `count` fingerprints, strictly increasing, that `read` gives back from where a checkpoint's file
/// keeps them: `read(first, buffer)` fills `buffer` with the fingerprints from index `first` on and
/// says whether it could (the shell's `pread`; the core does no I/O). Nothing is held but a read's
/// buffer: a lookup reads the values a binary search visits, a batch reads each region once.
public final class FingerprintFile: Sendable {
    /// Fingerprints in the file.
    public let count: Int
    private let read: @Sendable (_ first: Int, _ into: UnsafeMutableBufferPointer<UInt64>) -> Bool

    /// Values per region a batch reads at once (64 KiB).
    static let region = 8_192

    /// `count` fingerprints that `read` gives back.
    public init(count: Int, read: @escaping @Sendable (_ first: Int, _ into: UnsafeMutableBufferPointer<UInt64>) -> Bool) {
        self.count = count
        self.read = read
    }

    /// The fingerprint at `index`, nil when it cannot be read.
    func value(at index: Int) -> UInt64? {
        var value: UInt64 = 0
        let ok = withUnsafeMutablePointer(to: &value) { read(index, UnsafeMutableBufferPointer(start: $0, count: 1)) }
        return ok ? value : nil
    }

    /// Every fingerprint, nil when they cannot be read.
    func all() -> [UInt64]? {
        var ok = true
        let values = [UInt64](unsafeUninitializedCapacity: count) { buffer, initialized in
            ok = count == 0 || read(0, UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
            initialized = ok ? count : 0
        }
        return ok ? values : nil
    }

    /// True when any of `queries` (increasing) is here, or when the file cannot be read. Few
    /// queries search alone; more walk the regions that can hold them in order, each read once.
    func containsAny(of queries: [UInt64]) -> Bool {
        guard count > 0, !queries.isEmpty else { return false }
        let regions = (count + Self.region - 1) / Self.region
        // About 20 reads of 8 bytes a query against one read of 64 KiB (about 16 of them) a region.
        if queries.count * 20 < regions * 16 {
            return queries.contains { IDFingerprintsSearch.present(count, $0, value(at:)) != false }
        }
        var buffer = [UInt64](repeating: 0, count: Self.region)
        var q = 0
        for r in 0..<regions where q < queries.count {
            let first = r * Self.region, length = Swift.min(Self.region, count - first)
            let ok = buffer.withUnsafeMutableBufferPointer { read(first, UnsafeMutableBufferPointer(rebasing: $0[0..<length])) }
            guard ok else { return true }
            // The queries this region's values cover: those up to its last value.
            var i = 0
            while q < queries.count, queries[q] <= buffer[length - 1] {
                while buffer[i] < queries[q] { i += 1 }
                if buffer[i] == queries[q] { return true }
                q += 1
            }
        }
        return false
    }
}

/// The binary search `IDFingerprints` and `FingerprintFile` share.
enum IDFingerprintsSearch {
    /// Over `count` increasing values `value(i)`: true found, false absent, nil unreadable.
    static func present(_ count: Int, _ fingerprint: UInt64, _ value: (Int) -> UInt64?) -> Bool? {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            guard let at = value(mid) else { return nil }
            if at < fingerprint { low = mid + 1 } else { high = mid }
        }
        guard low < count else { return false }
        guard let at = value(low) else { return nil }
        return at == fingerprint
    }
}
