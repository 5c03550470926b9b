import Foundation
import Glibc
import LedgerDomain
@testable import LedgerKit
import Testing

/// Each fast start of the first writer without `events.jsonl.index` answers, on one random history, what the plain fold of the log answers.
///
/// The fast starts: the index checkpoint taken over or copied, the read checkpoint's carried index
/// borrowed (then copied by the next writer) or copied. Each copy of the history meets the same
/// further operations; their outcomes, the index's sign-in records, `ledger users --json`, the log
/// and `ledger verify` are compared with the copy that has no cache at all, and with a fold of the log.
@Suite struct FirstWriterStartDifferentialTests {
    /// How a copy of the data folder meets its first writer: which caches are left, in what form.
    enum Start: String, CaseIterable, CustomStringConvertible {
        /// No cache at all: the first writer folds the whole verified log (the reference).
        case plain
        /// The index checkpoint, mode 0600 with one name: renamed into place as the index.
        case takenOver
        /// The index checkpoint made mode 0644: copied into an index file of the writer's own.
        case indexCheckpointReadable
        /// Only the read checkpoint's carried index: borrowed by the first lock hold, copied by the next.
        case borrowed
        /// The read checkpoint with a second hard link: its carried index copied.
        case carriedLinked

        var description: String { rawValue }
    }

    /// One operation of a user or the operator, naming emails and passwords by index into `emails` and `passwords`.
    enum Op: CustomStringConvertible {
        /// A sign-in's record read alone (one lock hold, nothing appended).
        case lookup(Int)
        /// A sign-up through the registration saga (claims the email under `.uniqueEmails`).
        case register(Int, password: Int)
        /// A sign-in (refused while the email is locked out).
        case signIn(Int, password: Int)
        /// The owner's email change (the password checked as a sign-in checks it).
        case changeEmail(Int, password: Int, to: Int)
        /// The operator's disable and enable of the email's account.
        case disable(Int)
        case enable(Int)
        /// The operator's deletion; its personal data erased unless kept.
        case delete(Int, keepPersonalData: Bool)
        /// The clock moved on, milliseconds.
        case wait(Int64)

        var description: String {
            switch self {
            case .lookup(let e): "lookup \(FirstWriterStartDifferentialTests.emails[e])"
            case .register(let e, let p): "register \(FirstWriterStartDifferentialTests.emails[e]) with password \(p)"
            case .signIn(let e, let p): "sign in \(FirstWriterStartDifferentialTests.emails[e]) with password \(p)"
            case .changeEmail(let e, let p, let to):
                "change \(FirstWriterStartDifferentialTests.emails[e]) (password \(p)) to \(FirstWriterStartDifferentialTests.emails[to])"
            case .disable(let e): "disable \(FirstWriterStartDifferentialTests.emails[e])"
            case .enable(let e): "enable \(FirstWriterStartDifferentialTests.emails[e])"
            case .delete(let e, let keep): "delete \(FirstWriterStartDifferentialTests.emails[e])\(keep ? " keeping its data" : "")"
            case .wait(let ms): "wait \(ms) ms"
            }
        }

        /// The emails whose answers the operation may change (read back after it).
        var touched: [Int] {
            switch self {
            case .lookup(let e), .register(let e, _), .signIn(let e, _), .disable(let e), .enable(let e), .delete(let e, _): [e]
            case .changeEmail(let e, _, let to): [e, to]
            case .wait: []
            }
        }
    }

    /// Few emails, so registrations meet taken ones and lockouts build up; the last two are only ever moved to.
    static let emails = (0..<10).map { "person\($0)@example.com" }
    /// Email `e` is mostly registered with password `e % 3`; the last one is nobody's.
    static let passwords = (0..<4).map { "correct horse \($0)" }

