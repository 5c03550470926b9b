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
        case .file(let file): return file.contains(fingerprint) != false
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
/// says whether it could (the shell's `pread`; the core does no I/O). They are read a region of
/// `region` values (64 KiB) at a time, and each region must hash as it did when the checkpoint was
/// read and its seal checked (`Regions`: its first value and a digest under this process's random
/// seed, 16 bytes a region held): bytes written over the file in place since, which the seal can no
/// longer catch, read as "maybe" (the read starts over the strict way), never as fewer ids.
public final class FingerprintFile: Sendable {
    /// Fingerprints in the file.
    public let count: Int
    private let regions: [Region]
    private let read: @Sendable (_ first: Int, _ into: UnsafeMutableBufferPointer<UInt64>) -> Bool

    /// Values per region (64 KiB).
    public static let region = 8_192

    /// A region's first value and the digest of its values.
    public struct Region: Sendable, Equatable {
        let first: UInt64
        let digest: Int
    }

    /// The regions of fingerprints given one after another, as a checkpoint's reader meets them.
    public struct Regions {
        private(set) var regions: [Region] = []
        private var hasher = Hasher()
        private var first: UInt64 = 0
        private var inRegion = 0

        /// None yet.
        public init() {}

        /// Takes the next value.
        public mutating func add(_ value: UInt64) {
            if inRegion == 0 { first = value }
            hasher.combine(value)
            inRegion += 1
            if inRegion == FingerprintFile.region { close() }
        }

        /// The regions of every value added.
        public mutating func finish() -> [Region] {
            if inRegion > 0 { close() }
            return regions
        }

        private mutating func close() {
            regions.append(Region(first: first, digest: hasher.finalize()))
            hasher = Hasher()
            inRegion = 0
        }
    }

    /// `count` fingerprints that `read` gives back, whose regions `regions` describes (`Regions`).
    public init(count: Int, regions: [Region],
                read: @escaping @Sendable (_ first: Int, _ into: UnsafeMutableBufferPointer<UInt64>) -> Bool) {
        self.count = count
        self.regions = regions
        self.read = read
    }

    /// Region `r`'s values into `buffer` (at least `region` long), checked against its digest:
    /// how many, nil when they cannot be read or differ from what was sealed.
    private func load(_ r: Int, into buffer: UnsafeMutableBufferPointer<UInt64>) -> Int? {
        guard r >= 0, r < regions.count, regions.count == (count + Self.region - 1) / Self.region else { return nil }
        let first = r * Self.region, length = Swift.min(Self.region, count - first)
        guard read(first, UnsafeMutableBufferPointer(rebasing: buffer[0..<length])) else { return nil }
        var hasher = Hasher()
        for i in 0..<length { hasher.combine(buffer[i]) }
        guard hasher.finalize() == regions[r].digest, buffer[0] == regions[r].first else { return nil }
        return length
    }

    /// True when `fingerprint` is here; nil when its region cannot be read back as sealed.
    func contains(_ fingerprint: UInt64) -> Bool? {
        guard count > 0 else { return false }
        // The last region whose first value is at most `fingerprint`.
        guard let r = IDFingerprintsSearch.lastAtMost(regions.count, fingerprint, { regions[$0].first }) else { return false }
        var buffer = [UInt64](repeating: 0, count: Self.region)
        return buffer.withUnsafeMutableBufferPointer { buffer -> Bool? in
            guard let length = load(r, into: buffer) else { return nil }
            return IDFingerprintsSearch.present(length, fingerprint) { buffer[$0] }
        }
    }

    /// Every fingerprint, nil when they cannot be read back as sealed.
    func all() -> [UInt64]? {
        var out: [UInt64] = []
        out.reserveCapacity(count)
        var buffer = [UInt64](repeating: 0, count: Self.region)
        for r in regions.indices {
            guard let length = buffer.withUnsafeMutableBufferPointer({ load(r, into: $0) }) else { return nil }
            out.append(contentsOf: buffer[0..<length])
        }
        return out.count == count ? out : nil
    }

    /// True when any of `queries` (increasing) is here, or when a region they need cannot be read
    /// back as sealed: each region that can hold one of them is read once, in order.
    func containsAny(of queries: [UInt64]) -> Bool {
        guard count > 0, !queries.isEmpty else { return false }
        var buffer = [UInt64](repeating: 0, count: Self.region)
        var q = 0
        while q < queries.count {
            // Below the first region: not here.
            guard let r = IDFingerprintsSearch.lastAtMost(regions.count, queries[q], { regions[$0].first }) else { q += 1; continue }
            guard let length = buffer.withUnsafeMutableBufferPointer({ load(r, into: $0) }) else { return true }
            let next = r + 1 < regions.count ? regions[r + 1].first : UInt64.max
            var i = 0
            // The queries this region covers: those below the next region's first value.
            while q < queries.count, queries[q] < next || r + 1 == regions.count {
                while i < length, buffer[i] < queries[q] { i += 1 }
                if i < length, buffer[i] == queries[q] { return true }
                q += 1
            }
        }
        return false
    }
}

/// The binary searches `IDFingerprints` and `FingerprintFile` share.
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

    /// The last index of `count` increasing values `value(i)` whose value is at most `target`; nil
    /// when the first is above it.
    static func lastAtMost(_ count: Int, _ target: UInt64, _ value: (Int) -> UInt64) -> Int? {
        var low = 0, high = count  // the first index above target
        while low < high {
            let mid = (low + high) / 2
            if value(mid) <= target { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : low - 1
    }
}
