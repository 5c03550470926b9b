import LedgerDomain
import Synchronization
import Testing

// MARK: - FingerprintFileTests

/// A checkpoint's id fingerprints left in its file (`FingerprintFile`) answer as the same
/// fingerprints held in memory: single lookups, batches of few ids (searched one by one) and of many
/// (the regions walked in order), merging, equality; a file that cannot be read back answers "maybe".
struct FingerprintFileTests {
    /// `count` distinct sorted values from a seeded generator (SplitMix64).
    private func sortedValues(_ count: Int, seed: UInt64) -> [UInt64] {
        var state = seed, out = Set<UInt64>()
        while out.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            out.insert(z ^ (z >> 31))
        }
        return out.sorted()
    }

    /// The values as a file would give them back, counting the values read; `failing` makes every
    /// read fail; `served`, when given, is what the file holds by the time it is read back (the
    /// regions' digests are those of `values`, as a checkpoint's reader recorded them).
    private func file(_ values: [UInt64], reads: ReadCount? = nil, failing: Bool = false, served: [UInt64]? = nil) -> FingerprintFile {
        var regions = FingerprintFile.Regions()
        for value in values { regions.add(value) }
        let held = served ?? values
        return FingerprintFile(count: values.count, regions: regions.finish()) { first, into in
            guard !failing, first >= 0, into.count <= held.count - first else { return false }
            for i in 0..<into.count { into[i] = held[first + i] }
            reads?.values.add(into.count, ordering: .relaxed)
            return true
        }
    }

    /// Values read back, counted across the reads' closures.
    final class ReadCount: Sendable {
        let values = Atomic<Int>(0)
    }

    private let seed = UUIDBits(high: 7, low: 8)

    @Test(arguments: [0, 1, 2, 100, 8_191, 8_192, 8_193, 50_000])
    func answersAsTheHeldFingerprintsDo(_ count: Int) throws {
        let all = sortedValues(count + 400, seed: UInt64(count) &+ 3)
        // Every other value is in the set; the rest are absent queries between and around them.
        let inSet = stride(from: 0, to: all.count, by: 2).prefix(count).map { all[$0] }
        let absent = Array(Set(all).subtracting(inSet))
        let held = try #require(IDFingerprints(seed: seed, sorted: inSet))
        let inFile = IDFingerprints(seed: seed, file: file(inSet))
        #expect(inFile.isInFile && !held.isInFile && inFile.count == held.count)
        var mismatches = 0
        for query in inSet.prefix(300) + absent.prefix(300) where held.contains(query) != inFile.contains(query) { mismatches += 1 }
        #expect(mismatches == 0, "single lookups")
        // Few queries and many, with and without one that is there.
        for size in [1, 5, 90, 120, 400, 5_000] {
            let queries = Array(absent.prefix(size))
            #expect(!inFile.containsAny(of: queries), "\(size) absent queries")
            #expect(inFile.containsAny(of: queries) == held.containsAny(of: queries))
            guard let present = inSet.last else { continue }
            for at in [0, queries.count / 2, queries.count] {
                var withOne = queries
                withOne.insert(inSet[inSet.count / 3], at: at)
                withOne.append(present)
                withOne.removeLast()
                #expect(inFile.containsAny(of: withOne), "a present value at \(at) of \(size)")
            }
        }
        #expect(inFile == held)
        let added = Array(absent.prefix(50))
        #expect(inFile.merged(with: added) == held.merged(with: added))
        #expect(inFile.merged(with: [inSet.first ?? 1, inSet.first ?? 1]) == nil)
        #expect(inFile.sorted == inSet)
    }

    @Test func manyQueriesReadEachRegionOnce() {
        let values = sortedValues(40_000, seed: 21)
        let reads = ReadCount()
        let inFile = IDFingerprints(seed: seed, file: file(values, reads: reads))
        let queries = sortedValues(3_000, seed: 99)  // absent: another generator's values
        #expect(!inFile.containsAny(of: queries))
        #expect(reads.values.load(ordering: .relaxed) <= values.count, "read at most once each")
    }

    @Test func aFileThatCannotBeReadBackAnswersMaybe() {
        let values = sortedValues(20_000, seed: 5)
        let broken = IDFingerprints(seed: seed, file: file(values, failing: true))
        // Queries within the values' range need a region read back (one below the first value is
        // known absent from the first region's recorded start).
        #expect(broken.contains(values[12_000] &+ 1))
        #expect(broken.containsAny(of: [values[500] &+ 1]))
        #expect(!broken.contains(values[0] &- 1))
        #expect(broken.containsAny(of: sortedValues(5_000, seed: 6)))
        #expect(broken.merged(with: [1]) == nil)
        #expect(broken.sortedIfReadable == nil)
    }

    @Test func valuesWrittenOverAfterTheSealReadAsMaybe() {
        let values = sortedValues(20_000, seed: 8)
        let target = values[12_000]
        // The file changed in place after its reader checked the seal: the value a repeat would
        // match is gone (replaced by its neighbour's, still increasing), or a region cut short.
        var edited = values
        edited[12_000] = values[11_999] &+ 1
        for served in [edited, Array(values.dropLast(5))] {
            let inFile = IDFingerprints(seed: seed, file: file(values, served: served))
            #expect(inFile.contains(target), "one lookup")
            #expect(inFile.containsAny(of: [target]), "a few")
            #expect(inFile.containsAny(of: sortedValues(3_000, seed: 77) + [target]), "many")
            #expect(inFile.sortedIfReadable == nil)
        }
        // An untouched region still answers: the edit is in another one.
        let far = values[100]
        let inFile = IDFingerprints(seed: seed, file: file(values, served: edited))
        #expect(inFile.contains(far) && !inFile.contains(values[100] &+ 1))
    }

    @Test func aFinderAfterFingerprintsInAFileFindsARepeatAcrossThem() throws {
        let ids = (0..<30_000).map { UUIDBits(high: 0xABCD, low: UInt64($0) &* 0x9E37_79B9) }
        let prior = try #require(IDFingerprints(seed: seed, ids: ids.prefix(25_000)))
        let priorInFile = IDFingerprints(seed: seed, file: file(prior.sorted))
        for tail in [Array(ids[25_000...]), Array(ids[25_000..<25_010])] {
            var clean = RepeatedIDFinder(after: priorInFile)
            for id in tail { clean.add(id) }
            #expect(!clean.mayRepeat(), "\(tail.count) new ids")
            var repeated = RepeatedIDFinder(after: priorInFile)
            for id in tail { repeated.add(id) }
            repeated.add(ids[12_345])
            #expect(repeated.mayRepeat(), "a prior id again after \(tail.count) new ones")
        }
    }
}
