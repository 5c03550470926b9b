import Foundation
import Testing

// Every failpoint × action through the built `ledger`, then `recover` (twice), then the views,
// `audit` and `verify` must show a sound ledger.

/// One failpoint drill and what it must end as.
struct FailpointCase: CustomTestStringConvertible, Sendable {
    /// `LEDGER_FAILPOINTS`.
    let failpoints: String
    /// `register`'s exit status (137 = SIGKILL).
    let status: Int32
    /// `register --json`'s `outcome` (nil when it was killed or completed).
    let reported: String?
    /// The registration's outcome after `recover` (`none`: it is not in the log).
    let outcome: String
    /// Its failed step and reason after `recover` (nil when completed).
    let step: String?
    let reason: String?
    /// Its compensations after `recover`.
    let compensations: [String]
    /// True when the registration started a session.
    let session: Bool

    var testDescription: String { failpoints }

    // With an image the blob is written first, then `AccountCreated`, `ImageStored`,
    // `ProfileWritten` and the first session's `SessionStarted` are one batch: a crash after any of
    // them comes after all four are durable (completed, with its session), and the image step fails before any account exists
    // (rejected, nothing to compensate; the blob written before a refused batch is discarded).
    static let all: [FailpointCase] = [
        FailpointCase(failpoints: "AccountCreated=error", status: 1, reported: "rejected", outcome: "rejected",
                      step: "account", reason: "io-error", compensations: [], session: false),
        FailpointCase(failpoints: "AccountCreated=crash", status: 137, reported: nil, outcome: "completed",
                      step: nil, reason: nil, compensations: [], session: true),
        FailpointCase(failpoints: "ImageStored=error", status: 1, reported: "rejected", outcome: "rejected",
                      step: "image", reason: "io-error", compensations: [], session: false),
        FailpointCase(failpoints: "ImageStored=crash", status: 137, reported: nil, outcome: "completed",
                      step: nil, reason: nil, compensations: [], session: true),
        FailpointCase(failpoints: "ProfileWritten=error", status: 1, reported: "compensated", outcome: "compensated",
                      step: "profile", reason: "io-error", compensations: ["ImageDeleted", "AccountDeleted"], session: false),
        FailpointCase(failpoints: "ProfileWritten=crash", status: 137, reported: nil, outcome: "completed",
                      step: nil, reason: nil, compensations: [], session: true),
        FailpointCase(failpoints: "ProfileWritten=error,ImageDeleted=error", status: 1, reported: "compensation-pending",
                      outcome: "compensated", step: "profile", reason: "io-error", compensations: ["ImageDeleted", "AccountDeleted"], session: false),
        FailpointCase(failpoints: "ProfileWritten=error,ImageDeleted=crash", status: 137, reported: nil,
                      outcome: "compensated", step: "profile", reason: "io-error", compensations: ["ImageDeleted", "AccountDeleted"], session: false),
        FailpointCase(failpoints: "ProfileWritten=error,AccountDeleted=error", status: 1, reported: "compensation-pending",
                      outcome: "compensated", step: "profile", reason: "io-error", compensations: ["ImageDeleted", "AccountDeleted"], session: false),
        FailpointCase(failpoints: "ProfileWritten=error,AccountDeleted=crash", status: 137, reported: nil,
                      outcome: "compensated", step: "profile", reason: "io-error", compensations: ["ImageDeleted", "AccountDeleted"], session: false),
        FailpointCase(failpoints: "SessionStarted=error", status: 0, reported: nil, outcome: "completed",
                      step: nil, reason: nil, compensations: [], session: false),
        FailpointCase(failpoints: "SessionStarted=crash", status: 137, reported: nil, outcome: "completed",
                      step: nil, reason: nil, compensations: [], session: true),
        // A power cut inside the batch: the lines before EVENT are durable, the rest never written:
        // a batch cut short, which `recover` moves aside (the registration never happened; its blob goes).
        FailpointCase(failpoints: "ImageStored=power-loss", status: 137, reported: nil, outcome: "none",
                      step: nil, reason: nil, compensations: [], session: false),
        FailpointCase(failpoints: "ProfileWritten=power-loss", status: 137, reported: nil, outcome: "none",
                      step: nil, reason: nil, compensations: [], session: false),
        FailpointCase(failpoints: "SessionStarted=power-loss", status: 137, reported: nil, outcome: "none",
                      step: nil, reason: nil, compensations: [], session: false),
    ]
}

