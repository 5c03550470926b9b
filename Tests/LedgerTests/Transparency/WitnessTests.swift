import Foundation
import Glibc
import LedgerDomain
import LedgerKit
import Synchronization
import Testing

// MARK: - WitnessTests

/// The witness in-process (C2SP tlog-witness `add-checkpoint`): a fork is refused and the state
/// left as it was, a replayed older head is refused, a valid extension is cosigned (and the
/// cosignature verifies under the witness's vkey), each refusal has its code and status, and a
/// state file that is edited, or a link, is never trusted.
@Suite struct WitnessTests {
    /// A witness of `log` with its state in `dir`.
    func witness(_ log: NoteSigner, _ dir: String, signer: NoteSigner? = nil) throws -> Witness {
        try Witness(logKey: log.verifierKey, signer: signer ?? TestKeys.witness(), statePath: dir + "/state", clock: FixedClock())
    }

    /// The refusal `body` throws (nil when it cosigns).
    func refusal(_ body: () throws -> Void) -> WitnessError? {
        do { try body(); return nil } catch let error as WitnessError { return error } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test("two logs that share a prefix then differ: the second's head is refused, the state unchanged")
    func forkRefused() throws {
        try withTempDirectory { dir in
            let key = try TestKeys.log()
            let honest = SyntheticLog(signer: key, size: 40, shared: 30, prefix: "honest")
            let forked = SyntheticLog(signer: key, size: 40, shared: 30, prefix: "forked")
            let witness = try witness(key, dir)
            _ = try witness.addCheckpoint(honest.request(old: 0, size: 30))
            let first = try witness.addCheckpoint(honest.request(old: 30))
            #expect(first.body.size == 40 && first.oldSize == 30)
            let state = try readBytes(dir + "/state")
            // The forked log proves its own 40 from the shared 30: a valid proof of another tree.
            let fork = refusal { _ = try witness.addCheckpoint(forked.request(old: 30)) }
            #expect(fork?.code == .sizeConflict && fork?.heldSize == 40)
            let same = refusal { _ = try witness.addCheckpoint(forked.request(old: 40)) }
            #expect(same?.code == .badProof && same?.code.httpStatus == 422)
            var longer = forked
            for i in 40..<50 { longer.append("forked-\(i)") }
            let extended = refusal { _ = try witness.addCheckpoint(longer.request(old: 40)) }
            #expect(extended?.code == .badProof)
            // Even the honest log's own proof cannot carry the forked head.
            var grown = honest
            for i in 40..<50 { grown.append("honest-\(i)") }
            let proof = try grown.tree.consistencyProof(oldSize: 40, newSize: 50)
            let lie = Array(("old 40\n" + proof.map { $0.base64 + "\n" }.joined() + "\n" + (try longer.head())).utf8)
            #expect(refusal { _ = try witness.addCheckpoint(lie) }?.code == .badProof)
            #expect(try readBytes(dir + "/state") == state)
        }
    }

    @Test("a replayed older head is refused; a valid extension is cosigned and its cosignature verifies under the witness's vkey")
    func replayAndExtension() throws {
        try withTempDirectory { dir in
            let key = try TestKeys.log(), witnessKey = try TestKeys.witness()
            var chain = SyntheticLog(signer: key, size: 100)
            let witness = try witness(key, dir, signer: witnessKey)
            _ = try witness.addCheckpoint(chain.request(old: 0, size: 60))
            _ = try witness.addCheckpoint(chain.request(old: 60, size: 100))
            let state = try readBytes(dir + "/state")
            // The older head again, as a log that forgot the witness moved on would send it.
            #expect(refusal { _ = try witness.addCheckpoint(chain.request(old: 60, size: 60)) }?.code == .sizeConflict)
            #expect(refusal { _ = try witness.addCheckpoint(chain.request(old: 0, size: 60)) }?.heldSize == 100)
            // Claiming the held size with the older head: old past the checkpoint.
            let back = Array(("old 100\n\n" + (try chain.head(60))).utf8)
            #expect(refusal { _ = try witness.addCheckpoint(back) }?.code == .badRequest)
            #expect(try readBytes(dir + "/state") == state)
            for i in 100..<137 { chain.append("leaf-\(i)") }
            let cosigned = try witness.addCheckpoint(chain.request(old: 100))
            #expect(cosigned.body.size == 137 && cosigned.oldSize == 100 && cosigned.timestamp == UInt64(FixedClock.start.millis / 1000))
            let note = try chain.head() + cosigned.line + "\n"
            let body = try SignedHead.verify(Array(note.utf8), logKey: key.verifierKey, witnessKeys: [witnessKey.verifierKey])
            #expect(body.size == 137)
            // The state is that cosigned head, and the same head again is cosigned again.
            #expect(try SignedHead.verify(readBytes(dir + "/state"), logKey: key.verifierKey, witnessKeys: [witnessKey.verifierKey]).size == 137)
            #expect(try witness.addCheckpoint(chain.request(old: 137)).body.size == 137)
        }
    }

    @Test("each refusal has its code: unknown origin, bad signature, bad request, non-empty proof from 0, bad size-0 root")
    func refusals() throws {
        try withTempDirectory { dir in
            let key = try TestKeys.log()
            let chain = SyntheticLog(signer: key, size: 8)
            let witness = try witness(key, dir)
            let other = SyntheticLog(signer: try TestKeys.log("example.com/other", seed: 5), size: 8)
            #expect(refusal { _ = try witness.addCheckpoint(other.request(old: 0)) }?.code == .unknownOrigin)
            let impostor = SyntheticLog(signer: try TestKeys.log("example.com/ledger", seed: 6), size: 8)
            #expect(refusal { _ = try witness.addCheckpoint(impostor.request(old: 0)) }?.code == .badSignature)
            let unsigned = Array(("old 0\n\n" + (try CheckpointBody(origin: "example.com/ledger", size: 8, root: chain.root(8)).text) + "\n").utf8)
            #expect(refusal { _ = try witness.addCheckpoint(unsigned) }?.code == .badRequest)
            for bad in ["", "old 0\n", "old 00\n\n", "old -1\n\n", "old 0\nnot base64\n\nx\n", "new 0\n\n", "old 0\n\n\n"] {
                #expect(refusal { _ = try witness.addCheckpoint(Array(bad.utf8) + Array((try chain.head()).utf8)) } != nil, "\(bad.debugDescription)")
            }
            let proofFromZero = Array(("old 0\n\(Digest32.zero.base64)\n\n" + (try chain.head())).utf8)
            #expect(refusal { _ = try witness.addCheckpoint(proofFromZero) }?.code == .badProof)
            let emptyWrong = Array(("old 0\n\n" + (try SignedHead.sign(signer: key, size: 0, root: .zero))).utf8)
            #expect(refusal { _ = try witness.addCheckpoint(emptyWrong) }?.code == .badProof)
            let tooMany = Array(("old 4\n" + String(repeating: Digest32.zero.base64 + "\n", count: 64) + "\n" + (try chain.head())).utf8)
            #expect(refusal { _ = try witness.addCheckpoint(tooMany) }?.code == .badRequest)
            #expect(!FileSystem.exists(dir + "/state"))
            #expect(try witness.addCheckpoint(chain.request(old: 0)).body.size == 8)
            #expect(WitnessError.Code.allCases.map(\.httpStatus) == [404, 403, 400, 409, 422, 500])
        }
    }

    @Test("a state file edited to another size or root is refused as damaged; a symlinked state is not followed")
    func stateAttacks() throws {
        try withTempDirectory { dir in
            let key = try TestKeys.log()
            let chain = SyntheticLog(signer: key, size: 20)
            let witness = try witness(key, dir)
            _ = try witness.addCheckpoint(chain.request(old: 0, size: 10))
            let state = try readText(dir + "/state")
            // Rolled forward to a size the log signed but the witness never cosigned.
            let forged = state.replacingFirst("\n10\n", "\n20\n").replacingFirst(try chain.root(10).base64, try chain.root(20).base64)
            try writeBytes(Array(forged.utf8), to: dir + "/state")
            #expect(refusal { _ = try witness.addCheckpoint(chain.request(old: 20)) }?.code == .stateDamaged)
            try writeBytes(Array("garbage".utf8), to: dir + "/state")
            #expect(refusal { _ = try witness.addCheckpoint(chain.request(old: 10)) }?.code == .stateDamaged)
            // Another witness's state (its own cosignature missing) is not this one's.
            try writeBytes(Array(state.utf8), to: dir + "/state")
            let stranger = try self.witness(key, dir, signer: TestKeys.witness("witness.example/w2", seed: 3))
            #expect(refusal { _ = try stranger.addCheckpoint(chain.request(old: 10)) }?.code == .stateDamaged)
            // A link at the state's path: never read through, never replaced.
            try writeBytes(Array(state.utf8), to: dir + "/elsewhere")
            try FileManager.default.removeItem(atPath: dir + "/state")
            try FileManager.default.createSymbolicLink(atPath: dir + "/state", withDestinationPath: dir + "/elsewhere")
            #expect(throws: SystemError.self) { _ = try witness.addCheckpoint(chain.request(old: 10)) }
            #expect(try readText(dir + "/elsewhere") == state)
        }
    }

    @Test("two witness runs at once never roll the state back: the read, check and write happen under one lock")
    func concurrentRuns() throws {
        try withTempDirectory { dir in
            let key = try TestKeys.log()
            let chain = SyntheticLog(signer: key, size: 64)
            let witness = try witness(key, dir)
            _ = try witness.addCheckpoint(chain.request(old: 0, size: 16))
            let requests = try [32, 48, 64].map { try chain.request(old: 16, size: $0) } + [try chain.request(old: 32, size: 64)]
            let outcomes = Mutex<[UInt64]>([])
            let logKey = key.verifierKey, signer = try TestKeys.witness(), path = dir + "/state"
            DispatchQueue.concurrentPerform(iterations: requests.count) { i in
                // One witness per run, as separate processes would be.
                guard let run = try? Witness(logKey: logKey, signer: signer, statePath: path, clock: FixedClock()) else { return }
                if let size = try? run.addCheckpoint(requests[i]).body.size { outcomes.withLock { $0.append(size) } }
            }
            let sizes = outcomes.withLock { $0 }
            #expect(!sizes.isEmpty)
            let held = try SignedHead.verify(readBytes(dir + "/state"), logKey: key.verifierKey).size
            #expect(held == sizes.max())
        }
    }
}
