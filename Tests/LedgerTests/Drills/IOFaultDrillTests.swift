import Foundation
import Glibc
import Testing

// The I/O-error drill (Docs/Reliability.md, promise 4): `LEDGER_IO_FAULTS=OP=N` makes the Nth `write` / `enospc` /
// `fsync` / `rename` of one `ledger register --image <PNG> --json` fail, or kills the process right
// before its Nth `write` / `fsync` (`kill-write`, `kill-fsync`: a crash at every point where
// something reaches the disk), on a data directory that already holds one completed registration
// (optionally ending in a torn line). Whatever fails: no success is reported for anything not
// durable, no half-written line stays in the log, a failed fsync of the log ends the command with
// status 3, and `ledger recover` leaves a sound ledger with no orphan image file.
//
// The calls were counted (strace, and confirmed by the `.clean` control below: the fault at
// count + 1 changes nothing). One `register` with an image, on a directory with one registration
// (the blob first, then the account, the image and the profile as one batch):
//   write  1 image name noted in the lock file   fsync 1 blob temp file
//          2 blob temp file                           2 profile_image/ folder (after the rename)
//          3 log: AccountCreated + ImageStored        3 log (the batch)
//            + ProfileWritten + SessionStarted
//            (one batch)
//   rename 1 blob temp file → profile_image/<uuid>
// With a torn last line the first append (the batch, after the blob) repairs it first: one more
// write (the copy appended to `events.jsonl.broken`, 3rd) and three more fsyncs (`.broken`, the cut
// log, the folder: 3–5). `enospc` and `kill-write` count the same calls as `write`, `kill-fsync`
// the same as `fsync`. Failure paths make more calls (cut-backs, `Failed`, compensations, the
// blob's removal); the two-fault cases reach those.

/// The data directory a case starts from.
enum DrillBase: String, Sendable {
    /// One completed registration.
    case clean
    /// One completed registration, then the first bytes of a line (a torn tail to repair).
    case torn
}

/// What a single-fault case must end as, from the counts above.
enum DrillExpectation: Equatable, Sendable {
    /// The fault lies past every call: registered with a session.
    case clean
    /// `SessionStarted` failed: registered (exit 0) without a session.
    case registeredWithoutSession
    /// Exit 1: the saga failed cleanly with this outcome at this step.
    case failed(outcome: String, step: String)
    /// Exit 3 before any event (the lock note).
    case environment
    /// Exit 3 naming `fsync`: a durability call of the store failed; the process ended after
    /// appending `appended` lines (the last one being the one whose fsync failed), nothing after it.
    case storeFsync(appended: Int)
    /// Killed (SIGKILL, status 137) with `appended` lines in the log (written, maybe not yet synced).
    case killed(appended: Int)
}

/// One drill case.
struct IOFaultCase: CustomTestStringConvertible, Sendable {
    /// `LEDGER_IO_FAULTS`.
    let faults: String
    /// The starting data directory.
    let base: DrillBase
    /// The counted outcome (single faults); nil for two-fault cases (invariants only).
    let expected: DrillExpectation?

    var testDescription: String { "\(faults) on \(base.rawValue)" }

    // MARK: Single faults: OP=N for N in 1...K, K = the number of calls + 1

    /// The blob could not be written: the image step fails before any account exists.
    private static let rejectedImage = DrillExpectation.failed(outcome: "rejected", step: "image")
    /// The batch could not be written: its first step, the account, fails; the blob is discarded.
    private static let rejectedAccount = DrillExpectation.failed(outcome: "rejected", step: "account")

