import Foundation
import LedgerDomain
import LedgerKit
import Testing

/// What someone with write access to the data directory can do to the caches and the history, and
/// what `verify`, the reads and `recover` then say, end to end through the built `ledger`.
@Suite struct CacheAndAnchorCLITests {
    /// A data directory with a live user with a profile image, a live user without, a registration
    /// rejected for a taken email and two wrong-password sign-ins; the writers' index beside it.
    private func populated(_ dir: LedgerDir) throws -> (image: String, failedRegistration: String) {
        let alice = try parseObject(try dir.register(email: "alice@example.com", username: "Alice", image: samplePNG).stdout)
        _ = try dir.register(email: "bob@example.com", username: "Bob")
        let failed = try parseObject(try dir.register(email: "alice@example.com", username: "Again").stdout)
        #expect(failed["status"] as? String == "failed")
        for _ in 0..<2 { _ = try dir.login(email: "bob@example.com", password: "wrong password") }
        let image = try #require(alice["profileImageName"] as? String)
        return (image, try #require(failed["registration"] as? String))
    }

    /// `verify --json` (plus `arguments`), parsed, with its exit status.
    private func verify(_ dir: LedgerDir, _ arguments: [String] = []) throws -> (status: Int32, object: [String: Any], kinds: [String]) {
        let result = try dir.run(["verify", "--json"] + arguments)
        let object = try parseObject(result.stdout)
        let problems = object["problems"] as? [[String: Any]] ?? []
        return (result.status, object, problems.compactMap { $0["kind"] as? String })
    }

    /// The messages of `verify --json`'s problems of `kind`.
    private func messages(_ object: [String: Any], kind: String) -> [String] {
        (object["problems"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == kind }.compactMap { $0["message"] as? String }
    }

    /// Saves, with the library's own writer, a checkpoint of the views the log's events give without
    /// those `skipping` drops, claiming the log's head: a doctored checkpoint, sealed as ledger seals one.
    private func writeDoctoredCheckpoint(_ dir: LedgerDir, skipping: (RecordedEvent) -> Bool) throws {
        let events = try FileEventStore(directory: dir.path).readAll(from: 1)
        var views = LedgerViews()
        for event in events where !skipping(event) { views.apply(event) }
        let last = try #require(events.last)
        views.head = Head(seq: last.seq, hash: last.envelope.hash)
        views.events = events.count
        let bytes = try dir.logBytes()
        let lastLine = try #require(splitLines(bytes).last)
        Checkpoint(views: views, ids: try LogRewriting.fingerprints(ofLog: dir.logPath), lineStart: bytes.count - lastLine.count,
                   offset: bytes.count).save(forLog: dir.logPath)
        #expect(FileSystem.exists(Checkpoint.path(forLog: dir.logPath)))
    }

    // MARK: - Caches checked by verify

    @Test func anUntouchedDataDirectoryWithBothCachesVerifies() throws {
        try withLedgerDir { dir in
            _ = try populated(dir)
            #expect(try dir.run(["replay"], env: ["LEDGER_CHECKPOINT_EVERY": "1"]).status == 0)
            #expect(FileSystem.exists(dir.logPath + ".index") && FileSystem.exists(Checkpoint.path(forLog: dir.logPath)))
            let checked = try verify(dir)
            #expect(checked.status == 0 && checked.kinds.isEmpty, "\(checked.object)")
            // The caches cover a prefix once the log grows: still no mismatch.
            _ = try dir.login(email: "alice@example.com", password: "wrong password")
            let grown = try verify(dir)
            #expect(grown.status == 0 && grown.kinds.isEmpty, "\(grown.object)")
        }
    }

    @Test(arguments: [5, 7, 8] as [UInt8])
    func anEditedIndexIsACacheMismatch(_ tag: UInt8) throws {
        try withLedgerDir { dir in
            _ = try populated(dir)
            let path = dir.logPath + ".index"
            let before = try readBytes(path)
            #expect(try verify(dir).status == 0)
            // WritersIndex's layout: a 4096-byte header, then 48-byte slots, the tag first. An email
            // slot (5) holds the uid of its last account at +24, an account slot (7) its status at +4, a
            // failures slot (8) the count of consecutive wrong passwords at +4: one byte of them changed.
            var bytes = before
            let slot = try #require(stride(from: 4096, to: bytes.count, by: 48).first { bytes[$0] == tag })
            let at = slot + (tag == 5 ? 24 : 4)
            bytes[at] = bytes[at] == 1 ? 2 : 1
            try writeBytes(bytes, to: path)
            let checked = try verify(dir)
            #expect(checked.status == 1)
            #expect(checked.kinds == ["cache-mismatch"], "\(checked.object)")
            #expect(messages(checked.object, kind: "cache-mismatch").first?.contains(path) == true)
            #expect(checked.object["ok"] as? Bool == false)
            #expect(try readBytes(path) == bytes, "verify never changes the index")
            let human = try dir.run(["verify"])
            #expect(human.status == 1 && human.stdout.contains("cache-mismatch: \(path)"), "\(human)")
        }
    }

    /// The header's last time (offset 136) set a day ahead: writers stamp new events from the line
    /// they verify, not from it (the lockout window cannot be moved), and `verify` names the index.
    @Test func anIndexHeaderTimeMovedAheadMovesNoStampAndIsACacheMismatch() throws {
        try withLedgerDir { dir in
            _ = try populated(dir)
            let path = dir.logPath + ".index"
            var bytes = try readBytes(path)
            let header = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 136, as: Int64.self) }
            let ahead = header + 24 * 3600 * 1000
            withUnsafeBytes(of: ahead) { for (i, byte) in $0.enumerated() { bytes[136 + i] = byte } }
            try writeBytes(bytes, to: path)
            #expect(try verify(dir).kinds == ["cache-mismatch"])
            _ = try dir.login(email: "bob@example.com", password: "wrong password")
            let last = try #require(try dir.events().last)
            let text = try #require(last["at"] as? String)
            let at = try #require(Timestamp(rfc3339: text))
            #expect(at.millis < ahead, "the new event's time does not come from the edited header")
        }
    }