    /// `count` random operations, with bursts of wrong passwords past the lockout; without `erasing`, no erasure line.
    static func randomOps(_ count: Int, _ random: SeededRandom, erasing: Bool) -> [Op] {
        var ops: [Op] = []
        let wrong = passwords.count - 1
        while ops.count < count {
            let e = random.next(emails.count)
            switch random.next(24) {
            case 0..<6:
                let own = e % (emails.count - 2)  // the last two emails are never registered
                ops.append(.register(own, password: random.oneIn(4) ? random.next(wrong) : own % wrong))
            case 6..<12: ops.append(.signIn(e, password: random.oneIn(3) ? wrong : e % wrong))
            case 12:
                // Up to and past the threshold (`SignInPolicy.defaultMaxFailures`), then the usual password.
                ops += Array(repeating: .signIn(e, password: wrong), count: 4 + random.next(4)) + [.signIn(e, password: e % wrong)]
            case 13, 14: ops.append(.changeEmail(e, password: random.oneIn(4) ? wrong : e % wrong, to: random.next(emails.count)))
            case 15: ops.append(.disable(e))
            case 16: ops.append(.enable(e))
            case 17, 18: ops.append(.delete(e, keepPersonalData: !erasing || random.oneIn(2)))
            case 19: ops.append(.lookup(e))
            default: ops.append(.wait(random.pick([Int64(1_000), 60_000, 240_000, 900_000, 3_600_000])))
            }
        }
        return ops
    }

    /// A data folder and the clock its operations run at (step 0: only `wait` moves it).
    struct Folder {
        let dir: LedgerDir
        let clock: FixedClock

        /// The folder, and the writers' index and the two checkpoints in it.
        var path: String { dir.path }
        var indexPath: String { dir.logPath + ".index" }
        var indexCheckpointPath: String { dir.logPath + ".index.checkpoint" }
        var readCheckpointPath: String { dir.logPath + ".checkpoint" }

        /// A store of its own, as a new process opens one.
        func store(seed: UInt64) -> FileEventStore { FileEventStore(directory: path, clock: clock, random: SeededRandom(seed: seed)) }

        /// Runs the `n`-th operation on a fresh store (seeded by `n`: every copy appends the same bytes); says what it made or its error code.
        func perform(_ op: Op, n: Int) -> String {
            let seed = UInt64(n) &* 7_919 &+ 11
            let store = store(seed: seed)
            let locks = FileSignInLocks(directory: path)
            let sessions = SessionService(store: store, signInLocks: locks, clock: clock, random: SeededRandom(seed: seed &+ 1), hasher: PasswordHasher(cost: 1))
            let accounts = AccountService(store: store, signInLocks: locks, clock: clock)
            let emails = FirstWriterStartDifferentialTests.emails, passwords = FirstWriterStartDifferentialTests.passwords
            do {
                switch op {
                case .lookup(let e):
                    return "record \(String(describing: try store.signInRecord(email: emails[e])))"
                case .register(let e, let p):
                    let coordinator = RegistrationCoordinator(store: store, blobs: MemoryBlobStore(), directory: path, clock: clock,
                                                              random: SeededRandom(seed: seed &+ 2), hasher: PasswordHasher(cost: 1), failpoints: Failpoints())
                    let result = try coordinator.register(RegistrationInput(email: emails[e], userName: "User \(n)", password: passwords[p], image: nil),
                                                          idempotencyKey: nil)
                    return result.outcome == .completed ? "registered \(result.uid ?? "?")" : "\(result.outcome.rawValue) \(result.failure?.reason ?? "?")"
                case .signIn(let e, let p):
                    return "signed in \(try sessions.login(email: emails[e], password: passwords[p]).uid)"
                case .changeEmail(let e, let p, let to):
                    let outcome = try OwnerCommands(sessions: sessions, accounts: accounts).changeEmail(email: emails[e], password: passwords[p], newEmail: emails[to])
                    return "moved \(outcome.uid)"
                case .disable(let e):
                    return "disabled \(try accounts.run(.disable(reason: "test"), account: emails[e]).uid)"
                case .enable(let e):
                    return "enabled \(try accounts.run(.enable, account: emails[e]).uid)"
                case .delete(let e, let keep):
                    return "deleted \(try accounts.run(.delete(reason: .operator, keepPersonalData: keep), account: emails[e]).uid)"
                case .wait(let ms):
                    clock.instant = clock.instant.adding(milliseconds: ms)
                    return "waited"
                }
            } catch {
                let code = LedgerError(error).code
                // The refusals the rules make are outcomes; anything else is a failure of its own.
                if [.damaged, .storeError, .notDurable].contains(code) { Issue.record("operation \(n) (\(op)) in \(path): \(error)") }
                return code.rawValue
            }
        }

