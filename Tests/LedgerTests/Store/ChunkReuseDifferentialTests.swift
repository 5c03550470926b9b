import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - ChunkReuseDifferentialTests

/// A read reuses its chunks' buffers (`BatchMemory`) and reads the log 512 KiB at a time, folding
/// each chunk on one thread while the next is read and hashed on another. Over generated logs of
/// several chunks (seeds apart, so lines end at other places in each chunk), the views that read
/// folds are the views of a plain loop that decodes each line on its own, with no chunk, no
/// buffer and no second thread: a line read from a recycled buffer's stale bytes, or a line cut
/// at a chunk's edge, would make them differ.
struct ChunkReuseDifferentialTests {
    /// The views of `bytes` by a plain loop: each line decoded and checked on its own, in order.
    private func plainViews(_ bytes: [UInt8]) -> LedgerViews {
        var checker = ChainChecker()
        var views = LedgerViews()
        for line in splitLines(bytes) {
            Array(line.dropLast()).withUnsafeBufferPointer { body in
                if case .event(let event, _, _) = LogScanner.decode(body, offset: 0, terminated: true, checker: &checker) { views.apply(event) }
            }
        }
        return views
    }

    @Test(arguments: [(6_000, 3), (9_000, 11), (7_500, 29)])
    func aReadThatReusesItsChunksFoldsWhatAPlainLoopFolds(events: Int, seed: Int) throws {
        try withTempDirectory { dir in
            let log = try GeneratedLog.make(in: dir, events: events, seed: seed)
            let bytes = try readBytes(log)
            #expect(bytes.count > 5 * LogScanner.chunkSize, "several chunks, so that buffers are recycled")
            let loaded = try ViewLoader.load(path: log, asOf: nil, now: Timestamp(millis: 0), usingCheckpoint: false)
            let plain = plainViews(bytes)
            #expect(plain.users.rows.count > 100)
            #expect(loaded.views.users.rows == plain.users.rows, "seed \(seed): users")
            #expect(loaded.views.sessions == plain.sessions, "seed \(seed): sessions")
            #expect(loaded.views.images == plain.images, "seed \(seed): images")
            #expect(loaded.views.registrations == plain.registrations, "seed \(seed): registrations")
            #expect(loaded.views == plain, "seed \(seed): the views as a whole")
        }
    }
}