    @Test func aResealedCheckpointWithoutAFailedRegistrationIsACacheMismatch() throws {
        try withLedgerDir { dir in
            let (_, failed) = try populated(dir)
            try writeDoctoredCheckpoint(dir) { $0.stream == StreamCategory.registration.stream(failed) }
            // The reads trust it (its seal holds): the failed registration is gone from them.
            let audit = try dir.auditReport()
            #expect((audit["failedRegistrations"] as? [Any])?.isEmpty == true, "\(audit)")
            let path = Checkpoint.path(forLog: dir.logPath)
            let saved = try readBytes(path)
            let checked = try verify(dir)
            #expect(checked.status == 1)
            #expect(checked.kinds == ["cache-mismatch"], "\(checked.object)")
            #expect(messages(checked.object, kind: "cache-mismatch").first?.contains(path) == true)
            #expect(try readBytes(path) == saved, "verify never changes the checkpoint")
        }
    }

    /// The header's end offset (bytes 16–23) with its sign bit set, the seal left as it was: an
    /// offset no log has, read before the seal is checked. Reads and `verify` ignore the checkpoint.
    @Test func aCheckpointHeaderWithANegativeOffsetIsIgnored() throws {
        try withLedgerDir { dir in
            _ = try populated(dir)
            let full = try dir.run(["replay", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "0"])
            #expect(try dir.run(["replay", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "1"]).stdout == full.stdout)
            let path = Checkpoint.path(forLog: dir.logPath)
            var bytes = try readBytes(path)
            bytes[23] |= 0x80
            try writeBytes(bytes, to: path)
            _ = try dir.login(email: "bob@example.com", password: "wrong password")
            let after = try dir.run(["replay", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "1000"])
            #expect(after.status == 0, "\(after)")
            #expect(after.stdout == (try dir.run(["replay", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "0"])).stdout)
            #expect(try verify(dir).status == 0)
        }
    }

    @Test func aResealedCheckpointWithARenamedEmailIsACacheMismatch() throws {
        try withLedgerDir { dir in
            _ = try populated(dir)
            let events = try FileEventStore(directory: dir.path).readAll(from: 1)
            var views = LedgerViews()
            for var event in events {
                if case .accountCreated(var created) = event.event, created.email == "bob@example.com" {
                    created.email = "mallory@example.com"
                    event.event = .accountCreated(created)
                }
                views.apply(event)
            }
            let bytes = try dir.logBytes()
            let lastLine = try #require(splitLines(bytes).last)
            Checkpoint(views: views, ids: try LogRewriting.fingerprints(ofLog: dir.logPath), lineStart: bytes.count - lastLine.count,
                       offset: bytes.count).save(forLog: dir.logPath)
            let checked = try verify(dir)
            #expect(checked.status == 1 && checked.kinds == ["cache-mismatch"], "\(checked.object)")
        }
    }

    // MARK: - Nothing destructive on a cache's word

    @Test func recoverKeepsALiveImageADoctoredCheckpointForgets() throws {
        try withLedgerDir { dir in
            let (image, _) = try populated(dir)
            #expect(dir.imageFiles() == [image])
            try writeDoctoredCheckpoint(dir) { if case .imageStored = $0.event { true } else { false } }
            let recovered = try dir.run(["recover", "--json"])
            #expect(recovered.status == 0, "\(recovered)")
            #expect(dir.imageFiles() == [image], "the live user's profile image is kept")
        }
    }

    // MARK: - Checkpoint reads see repeated ids