@Suite struct RecoveryCLITests {
    @Test(arguments: FailpointCase.all)
    func failpointThenRecoverLeavesASoundLedger(_ drill: FailpointCase) throws {
        try withLedgerDir { dir in
            // A completed registration first, so recovery must leave healthy data alone.
            let healthy = try dir.register(email: uniqueEmail("healthy"), image: samplePNG)
            try #require(healthy.status == 0, "\(healthy)")
            let healthyImage = try #require(try parseObject(healthy.stdout)["profileImageName"] as? String)

            let email = uniqueEmail("drill")
            let drilled = try dir.register(email: email, image: samplePNG, env: ["LEDGER_FAILPOINTS": drill.failpoints])
            #expect(drilled.status == drill.status, "\(drilled)")
            if let reported = drill.reported {
                let output = try parseObject(drilled.stdout)
                #expect(output["status"] as? String == "failed")
                #expect(output["outcome"] as? String == reported)
            }
            if drill.failpoints == "SessionStarted=error" {
                let output = try parseObject(drilled.stdout)
                #expect(output["status"] as? String == "registered")
                #expect(output["sessionId"] is NSNull)
                #expect(output["token"] is NSNull)
            }

            // Recover, then recover again: the second run changes nothing.
            let first = try dir.run(["recover", "--json"])
            #expect(first.status == 0, "\(first)")
            let afterFirst = try dir.logBytes()
            let second = try dir.run(["recover", "--json"])
            #expect(second.status == 0, "\(second)")
            #expect(try dir.logBytes() == afterFirst, "a second recover must not append")
            let report = try parseObject(second.stdout)
            for member in ["interrupted", "compensated", "stillPending", "removedImages"] {
                #expect((report[member] as? [Any])?.isEmpty == true, "second recover \(member): \(second.stdout)")
            }
            #expect(report["repairedTornTail"] as? Bool == false)

            // Every registration is completed, rejected or compensated.
            let replay = try parseObject(try dir.run(["replay", "--json"]).stdout)
            let registrations = try #require(replay["registrations"] as? [String: Int])
            #expect(registrations["compensation-pending"] == 0)
            #expect(registrations["in-progress"] == 0)
            #expect(registrations.values.reduce(0, +) == (drill.outcome == "none" ? 1 : 2))
            #expect((replay["users"] as? [String: Int])?["pending"] == 0)

            // The drilled registration's outcome.
            let audit = try dir.run(["audit", "--json"])
            #expect(audit.status == 0, "\(audit)")
            let auditJSON = try parseObject(audit.stdout)
            #expect((auditJSON["anomalies"] as? [Any])?.isEmpty == true, "\(audit.stdout)")
            let failed = auditJSON["failedRegistrations"] as? [[String: Any]] ?? []
            if drill.outcome == "completed" || drill.outcome == "none" {
                #expect(failed.isEmpty, "\(audit.stdout)")
                #expect(registrations["completed"] == (drill.outcome == "none" ? 1 : 2))
            } else {
                let row = try #require(failed.first { $0["email"] as? String == email }, "\(audit.stdout)")
                #expect(failed.count == 1)
                #expect(row["outcome"] as? String == drill.outcome)
                #expect(row["step"] as? String == drill.step)
                #expect(row["reason"] as? String == drill.reason)
                #expect(row["compensations"] as? [String] == drill.compensations)
            }

            // Users and image files match the outcome.
            let users = try #require(try dir.json(["users"]) as? [[String: Any]])
            let drilledUsers = users.filter { $0["email"] as? String == email }
            let images = dir.imageFiles()
            switch drill.outcome {
            case "completed":
                #expect(drilledUsers.map { $0["status"] as? String } == ["active"])
                let image = try #require(drilledUsers.first?["profileImageName"] as? String)
                #expect(Set(images) == [healthyImage, image])
            case "compensated":
                #expect(drilledUsers.map { $0["status"] as? String } == ["deleted"])
                #expect(images == [healthyImage])
            default:
                #expect(drilledUsers.isEmpty)
                #expect(images == [healthyImage])
            }
            let sessions = try dir.data(of: "SessionStarted")
            let drilledUID = drilledUsers.first?["uid"] as? String
            #expect(sessions.contains { $0["uid"] as? String == drilledUID } == drill.session)

            // The log is intact, for ledger and for the independent verifier.
            let verify = try dir.run(["verify"])
            #expect(verify.status == 0, "\(verify)")
            let python = try pythonTool("verify_log.py", [dir.logPath])
            #expect(python.status == 0, "\(python)")
            // No registration lock is left behind.
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir.path + "/locks")) ?? []).isEmpty)
        }
    }

    @Test func compensationPendingIsAnAuditAnomalyUntilRecover() throws {
        try withLedgerDir { dir in
            let result = try dir.register(email: uniqueEmail(), image: samplePNG, env: ["LEDGER_FAILPOINTS": "ProfileWritten=error,ImageDeleted=error"])
            #expect(result.status == 1)
            let before = try dir.run(["audit", "--json"])
            #expect(before.status == 1, "\(before)")
            let kinds = (try parseObject(before.stdout)["anomalies"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
            #expect(kinds == ["account-without-profile"])
            #expect(dir.imageFiles().count == 1, "the image is still there until recover")
            let recover = try dir.run(["recover"])
            #expect(recover.status == 0, "\(recover)")
            #expect(recover.stdout.contains("compensated:"))
            #expect(try dir.run(["audit", "--json"]).status == 0)
            #expect(dir.imageFiles().isEmpty)
        }
    }

    @Test(arguments: ["ImageDeleted", "AccountDeleted"])
    func recoverItselfCrashingMidCompensationIsFinishedByTheNextRecover(_ event: String) throws {
        try withLedgerDir { dir in
            // Leave a registration compensation-pending, then crash `recover` right after its compensation event.
            let result = try dir.register(email: uniqueEmail(), image: samplePNG,
                                          env: ["LEDGER_FAILPOINTS": "ProfileWritten=error,ImageDeleted=error"])
            #expect(result.status == 1, "\(result)")
            let crashed = try dir.run(["recover"], env: ["LEDGER_FAILPOINTS": "\(event)=crash"])
            #expect(crashed.status == 137, "\(crashed)")
            #expect(try dir.data(of: event).count == 1, "the crash came after \(event) was durable")
            let again = try dir.run(["recover", "--json"])
            #expect(again.status == 0, "\(again)")
            #expect(try dir.run(["audit", "--json"]).status == 0)
            #expect(try dir.run(["verify"]).status == 0)
            let outcomes = try parseObject(try dir.run(["replay", "--json"]).stdout)["registrations"] as? [String: Int]
            #expect(outcomes?["compensated"] == 1 && outcomes?["compensation-pending"] == 0 && outcomes?["in-progress"] == 0)
            #expect(dir.imageFiles().isEmpty)
        }
    }

    /// A power loss during a registration's sync can keep a prefix of its batch (the account, or
    /// the account and the image) as whole lines. Each says it is line k of a batch of 4: a batch
    /// cut short, not part of the log. Readers leave it out (only the blob, synced before, is left:
    /// an orphan file), `verify` calls it a torn tail, `recover` moves it aside and removes the blob.
    @Test(arguments: [1, 2, 3])
    func aBatchCutByAPowerLossIsNotPartOfTheLog(_ kept: Int) throws {
        try withLedgerDir { dir in
            let result = try dir.register(email: uniqueEmail(), image: samplePNG)
            #expect(result.status == 0, "\(result)")
            let image = try #require(try parseObject(result.stdout)["profileImageName"] as? String)
            let cut = Array(splitLines(try dir.logBytes()).prefix(kept))
            try dir.cutLog(keepingLines: kept)
            let audit = try dir.run(["audit", "--json"])
            #expect(audit.status == 1)
            let anomalies = try parseObject(audit.stdout)["anomalies"] as? [[String: Any]] ?? []
            #expect(anomalies.compactMap { $0["kind"] as? String } == ["orphan-image-file"], "\(audit)")
            #expect(try parseObject(try dir.run(["replay", "--json"]).stdout)["events"] as? Int == 0)
            let verify = try parseObject(try dir.run(["verify", "--json"]).stdout)
            let problems = verify["problems"] as? [[String: Any]] ?? []
            #expect(problems.map { $0["kind"] as? String } == ["torn-tail"] && problems.first?["line"] as? Int == 1, "\(verify)")

            let recover = try parseObject(try dir.run(["recover", "--json"]).stdout)
            #expect(recover["repairedTornTail"] as? Bool == true)
            #expect((recover["interrupted"] as? [String])?.isEmpty == true)
            #expect(recover["removedImages"] as? [String] == [image])
            #expect(try dir.logBytes().isEmpty, "nothing of the batch is left")
            #expect(try readBytes(dir.brokenPath) == CutBatchCLITests.withoutCiphertexts(cut.flatMap { $0 }), "the cut lines are kept aside, without their hashes and ciphertexts")
            #expect(try dir.run(["audit", "--json"]).status == 0)
            #expect(try dir.run(["verify"]).status == 0)
            #expect(dir.imageFiles().isEmpty)
        }
    }

    /// Lines written before batches carried their `batch` member cannot tell a cut batch: a
    /// registration cut that way (account only, its blob with no `ImageStored`; or account and
    /// image) is an interrupted registration that `recover` finishes by compensating it.
    @Test(arguments: [1, 2])
    func aCutUnmarkedBatchIsAnInterruptedAnomalyUntilRecover(_ kept: Int) throws {
        try withLedgerDir { dir in
            let result = try dir.register(email: uniqueEmail(), image: samplePNG)
            #expect(result.status == 0, "\(result)")
            let image = try #require(try parseObject(result.stdout)["profileImageName"] as? String)
            try dir.cutLogWrittenWithoutBatchMarks(keepingLines: kept)
            let before = try dir.run(["audit", "--json"])
            #expect(before.status == 1)
            let anomalies = try parseObject(before.stdout)["anomalies"] as? [[String: Any]] ?? []
            #expect(anomalies.compactMap { $0["kind"] as? String } == (kept == 1 ? ["interrupted", "orphan-image-file"] : ["interrupted"]))
            let stream = try #require(try dir.events().first?["stream"] as? String)
            #expect(stream == "registration-" + (anomalies.first?["registration"] as? String ?? "?"))

            let recover = try parseObject(try dir.run(["recover", "--json"]).stdout)
            #expect((recover["interrupted"] as? [String])?.count == 1)
            #expect((recover["compensated"] as? [String])?.count == 1)
            #expect(recover["removedImages"] as? [String] == (kept == 1 ? [image] : []))
            #expect(try dir.run(["audit", "--json"]).status == 0)
            #expect(dir.imageFiles().isEmpty)
            let failed = try dir.data(of: "Failed")
            #expect(failed.map { $0["step"] as? String } == [kept == 1 ? "image" : "profile"])
            #expect(try dir.events().map { $0["type"] as? String }.suffix(kept == 1 ? 2 : 3)
                    == (kept == 1 ? ["Failed", "AccountDeleted"] : ["Failed", "ImageDeleted", "AccountDeleted"]))
        }
    }

    @Test func orphanImageFileIsReportedAndRemovedByRecover() throws {
        try withLedgerDir { dir in
            let ok = try dir.register(email: uniqueEmail(), image: samplePNG)
            #expect(ok.status == 0, "\(ok)")
            let kept = dir.imageFiles()
            #expect(kept.count == 1)
            let orphan = UUID().uuidString.lowercased()
            try writeBytes(try readBytes(samplePNG), to: dir.imageFolder + "/" + orphan)

            let audit = try dir.run(["audit", "--json"])
            #expect(audit.status == 1, "\(audit)")
            let anomalies = try parseObject(audit.stdout)["anomalies"] as? [[String: Any]] ?? []
            #expect(anomalies.count == 1)
            #expect(anomalies.first?["kind"] as? String == "orphan-image-file")
            #expect(anomalies.first?["imageName"] as? String == orphan)
            let text = try dir.run(["audit"])
            #expect(text.status == 1)
            #expect(text.stdout.contains("orphan-image-file imageName=\(orphan)"))

            let logBefore = try dir.logBytes()
            let recover = try parseObject(try dir.run(["recover", "--json"]).stdout)
            #expect(recover["removedImages"] as? [String] == [orphan])
            #expect(dir.imageFiles() == kept)
            #expect(try dir.logBytes() == logBefore, "removing an orphan file appends nothing")
            #expect(try dir.run(["audit", "--json"]).status == 0)
            let again = try parseObject(try dir.run(["recover", "--json"]).stdout)
            #expect((again["removedImages"] as? [String])?.isEmpty == true)
        }
    }

    @Test func orphanImageFileWithoutAnyLogIsRemoved() throws {
        try withLedgerDir { dir in
            try FileManager.default.createDirectory(atPath: dir.imageFolder, withIntermediateDirectories: true)
            let orphan = UUID().uuidString.lowercased()
            try writeBytes([1, 2, 3], to: dir.imageFolder + "/" + orphan)
            let recover = try dir.run(["recover", "--json"])
            #expect(recover.status == 0, "\(recover)")
            #expect(try parseObject(recover.stdout)["removedImages"] as? [String] == [orphan])
            #expect(dir.imageFiles().isEmpty)
        }
    }

    /// Runs `ledger recover --json`, then `ledger audit --json`, while another process holds the
    /// `flock` of `lockPath` (as a live registration does); their outputs and statuses.
    private func whileLockIsHeld(_ dir: LedgerDir, _ lockPath: String) throws -> (recover: [String: Any], recoverStatus: String,
                                                                                 audit: [String: Any], auditStatus: String) {
        let script = """
            import fcntl, subprocess, sys
            ledger, data, lock = sys.argv[1:4]
            f = open(lock, "a")
            fcntl.flock(f, fcntl.LOCK_EX)
            for command in ("recover", "audit"):
                r = subprocess.run([ledger, command, "--json", "--data", data], capture_output=True, text=True)
                print(r.stdout.strip())
                print(r.returncode)
            """
        let held = try run(Paths.python3, ["-c", script, Paths.ledger, dir.path, lockPath], env: fastHashEnvironment)
        #expect(held.status == 0, "\(held)")
        let lines = held.stdoutLines
        try #require(lines.count == 4, "\(held)")
        return (try parseObject(lines[0]), lines[1], try parseObject(lines[2]), lines[3])
    }

    /// A live registration with an image has its blob on disk before any event: `recover` and
    /// `audit` must leave that blob alone while its lock is held. Made here by killing a
    /// registration right before its one log write (`kill-write=3`: the lock note, the blob, then
    /// the batch), so the blob, the note and the lock file are exactly what the running process had.
    @Test func recoverLeavesTheBlobOfARunningRegistrationAlone() throws {
        try withLedgerDir { dir in
            let healthy = try dir.register(email: uniqueEmail("healthy"), image: samplePNG)
            try #require(healthy.status == 0, "\(healthy)")
            let healthyImage = try #require(try parseObject(healthy.stdout)["profileImageName"] as? String)
            let logBefore = try dir.logBytes()
            let crashed = try dir.register(email: uniqueEmail(), image: samplePNG, env: ioFaults("kill-write=3"))
            #expect(crashed.status == 137, "\(crashed)")
            #expect(try dir.logBytes() == logBefore, "killed before its batch: nothing of it in the log")
            let lock = try #require(dir.lockFiles().first)
            #expect(dir.lockFiles().count == 1)
            let lockPath = dir.path + "/locks/" + lock
            let noted = try readText(lockPath)
            #expect(noted.count == 36, "the lock file notes the image name: \(noted)")
            #expect(Set(dir.imageFiles()) == [healthyImage, noted], "the blob is written before the batch")

            let held = try whileLockIsHeld(dir, lockPath)
            #expect((held.recover["removedImages"] as? [String])?.isEmpty == true, "\(held.recover)")
            #expect((held.recover["interrupted"] as? [String])?.isEmpty == true)
            #expect(held.recoverStatus == "0")
            #expect((held.audit["anomalies"] as? [Any])?.isEmpty == true, "a running registration's blob is no orphan: \(held.audit)")
            #expect(held.auditStatus == "0")
            #expect(Set(dir.imageFiles()) == [healthyImage, noted])
            #expect(try dir.logBytes() == logBefore)

            // Once the holder is gone, it is an orphan: recover removes it, and the dead lock.
            let audit = try dir.run(["audit", "--json"])
            #expect(audit.status == 1)
            let kinds = (try parseObject(audit.stdout)["anomalies"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
            #expect(kinds == ["orphan-image-file"])
            let after = try parseObject(try dir.run(["recover", "--json"]).stdout)
            #expect(after["removedImages"] as? [String] == [noted])
            #expect((after["interrupted"] as? [String])?.isEmpty == true)
            #expect(dir.imageFiles() == [healthyImage])
            #expect(try dir.run(["audit", "--json"]).status == 0)
            #expect(dir.lockFiles().isEmpty, "recover removes the dead registration's lock")
            #expect(try dir.logBytes() == logBefore, "removing an orphan appends nothing")
        }
    }

    /// A registration with events and no terminal one (a batch cut by a power loss), whose lock a
    /// live process holds again (e.g. a retry with its idempotency key): skipped until the lock is free.
    @Test func recoverSkipsAnUnfinishedRegistrationWhoseLockIsHeld() throws {
        try withLedgerDir { dir in
            let result = try dir.register(email: uniqueEmail(), image: samplePNG)
            #expect(result.status == 0, "\(result)")
            let output = try parseObject(result.stdout)
            let registration = try #require(output["registration"] as? String)
            let image = try #require(output["profileImageName"] as? String)
            try dir.cutLogWrittenWithoutBatchMarks(keepingLines: 1)  // AccountCreated only; the blob stays
            let lockPath = dir.path + "/locks/\(registration).lock"
            try writeBytes(Array(image.utf8), to: lockPath)  // the note its process writes first
            let before = try dir.logBytes()

            let held = try whileLockIsHeld(dir, lockPath)
            #expect(held.recover["skippedRunning"] as? [String] == [registration])
            #expect((held.recover["interrupted"] as? [String])?.isEmpty == true)
            #expect((held.recover["removedImages"] as? [String])?.isEmpty == true)
            #expect(held.recoverStatus == "0")
            #expect((held.audit["anomalies"] as? [Any])?.isEmpty == true, "a running registration is no anomaly: \(held.audit)")
            #expect(held.auditStatus == "0")
            #expect(try dir.logBytes() == before)
            #expect(dir.imageFiles() == [image])

            let after = try parseObject(try dir.run(["recover", "--json"]).stdout)
            #expect(after["interrupted"] as? [String] == [registration])
            #expect(after["compensated"] as? [String] == [registration])
            #expect(after["removedImages"] as? [String] == [image])
            #expect(dir.imageFiles().isEmpty)
            #expect(try dir.run(["audit", "--json"]).status == 0)
            #expect(!FileManager.default.fileExists(atPath: lockPath), "recover removes the dead registration's lock")
        }
    }

    /// `recover` decides from the whole verified log, never from the checkpoint (issue 27, item 11):
    /// a damaged line behind a checkpoint stops it as it stops a read without one, and once the log
    /// is whole again the compensation-pending registration behind the checkpoint is finished.
    @Test func recoverFoldsTheWholeLogWhateverTheCheckpoint() throws {
        try withLedgerDir { dir in
            let every = ["LEDGER_CHECKPOINT_EVERY": "1"]
            #expect(try dir.register(email: uniqueEmail("first"), env: every).status == 0)
            let pending = try dir.register(email: uniqueEmail("pending"), image: samplePNG,
                                           env: every.merging(["LEDGER_FAILPOINTS": "ProfileWritten=error,ImageDeleted=error"]) { _, new in new })
            #expect(pending.status == 1, "\(pending)")
            let registration = try #require(try parseObject(pending.stdout)["registration"] as? String)
            #expect(try dir.run(["users", "--json"], env: every).status == 0)  // saves the checkpoint
            #expect(try dir.register(email: uniqueEmail("after"), env: every).status == 0)
            let intact = try dir.logBytes()
            try damageLine(dir.logPath, line: 0)
            for env in [["LEDGER_CHECKPOINT_EVERY": "0"], every] {
                let refused = try dir.run(["recover", "--json"], env: env)
                #expect(refused.status == 1 && refused.stdout.contains("damaged"), "\(refused)")  // the whole log was read
            }
            try writeBytes(intact, to: dir.logPath)
            let recovered = try dir.run(["recover", "--json"], env: every)
            #expect(recovered.status == 0, "\(recovered)")
            #expect(try parseObject(recovered.stdout)["compensated"] as? [String] == [registration])
        }
    }

    @Test func recoverRunningAlongsideRegistrationsKeepsTheirImages() throws {
        // A race drill: recover in a loop while two loops register with images. `recover` lists the
        // files, then the running registrations' images, then the log, so it never deletes a live image.
        try withLedgerDir { dir in
            let script = """
                register() { for i in $(seq 1 20); do echo 'long enough password' | "$LEDGER" register --data "$DATA" \\
                  --email "$1$i@example.com" --username U --image "$IMAGE" --password-stdin >/dev/null || echo "register $1$i failed"; done; }
                register a & register b &
                for i in $(seq 1 60); do "$LEDGER" recover --data "$DATA" --json >/dev/null || echo "recover failed"; done
                wait
                """
            let drill = try run("/bin/sh", ["-c", script],
                                env: fastHashEnvironment.merging(["LEDGER": Paths.ledger, "DATA": dir.path, "IMAGE": samplePNG]) { _, new in new })
            #expect(drill.status == 0, "\(drill)")
            #expect(drill.stdout.isEmpty, "\(drill)")
            let audit = try dir.run(["audit", "--json"])
            #expect(audit.status == 0, "\(audit)")
            #expect(dir.imageFiles().count == 40)
            let replay = try parseObject(try dir.run(["replay", "--json"]).stdout)
            #expect((replay["registrations"] as? [String: Int])?["completed"] == 40)
        }
    }
}

/// `SessionEnded` failpoints reach every append that holds one: `logout`'s, and an account batch's
/// whose first event is another (found by an attack: both were appended as if no drill was set).
@Suite struct SessionEndedFailpointCLITests {
    @Test func anErrorBeforeSessionEndedStopsLogoutAndTheAccountBatches() throws {
        try withLedgerDir { dir in
            let registered = try dir.register(email: "drill@example.com")
            let session = try #require(try parseObject(registered.stdout)["sessionId"] as? String)
            let before = try dir.logBytes()
            let drill = ["LEDGER_FAILPOINTS": "SessionEnded=error"]
            let logout = try dir.run(["logout", "--session", session], env: drill)
            #expect(logout.status != 0, "\(logout)")
            let disable = try dir.run(["account", "disable", "drill@example.com"], env: drill)
            #expect(disable.status != 0, "\(disable)")
            #expect(try dir.logBytes() == before, "nothing appended")
            #expect(try dir.run(["logout", "--session", session]).status == 0, "the session was still active")
        }
    }
}