    /// Per base and operation, the expected outcome of N = 1, 2, …, K. The new account's data key
    /// (data version 2) is written and synced in the key store just before the batch that needs it:
    /// when that fails, the account step fails as when the batch's write does.
    static let counted: [(DrillBase, String, [DrillExpectation])] = {
        let writes: [DrillExpectation] = [.environment, rejectedImage, rejectedAccount /* the key's slot */, rejectedAccount, .clean]
        let tornWrites: [DrillExpectation] = [.environment, rejectedImage, rejectedAccount /* the `.broken` copy */,
                                              rejectedAccount /* the key's slot */, rejectedAccount, .clean]
        let fsyncs: [DrillExpectation] = [rejectedImage, rejectedImage, rejectedAccount /* the key's */, .storeFsync(appended: 4), .clean]
        let tornFsyncs: [DrillExpectation] = [rejectedImage, rejectedImage, .storeFsync(appended: 0), .storeFsync(appended: 0),
                                              .storeFsync(appended: 0), rejectedAccount /* the key's */, .storeFsync(appended: 4), .clean]
        let renames: [DrillExpectation] = [rejectedImage, .clean]
        // Killed before the Nth call: nothing of the registration is in the log until its batch was
        // written (then all four events are: the page cache survives a process crash).
        let killWrites: [DrillExpectation] = [.killed(appended: 0), .killed(appended: 0), .killed(appended: 0), .killed(appended: 0), .clean]
        let tornKillWrites: [DrillExpectation] = [.killed(appended: 0), .killed(appended: 0), .killed(appended: 0), .killed(appended: 0),
                                                  .killed(appended: 0), .clean]
        let killFsyncs: [DrillExpectation] = [.killed(appended: 0), .killed(appended: 0), .killed(appended: 0), .killed(appended: 4), .clean]
        let tornKillFsyncs: [DrillExpectation] = [.killed(appended: 0), .killed(appended: 0), .killed(appended: 0), .killed(appended: 0),
                                                  .killed(appended: 0), .killed(appended: 0), .killed(appended: 4), .clean]
        return [(.clean, "write", writes), (.clean, "enospc", writes), (.clean, "fsync", fsyncs), (.clean, "rename", renames),
                (.clean, "kill-write", killWrites), (.clean, "kill-fsync", killFsyncs),
                (.torn, "write", tornWrites), (.torn, "enospc", tornWrites), (.torn, "fsync", tornFsyncs), (.torn, "rename", renames),
                (.torn, "kill-write", tornKillWrites), (.torn, "kill-fsync", tornKillFsyncs)]
    }()

    static let single: [IOFaultCase] = counted.flatMap { base, op, outcomes in
        outcomes.enumerated().map { IOFaultCase(faults: "\(op)=\($0.offset + 1)", base: base, expected: $0.element) }
    }

    // MARK: Two faults: the failure paths (cut-back, `Failed`, compensations, repair)

    static let double: [IOFaultCase] = {
        var out: [IOFaultCase] = []
        // A failing step, then any fsync of what follows: the cut-back, `Failed`, the blob's removal.
        // (`write=4,fsync=4`: the fsync of the cut-back after the failed write of the batch, which
        // follows the key's write and sync.)
        for write in 2...5 {
            for fsync in 1...9 {
                let cutBack = write == 4 && fsync == 4 ? DrillExpectation.storeFsync(appended: 0) : nil
                out.append(IOFaultCase(faults: "write=\(write),fsync=\(fsync)", base: .clean, expected: cutBack))
            }
        }
        // A failing step, then a crash before each fsync of what follows (the blob discarded or not).
        for write in 2...4 {
            for fsync in 1...6 { out.append(IOFaultCase(faults: "write=\(write),kill-fsync=\(fsync)", base: .clean, expected: nil)) }
        }
        // A failing step, and then appending `Failed` itself fails (disk full): exit 3, `recover` finishes.
        for write in 2...4 { out.append(IOFaultCase(faults: "write=\(write),enospc=\(write + 1)", base: .clean, expected: .environment)) }
        // A failed `write` of the `.broken` copy during the torn-tail repair, then each fsync after it.
        for fsync in 1...6 { out.append(IOFaultCase(faults: "write=3,fsync=\(fsync)", base: .torn, expected: nil)) }
        // A failed blob rename, then each fsync of what follows.
        for fsync in 1...4 { out.append(IOFaultCase(faults: "rename=1,fsync=\(fsync)", base: .clean, expected: nil)) }
        return out
    }()
}