    @Test func aRepeatedIdAfterTheCheckpointIsRefusedByReadsFromIt() throws {
        try withLedgerDir { dir in
            _ = try populated(dir)
            #expect(try dir.run(["replay"], env: ["LEDGER_CHECKPOINT_EVERY": "1"]).status == 0)
            let checkpoint = Checkpoint.path(forLog: dir.logPath)
            #expect(FileSystem.exists(checkpoint))
            // A SignInFailed line appended after the checkpoint, chained and hashed, reusing line 1's id.
            var envelopes = try LogRewriting.envelopes(try dir.logBytes())
            var copy = try #require(envelopes.last { $0.type == "SignInFailed" })
            copy.seq = envelopes.count + 1
            copy.id = envelopes[0].id
            copy.stream = StreamCategory.signin.stream("00000000-0000-4000-8000-0000000000aa")
            envelopes.append(copy)
            try writeBytes(LogRewriting.chained(envelopes), to: dir.logPath)
            let line = envelopes.count
            let fromCheckpoint = [try dir.run(["replay", "--json"]), try dir.run(["users", "--json"])]
            #expect(FileSystem.exists(checkpoint))
            try FileManager.default.removeItem(atPath: checkpoint)
            let full = try dir.run(["users", "--json"])
            #expect(full.status != 0 && full.stderr.contains("line \(line)") && full.stderr.contains("was already used"), "\(full)")
            for result in fromCheckpoint {
                #expect(result.status == full.status, "\(result)")
                #expect(result.stderr.contains("line \(line)") && result.stderr.contains("was already used"), "\(result)")
            }
            #expect(try verify(dir).kinds == ["invalid-data"])
        }
    }

    // MARK: - Anchored verification

    @Test func aRewrittenAndRechainedHistoryFailsAgainstTheRecordedHead() throws {
        try withLedgerDir { dir in
            let (_, failed) = try populated(dir)
            let recorded = try verify(dir)
            let anchor = try #require(recorded.object["anchor"] as? String)
            let head = try #require(recorded.object["head"] as? [String: Any])
            #expect(anchor == "\(head["seq"] as? Int ?? -1):\(head["hash"] as? String ?? "")")
            #expect(try verify(dir, ["--expect", anchor]).status == 0)
            #expect(try dir.run(["verify", "--expect", anchor]).stdout.hasPrefix("ok: "))

            // Delete the failed registration and every SignInFailed, re-chain what is left.
            let kept = try LogRewriting.envelopes(try dir.logBytes())
                .filter { $0.type != "SignInFailed" && $0.stream != StreamCategory.registration.stream(failed) }
            try writeBytes(LogRewriting.chained(kept, renumbering: true), to: dir.logPath)
            let plain = try verify(dir)
            #expect(plain.status == 0 && plain.kinds.isEmpty, "the chain is whole again: \(plain.object)")
            let anchored = try verify(dir, ["--expect", anchor])
            #expect(anchored.status == 1)
            #expect(anchored.kinds == ["head-mismatch"], "\(anchored.object)")
            let human = try dir.run(["verify", "--expect", anchor])
            #expect(human.status == 1 && human.stdout.contains("head-mismatch"), "\(human)")
            // A head recorded of the rewritten log still holds; one beyond its end does not.
            let now = try #require(plain.object["anchor"] as? String)
            #expect(try verify(dir, ["--expect", now, "--expect", now]).status == 0)
            let beyond = "\(kept.count + 3):\(String(repeating: "a", count: 64))"
            let cut = try verify(dir, ["--expect", now, "--expect", beyond])
            #expect(cut.status == 1 && cut.kinds == ["head-mismatch"], "\(cut.object)")
        }
    }

    @Test(arguments: ["", "5", "x:abc", "0:\(String(repeating: "a", count: 64))", "5:\(String(repeating: "A", count: 64))",
                      "+5:\(String(repeating: "a", count: 64))", "5:\(String(repeating: "a", count: 63))"])
    func aMalformedExpectIsAUsageError(_ value: String) throws {
        try withLedgerDir { dir in
            _ = try dir.register(email: "alice@example.com")
            let result = try dir.run(["verify", "--expect", value])
            #expect(result.status == 2, "\(result)")
            #expect(result.stderr.contains("--expect needs SEQ:HASH"), "\(result)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func theHelpAndTheReportShowTheAnchor() throws {
        try withLedgerDir { dir in
            _ = try populated(dir)
            let help = try dir.run(["verify", "--help"])
            #expect(help.stdout.contains("--expect SEQ:HASH"))
            let anchor = try #require(try verify(dir).object["anchor"] as? String)
            let out = dir.path + "/report.html"
            #expect(try dir.run(["report", "--html", out]).status == 0)
            #expect(try readText(out).contains("data-head-anchor=\"\(anchor)\""))
        }
    }
}