        /// Runs `ops` (numbered from `first`) without checking anything: the history every copy shares.
        func run(_ ops: [Op], first: Int) {
            for (i, op) in ops.enumerated() { _ = perform(op, n: first + i) }
        }

        /// The sign-in record of `email` folded from the whole verified log (`SessionService` over a store without an index).
        func foldedRecord(_ email: String) throws -> SignInRecord {
            try SessionService(store: SignInIndexTests.FoldingStore(store(seed: 1)), signInLocks: SequentialSignInLocks(), clock: clock,
                               random: SeededRandom(seed: 2), hasher: PasswordHasher(cost: 1)).signInRecord(email: email)
        }
    }

    /// The users view folded from the verified log as it grows.
    final class LogFold {
        var views = LedgerViews()
        var folded = 0

        /// Folds the lines appended since the last call.
        func catchUp(_ folder: Folder) throws {
            try folder.store(seed: 3).read(from: folded + 1) { event in
                views.apply(event)
                folded = event.seq
                return true
            }
        }

        /// True when the fold gives `email` a live account ("one live account per email").
        func taken(_ email: String) -> Bool { views.users.live(email: email) != nil }
    }

    /// The type (and `reason`, e.g. `locked`) of each log line after byte `offset`: what an operation appended.
    static func appended(_ dir: LedgerDir, after offset: Int) throws -> [String] {
        try splitLines(Array(try dir.logBytes().dropFirst(offset))).map { line in
            let object = try parseObject(String(decoding: line, as: UTF8.self))
            let type = object["type"] as? String ?? "?"
            return ((object["data"] as? [String: Any])?["reason"] as? String).map { "\(type)(\($0))" } ?? type
        }
    }

    /// What one copy gave: each operation's outcome and appended lines, `ledger users --json`, the log.
    struct Answers {
        var outcomes: [String] = []
        var users = ""
        var log: [UInt8] = []
    }