@Suite("I/O-error drill: every write, fsync and rename of a registration fails or is killed in turn")
struct IOFaultDrillTests {
    @Test("one failing call: OP=N for every call of a registration", arguments: IOFaultCase.single)
    func singleFault(_ drill: IOFaultCase) throws {
        try runDrill(drill)
    }

    @Test("two failing calls: the failure paths", arguments: IOFaultCase.double)
    func twoFaults(_ drill: IOFaultCase) throws {
        try runDrill(drill)
    }

    // MARK: - The drill

    private func runDrill(_ drill: IOFaultCase) throws {
        try withLedgerDir { dir in
            // One completed registration, which nothing may harm.
            let first = try dir.register(email: "first@example.com", username: "First", image: samplePNG, env: noIOFaults)
            try #require(first.status == 0, "setup: \(first)")
            let firstJSON = try parseObject(first.stdout)
            let firstUID = try #require(firstJSON["uid"] as? String)
            let firstImage = try #require(firstJSON["profileImageName"] as? String)
            let baseLines = try dir.events().count
            if drill.base == .torn { try dir.appendTornLine() }

            let run = try dir.register(email: "second@example.com", username: "Second", image: samplePNG, env: ioFaults(drill.faults))

            // Orderly ends only: 0, 1 or 3 (or the injected SIGKILL); errors are one `ledger: ` line;
            // no trap, no stack trace.
            let killed = drill.faults.contains("kill-") && run.status == 137
            #expect([0, 1, 3].contains(run.status) || killed, "\(run)")
            #expect(!looksLikeACrash(run) || killed, "\(run)")
            #expect(run.stderrLines.allSatisfy { $0.hasPrefix("ledger: ") }, "\(run)")
            let complaints = run.stderrLines.filter { !isTornTailNotice($0) }

            // Never a half-written line: intact, or at most the torn tail the next writer repairs.
            let before = try dir.verifySummary()
            #expect(before.kinds == [] || before.kinds == ["torn-tail"], "verify after \(drill.faults): \(before.kinds)")
            let audit = try dir.auditReport()
            let rows = audit["failedRegistrations"] as? [[String: Any]] ?? []
            let pending = rows.filter { $0["outcome"] as? String == "compensation-pending" }.compactMap { $0["registration"] as? String }
            // A process never deletes an image file the log may still count as stored, except as the
            // first half of a compensation that `Failed` already recorded.
            for anomaly in audit["anomalies"] as? [[String: Any]] ?? [] {
                let kind = anomaly["kind"] as? String ?? ""
                #expect(kind != "image-mismatch", "\(anomaly)")
                if kind == "missing-image-file" { #expect(!pending.isEmpty, "image deleted under a stored ImageStored: \(anomaly)") }
            }

            var reported: [String: Any] = [:]
            switch run.status {
            case 0:
                // Success ⇒ durable: everything reported is in the intact log.
                #expect(complaints.isEmpty, "\(run)")
                reported = try parseObject(run.stdout)
                #expect(reported["status"] as? String == "registered")
                #expect(before.ok && before.kinds.isEmpty, "exit 0 but the log is not intact: \(before.kinds)")
                let registration = try #require(reported["registration"] as? String)
                let uid = try #require(reported["uid"] as? String)
                let folded = FoldedLog(try dir.events())
                #expect(folded.registrations[registration]?.last == "ProfileWritten", "\(folded.registrations)")
                #expect(folded.profiles.contains(uid))
                if let image = reported["profileImageName"] as? String {
                    #expect(folded.storedImages.contains(image))
                    #expect(dir.imageFiles().contains(image))
                }
                if let session = reported["sessionId"] as? String { #expect(folded.sessions.contains(session)) }
            case 1:
                // The saga failed and said so on standard output; what it reported is what the log holds.
                #expect(complaints.isEmpty, "\(run)")
                reported = try parseObject(run.stdout)
                #expect(reported["status"] as? String == "failed", "\(run)")
                let outcome = reported["outcome"] as? String ?? ""
                let allowed = drill.expected == nil ? ["rejected", "compensated", "compensation-pending"] : ["rejected", "compensated"]
                #expect(allowed.contains(outcome), "\(run)")
                let row = rows.first { $0["registration"] as? String == reported["registration"] as? String }
                #expect(row?["outcome"] as? String == outcome, "reported \(outcome), the log says \(String(describing: row))")
            case 137:
                // Killed: whatever it printed is not an acknowledgement; the checks after `recover` judge it.
                #expect(killed, "\(run)")
            default:
                // Environment / I/O: one line, nothing on standard output but the --json error object.
                #expect(complaints.count == 1 && complaints.last == run.stderrLines.last, "\(run)")
                #expect(run.stdoutIsAFailuresOnly, "\(run)")
            }
            if let expected = drill.expected {
                check(expected, run: run, reported: reported, before: before, baseLines: baseLines)
            }

            // The next run recovers, without faults.
            let recover = try dir.run(["recover", "--json"], env: noIOFaults)
            #expect(recover.status == 0, "recover after \(drill.faults): \(recover)")
            #expect(!looksLikeACrash(recover), "\(recover)")
            let after = try dir.verifySummary()
            #expect(after.ok && after.status == 0, "verify after recover: \(after.kinds)")
            let healed = try dir.auditReport()
            #expect((healed["anomalies"] as? [Any])?.isEmpty == true, "anomalies after recover: \(String(describing: healed["anomalies"]))")
            for row in healed["failedRegistrations"] as? [[String: Any]] ?? [] {
                #expect(["rejected", "compensated"].contains(row["outcome"] as? String ?? ""), "not finished after recover: \(row)")
            }

            // The earlier registration is untouched; every image file has an owner; no lock is left.
            let folded = FoldedLog(try dir.events())
            #expect(folded.liveAccounts[firstUID] == true && folded.profiles.contains(firstUID))
            #expect(folded.storedImages.contains(firstImage))
            #expect(Set(dir.imageFiles()) == folded.storedImages, "image files \(dir.imageFiles()) vs stored \(folded.storedImages)")
            #expect(dir.lockFiles().isEmpty, "locks left: \(dir.lockFiles())")
            for (registration, types) in folded.registrations {
                let finished = types.last == "ProfileWritten" || types.contains("Failed")
                #expect(finished, "registration \(registration) unfinished: \(types)")
            }

            // A repaired tail is kept whole in `.broken`: complete lines only, one copy of the torn bytes.
            if drill.base == .torn {
                let broken = FileManager.default.fileExists(atPath: dir.brokenPath) ? try readBytes(dir.brokenPath) : []
                #expect(broken == tornLineBytes + [0x0A], "events.jsonl.broken: \(String(decoding: broken, as: UTF8.self))")
            } else {
                #expect(!FileManager.default.fileExists(atPath: dir.brokenPath), "a repair without a torn line")
            }
        }
    }

    /// The counted outcome of a single-fault case.
    private func check(_ expected: DrillExpectation, run: ProcessResult, reported: [String: Any], before: VerifySummary,
                       baseLines: Int) {
        switch expected {
        case .clean:
            #expect(run.status == 0 && reported["sessionId"] is String && reported["token"] is String, "\(run)")
        case .registeredWithoutSession:
            #expect(run.status == 0 && reported["sessionId"] is NSNull && reported["token"] is NSNull, "\(run)")
        case .failed(let outcome, let step):
            #expect(run.status == 1, "\(run)")
            #expect(reported["outcome"] as? String == outcome && reported["step"] as? String == step, "\(run)")
            #expect(reported["reason"] as? String == "io-error", "\(run)")
        case .environment:
            #expect(run.status == 3, "\(run)")
        case .storeFsync(let appended):
            // Not retried as if it had worked: exit 3 naming fsync, and nothing appended after the
            // line whose fsync failed.
            #expect(run.status == 3, "\(run)")
            #expect(run.stderrLines.last?.contains("fsync") == true, "\(run)")
            #expect(before.events == baseLines + appended, "lines: \(before.events), expected \(baseLines) + \(appended)")
        case .killed(let appended):
            #expect(run.status == 137, "\(run)")
            #expect(before.events == baseLines + appended, "lines: \(before.events), expected \(baseLines) + \(appended)")
        }
    }

    // MARK: - Read-only and missing data directories

    @Test("register on a data directory it cannot write: exit 3, one line")
    func readOnlyDataDirectory() throws {
        try withLedgerDir { dir in
            let first = try dir.register(email: "first@example.com", username: "First", env: noIOFaults)
            try #require(first.status == 0, "setup: \(first)")
            // Every folder 0555, every file 0444 (a 0555 top folder alone still lets writers reach
            // the files and subfolders that already exist).
            let entries = [dir.path] + ((try? FileManager.default.subpathsOfDirectory(atPath: dir.path)) ?? []).map { dir.path + "/" + $0 }
            for entry in entries {
                chmod(entry, FileManager.default.fileExists(atPath: entry + "/.") ? 0o555 : 0o444)
            }
            defer { for entry in entries { chmod(entry, 0o700) } }

            // Root (the usual test runner here) bypasses permission bits: then the read-only folder is
            // tried as `nobody` through setpriv when it can be, and paths that cannot be a directory
            // (under a non-directory, a regular file) show the same failure to anyone.
            let environment = fastHashEnvironment.merging(noIOFaults) { $1 }
            let arguments = LedgerDir.registerArguments(email: "second@example.com", username: "Second")
            var runs: [(target: String, result: ProcessResult)] = []
            if access(dir.path, W_OK) != 0 {
                runs.append((dir.path, try LedgerTests.run(Paths.ledger, arguments + ["--data", dir.path], stdin: "correct horse 1\n", env: environment)))
            } else if geteuid() == 0, access("/usr/bin/setpriv", X_OK) == 0 {
                let asNobody = try LedgerTests.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", Paths.ledger]
                                                   + arguments + ["--data", dir.path], stdin: "correct horse 1\n", env: environment)
                if !asNobody.stderr.contains("setpriv:") { runs.append((dir.path, asNobody)) }  // else: nobody cannot run the binary here
            }
            for target in ["/dev/null/ledger-data", dir.logPath] {
                runs.append((target, try LedgerTests.run(Paths.ledger, arguments + ["--data", target], stdin: "correct horse 1\n", env: environment)))
            }
            for (target, result) in runs {
                #expect(result.status == 3, "\(target): \(result)")
                #expect(result.stderrLines.count == 1 && result.stderrLines.first?.hasPrefix("ledger: ") == true, "\(target): \(result)")
                #expect(result.stderr.contains(target), "the message names the path: \(result)")
                #expect(result.stdoutIsAFailuresOnly && !looksLikeACrash(result), "\(target): \(result)")
            }
            // The registration before is untouched.
            let users = try dir.run(["users", "--json"], env: noIOFaults)
            #expect(users.status == 0, "\(users)")
            #expect(userStatuses(try parseJSON(users.stdout)).values.sorted() == ["active"], "\(users)")
        }
    }

    @Test("read commands on a missing data directory: exit 3, one line naming the path", arguments: ["replay", "verify", "users"])
    func readCommandOnMissingDataDirectory(_ command: String) throws {
        try withTempDirectory("ledger-missing") { parent in
            let missing = parent + "/no-such-data"
            for json in [false, true] {
                let result = try LedgerTests.run(Paths.ledger, [command, "--data", missing] + (json ? ["--json"] : []), env: noIOFaults)
                #expect(result.status == 3, "\(command): \(result)")
                #expect(result.stderrLines.count == 1 && result.stderrLines.first?.hasPrefix("ledger: ") == true, "\(command): \(result)")
                #expect(result.stderr.contains(missing), "\(command): \(result)")
                #expect((json ? result.stdoutIsAFailuresOnly && !result.stdout.isEmpty : result.stdout.isEmpty) && !looksLikeACrash(result),
                        "\(command): \(result)")
                #expect(!FileManager.default.fileExists(atPath: missing), "a read command created \(missing)")
            }
        }
    }
}
