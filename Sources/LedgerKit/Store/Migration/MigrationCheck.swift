import Glibc
import LedgerDomain

// MARK: - MigrationCheck

/// `ledger verify --migrated-from LOG`: that a log `ledger migrate` wrote holds the old log's events,
/// event for event. The old log is read once and each event kept as 40 bytes (its id, and digests of
/// its envelope, of its data once opened, and of its data without its personal members); the new log
/// is then read and its line 1 must be a `LogMigrated` naming the old log's head and event count,
/// and lines 2 … N+1 the old events in order: same id, type, stream, `at` and batch, and the same
/// data once decrypted. A new event whose personal members were erased since (their subject's key
/// destroyed) counts as equal when the rest of its data is: it was forgotten on purpose. Lines after
/// them (appended since the migration) are not compared.
public enum MigrationCheck {
    /// What the comparison found.
    public struct Outcome: Equatable, Sendable {
        /// The old log's events (all found, when `problem` is nil).
        public var events = 0
        /// How many of them the new log holds with their personal data erased since.
        public var erased = 0
        /// The old log's head.
        public var fromHead = Head.empty
        /// The first difference (kind `migration-mismatch`, on the new log's line), nil when none.
        public var problem: LogProblem?
    }

    /// One old event, as compared.
    private struct Kept {
        var id: UUIDBits
        var envelope: UInt64
        var data: UInt64
        var withoutPersonal: UInt64
    }

    /// Compares the new log `newLog` (a file store's log, whose folder's keys open it) with the old log `oldLog`.
    public static func compare(newLog: String, oldLog: String) throws -> Outcome {
        var outcome = Outcome()
        var kept: [Kept] = []
        let oldRing = KeyRing.forLog(oldLog)
        let read = try LogFollower(path: oldLog).read { event, _ in
            kept.append(Self.kept(event, opener: oldRing).kept)
            outcome.fromHead = Head(seq: event.seq, hash: event.envelope.hash)
            return true
        }
        outcome.events = kept.count
        func mismatch(_ line: Int, _ message: String) -> Outcome {
            var found = outcome
            found.problem = LogProblem(line: line, kind: .migrationMismatch, message: message)
            return found
        }
        switch read {
        case .missing: throw SystemError("open", path: oldLog, code: ENOENT)
        case .damaged(let problem): return mismatch(1, "the old log \(oldLog) is damaged: \(problem)")
        case .caughtUp(let torn?): return mismatch(1, "the old log \(oldLog) ends in a torn tail: \(torn)")
        case .caughtUp(nil), .stopped: break
        }
        let newRing = KeyRing.forLog(newLog)
        var problem: (line: Int, message: String)?
        var header: (line: Int, message: String)?
        var erased = 0, seen = 0
        _ = try LogFollower(path: newLog).read { event, _ in
            let line = event.seq
            seen = line
            guard line > 1 else {
                guard case .logMigrated(let migration) = event.event else {
                    problem = (1, "line 1 is \(event.envelope.type), not the LogMigrated line of a migrated log")
                    return false
                }
                if migration.fromHead != outcome.fromHead || migration.events != kept.count {
                    header = (1, "the migration names the old log's head \(migration.fromHead.anchor) and \(migration.events) events, but \(oldLog) has head \(outcome.fromHead.anchor) and \(kept.count) events")
                }
                return !kept.isEmpty
            }
            let old = kept[line - 2]
            let (new, isErased) = Self.kept(event, opener: newRing)
            let what = "line \(line) (old seq \(line - 1), id \(event.envelope.id))"
            if new.id != old.id {
                problem = (line, "line \(line) has id \(event.envelope.id), not the id of the old log's seq \(line - 1)")
            } else if new.envelope != old.envelope {
                problem = (line, "\(what) differs from the old event in its type, stream, at or batch")
            } else if isErased ? new.withoutPersonal != old.withoutPersonal : new.data != old.data {
                problem = (line, "\(what) differs from the old event in its data once decrypted")
            } else if isErased {
                erased += 1
            }
            return problem == nil && line - 1 < kept.count
        }
        outcome.erased = erased
        // The first differing event says more than the head it changed, which the migration names.
        if let problem { return mismatch(problem.line, problem.message) }
        if seen < kept.count + 1 {
            return mismatch(max(seen, 1), seen == 0 ? "the log is empty: it holds none of the old log's \(kept.count) events"
                            : "the log ends after \(seen - 1) of the old log's \(kept.count) events: old seq \(seen) and after are missing")
        }
        if let header { return mismatch(header.line, header.message) }
        return outcome
    }

    /// What is compared of `event`, and whether its personal members read as erased.
    private static func kept(_ event: RecordedEvent, opener: any PersonalDataOpener) -> (kept: Kept, erased: Bool) {
        let envelope = event.envelope
        let batch = envelope.batch.map { "\($0.index),\($0.count)" } ?? "-"
        let header = digest(Array("\(envelope.type)\n\(envelope.stream)\n\(envelope.at.rfc3339)\n\(batch)".utf8))
        var data = envelope.data
        if let type = EventType(rawValue: envelope.type), let upcaster = DataVersions.upcaster(type, version: envelope.v),
           let opened = try? DataVersions.upcast(envelope.data, type: type, upcaster: upcaster, eventID: envelope.id, opener: opener) {
            data = opened
        }
        let erased = data[DataVersions.erasedMember] == .bool(true)
        var stripped = data
        stripped[DataVersions.erasedMember] = nil
        for name in EventType(rawValue: envelope.type).flatMap(PersonalMembers.rule(for:))?.members ?? [] { stripped[name] = nil }
        let kept = Kept(id: UUIDBits(uuid: envelope.id) ?? .zero, envelope: header, data: digest(JSONWriter.bytes(.object(data))),
                        withoutPersonal: digest(JSONWriter.bytes(.object(stripped))))
        return (kept, erased)
    }

    /// The first 8 bytes of the SHA-256 of `bytes`.
    private static func digest(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { SHA256.digest($0) }.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