    /// The file's inode, nil when there is none.
    static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return lstat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    /// Leaves in the copy at `folder` only the caches `start` needs, in the form it needs.
    static func prepare(_ folder: Folder, for start: Start) throws {
        try FileSystem.remove(folder.indexPath)
        switch start {
        case .plain:
            try FileSystem.remove(folder.indexCheckpointPath)
            try FileSystem.remove(folder.readCheckpointPath)
        case .takenOver: break
        case .indexCheckpointReadable: #expect(chmod(folder.indexCheckpointPath, 0o644) == 0)
        case .borrowed, .carriedLinked:
            try FileSystem.remove(folder.indexCheckpointPath)
            if start == .carriedLinked { #expect(link(folder.readCheckpointPath, folder.path + "/checkpoint-backup") == 0) }
        }
    }

    /// Checks, after the first lock hold of the copy, that its first writer started as `start` says.
    static func expectStarted(_ folder: Folder, as start: Start, checkpointInode: UInt64?, checkpointBytes: [UInt8]) throws {
        let covered = WritersIndex.recordedSeq(atPath: folder.indexPath)
        switch start {
        case .plain:
            #expect((covered ?? 0) > 0 && !FileSystem.exists(folder.indexCheckpointPath), "rebuilt from the log")
        case .takenOver:
            #expect(!FileSystem.exists(folder.indexCheckpointPath) && inode(folder.indexPath) == checkpointInode, "taken over")
        case .indexCheckpointReadable:
            #expect((covered ?? 0) > 0 && inode(folder.indexPath) != checkpointInode, "copied")
            #expect(try readBytes(folder.indexCheckpointPath) == checkpointBytes, "the index checkpoint left as it was")
        case .borrowed:
            #expect(covered == 0, "borrowed: the index file is the empty placeholder")
            #expect(try readBytes(folder.readCheckpointPath) == checkpointBytes, "the read checkpoint left as it was")
        case .carriedLinked:
            #expect((covered ?? 0) > 0, "the carried index copied")
            #expect(try readBytes(folder.readCheckpointPath) == checkpointBytes, "the read checkpoint left as it was")
        }
    }

    /// Runs `ops` on a copy of `base` prepared for `start`, checking the index against a fold of the log as it goes.
    static func answers(from base: LedgerDir, in root: String, start: Start, ops: [Op], first: Int, at instant: Timestamp,
                        seed: UInt64) throws -> Answers {
        let dir = LedgerDir(path: root + "/" + start.rawValue)
        let copied = try run("/bin/cp", ["-a", base.path, dir.path])
        try #require(copied.status == 0, "\(copied)")
        let folder = Folder(dir: dir, clock: FixedClock(instant))
        try prepare(folder, for: start)
        let source = [.takenOver, .indexCheckpointReadable].contains(start) ? folder.indexCheckpointPath : folder.readCheckpointPath
        let checkpointInode = inode(source), checkpointBytes = (try? readBytes(source)) ?? []
        if start == .borrowed {
            // A borrowed table serves one lock hold: each email's record is read by a first writer of
            // its own, the placeholder it leaves removed after it, so every email is asked of the borrowed table.
            for email in emails {
                let indexed = try folder.store(seed: 6).signInRecord(email: email)
                #expect(WritersIndex.recordedSeq(atPath: folder.indexPath) == 0, "seed \(seed): borrowed for \(email)")
                let folded = try folder.foldedRecord(email)
                #expect(indexed == folded, "seed \(seed), borrowed table: \(email) index \(String(describing: indexed)), fold \(folded)")
                try FileSystem.remove(folder.indexPath)
            }
        }
        let fold = LogFold()
        var answers = Answers()
        for (i, op) in ops.enumerated() {
            let context = "seed \(seed), \(start), op \(i) (\(op))"
            let size = try dir.logBytes().count
            // One live account per email, as the fold of the log sees it before an operation that claims one.
            var claimed: (email: Int, taken: Bool)?
            switch op {
            case .register(let e, _), .changeEmail(_, _, let e):
                try fold.catchUp(folder)
                claimed = (e, fold.taken(emails[e]))
            default: break
            }
            let outcome = folder.perform(op, n: first + i)
            if i == 0 { try expectStarted(folder, as: start, checkpointInode: checkpointInode, checkpointBytes: checkpointBytes) }
            let appended = try appended(dir, after: size)
            answers.outcomes.append("\(outcome) \(appended)")
            if let claimed {
                let code = LedgerError.Code.emailTaken.rawValue
                if outcome.hasSuffix(code) { #expect(claimed.taken, "\(context): refused as taken, the fold says the email is free") }
                if outcome.hasPrefix("registered") || outcome.hasPrefix("moved") { #expect(!claimed.taken, "\(context): \(outcome), the fold says the email is taken") }
                if case .register = op { #expect(outcome.hasPrefix("registered") == !claimed.taken, "\(context): \(outcome), the fold says taken: \(claimed.taken)") }
            }
            // The index's record of each email the operation touched is the fold's (a lookup, or
            // anything appended but a failed registration, which no record holds).
            guard i == 0 || !appended.allSatisfy({ $0.hasPrefix("Failed") }) else { continue }
            for e in op.touched {
                let indexed = try folder.store(seed: 4).signInRecord(email: emails[e])
                let folded = try folder.foldedRecord(emails[e])
                #expect(indexed == folded, "\(context): \(emails[e]) index \(String(describing: indexed)), fold \(folded)")
            }
        }
        for email in emails {
            let indexed = try folder.store(seed: 5).signInRecord(email: email)
            let folded = try folder.foldedRecord(email)
            #expect(indexed == folded, "seed \(seed), \(start), at the end: \(email) index \(String(describing: indexed)), fold \(folded)")
        }
        try fold.catchUp(folder)
        #expect(fold.views.invariantViolations() == [], "seed \(seed), \(start)")
        let users = try dir.run(["users", "--json"])
        #expect(users.status == 0, "seed \(seed), \(start): \(users)")
        answers.users = users.stdout
        // `verify` compares the index (and any checkpoint) with the fold of the whole log.
        let checked = try dir.verifySummary()
        #expect(checked.ok && checked.kinds == [], "seed \(seed), \(start): verify found \(checked.kinds)")
        answers.log = try dir.logBytes()
        return answers
    }

    /// The shared history in `base`, both checkpoints saved part-way; returns its clock and the next operation's number.
    static func history(in base: LedgerDir, random: SeededRandom) throws -> (clock: FixedClock, next: Int) {
        try FileManager.default.createDirectory(atPath: base.path, withIntermediateDirectories: true)
        let clock = FixedClock(SystemClock().now().adding(milliseconds: -86_400_000))
        let folder = Folder(dir: base, clock: clock)
        let early = randomOps(160, random, erasing: true)
        folder.run(early, first: 0)
        // The checkpoints through the built `ledger` (the interval is read once per process): a
        // `register` saves the index checkpoint, then a read saves the read checkpoint carrying the index.
        let every = ["LEDGER_CHECKPOINT_EVERY": "1"]
        let registered = try base.register(email: emails[random.next(emails.count)], password: passwords[0], env: every)
        #expect(registered.status == 0 || registered.status == 1, "\(registered)")
        try #require(FileSystem.exists(folder.indexCheckpointPath), "the register saved the index checkpoint")
        let read = try base.run(["users", "--json"], env: every)
        try #require(read.status == 0, "\(read)")
        try #require(Array(try readBytes(folder.readCheckpointPath).suffix(8)) == Array("LEDGERIX".utf8), "the read checkpoint carries the index")
        // Times go on from the later of the history's clock and the processes' (the log never goes back).
        clock.instant = max(clock.instant, SystemClock().now()).adding(milliseconds: 1_000)
        // A tail after both for the first writer to fold; no erasure in it, which would drop both
        // checkpoints (an erasure drops every cache of personal data).
        let tail = randomOps(25, random, erasing: false)
        folder.run(tail, first: early.count)
        return (clock, early.count + tail.count)
    }

    /// Per seed: one history, then each start's copy against the plain one (the first start), operation by operation.
    @Test(arguments: [UInt64(1), 2, 3])
    func everyStartAnswersWhatThePlainFoldAnswers(seed: UInt64) throws {
        try withTempDirectory("first-writer") { root in
            let random = SeededRandom(seed: seed)
            let base = LedgerDir(path: root + "/base")
            let (clock, next) = try Self.history(in: base, random: random)
            // The first operation reads one record (a lock hold of its own: the borrowed table's), the
            // rest are random; none erases, since an erasure drops every cache and the next writer
            // then folds the whole log: what follows would no longer rest on the start under test.
            let ops = [Op.lookup(random.next(Self.emails.count))] + Self.randomOps(36, random, erasing: false)
            var reference: Answers?
            for start in Start.allCases {
                let got = try Self.answers(from: base, in: root, start: start, ops: ops, first: next, at: clock.instant, seed: seed)
                guard let reference else {
                    reference = got
                    continue
                }
                let first = zip(got.outcomes, reference.outcomes).enumerated().first { $0.element.0 != $0.element.1 }
                #expect(got.outcomes == reference.outcomes,
                        "seed \(seed), \(start): op \(first?.offset ?? -1) (\(first.map { "\(ops[$0.offset])" } ?? "")) gave \(first?.element.0 ?? "") where the plain fold gave \(first?.element.1 ?? "")")
                #expect(got.users == reference.users, "seed \(seed), \(start): ledger users --json differs from the plain fold's")
                #expect(got.log == reference.log, "seed \(seed), \(start): the log differs from the plain fold's")
            }
        }
    }
}
