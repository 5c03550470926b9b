// MARK: - RegistrationRow

/// One row of the registrations view: a registration's facts (folded by the same rule as the
/// saga's `RegistrationState`) with the times of its first and last events, packed for a view
/// that holds one per registration: ids as 128-bit values, the rare failure out of line.
public struct RegistrationRow: RegistrationFold, Equatable, Sendable {
    /// The registration id's bits.
    public let id: UUIDBits
    /// What the events established.
    public var facts = RegistrationFacts()
    /// Time of the first event.
    public var startedAt: Timestamp? {
        get { times.started }
        set { times.started = newValue }
    }
    /// Time of the last event.
    public var lastAt: Timestamp? {
        get { times.last }
        set { times.last = newValue }
    }
    /// The failure, if any.
    public var failure: Failed? {
        get { failureBox?.failure }
        set { failureBox = newValue.map(FailureBox.init) }
    }
    /// Events in the stream.
    public var version: Int {
        get { Int(storedVersion) }
        set { storedVersion = Int32(clamping: newValue) }
    }
    fileprivate var times = EventTimes()
    /// Few registrations fail: the failure lives out of line so the others stay small.
    private var failureBox: FailureBox?
    fileprivate var storedVersion: Int32 = 0

    /// The row before any event of registration `id`.
    public init(id: UUIDBits) { self.id = id }

    /// The registration id.
    public var registration: String { id.uuidString }

    /// Folds one event of the registration's stream.
    public mutating func evolve(_ event: ViewEvent) {
        times.record(event.at)
        apply(event.fact)
    }
}

// MARK: - EventTimes

/// The times of a registration's first and last events, without an optional's padding: an absent
/// time is `Int64.min` milliseconds, which no timestamp of the log spells (years 0000 to 9999).
struct EventTimes: Equatable, Sendable {
    private var startedMillis = Int64.min
    private var lastMillis = Int64.min

    /// Time of the first event.
    var started: Timestamp? {
        get { startedMillis == .min ? nil : Timestamp(millis: startedMillis) }
        set { startedMillis = newValue?.millis ?? .min }
    }
    /// Time of the last event.
    var last: Timestamp? {
        get { lastMillis == .min ? nil : Timestamp(millis: lastMillis) }
        set { lastMillis = newValue?.millis ?? .min }
    }

    /// Records an event at `at`: the first sets both times, each later one the last.
    mutating func record(_ at: Timestamp) {
        if started == nil { started = at }
        last = at
    }
}

// MARK: - PackedRegistration

/// A registration's row as the registrations view keeps it: the row without its texts (its email
/// and its failure's), which lie in the view's `TextArena`. 96 bytes, where the row is 112 and
/// an email or a failure's text over 15 bytes is a heap object of its own (about 64 bytes).
struct PackedRegistration: Sendable {
    let id: UUIDBits
    fileprivate var core = RegistrationFacts.Core()
    fileprivate var version: Int32 = 0
    fileprivate var times = EventTimes()
    fileprivate var email = TextArena.Ref.none
    fileprivate var failure: PackedFailure?

    /// The row before any event of registration `id`.
    init(id: UUIDBits) { self.id = id }

    /// The outcome so far (the fold's, read without spelling the row out).
    var outcome: RegistrationState.Outcome { core.outcome(failed: failure != nil) }
}

/// A failure's step and texts in a view's arena (immutable, so sharing it between copies is safe).
final class PackedFailure: Sendable {
    let step: RegistrationStep
    let reason: TextArena.Ref, message: TextArena.Ref, email: TextArena.Ref, uid: TextArena.Ref

    init(step: RegistrationStep, reason: TextArena.Ref, message: TextArena.Ref, email: TextArena.Ref, uid: TextArena.Ref) {
        self.step = step; self.reason = reason; self.message = message; self.email = email; self.uid = uid
    }
}

// MARK: - PackedFolding

/// A packed row folded in place by the one fold (`RegistrationFolding`), its texts added to
/// the view's arena (an email or a failure's email equal to the row's keeps one place).
struct PackedFolding: RegistrationFolding {
    var row: PackedRegistration
    var texts: TextArena

    /// Folds one event of the row's registration stream, with its time.
    mutating func evolve(_ event: ViewEvent) {
        row.times.record(event.at)
        fold(event.fact)
    }

    var core: RegistrationFacts.Core {
        get { row.core }
        _modify { yield &row.core }
    }
    var version: Int {
        get { Int(row.version) }
        set { row.version = Int32(clamping: newValue) }
    }
    var hasEmail: Bool { !row.email.isNone }
    var hasFailure: Bool { row.failure != nil }

    mutating func takeEmail(_ email: String?) {
        guard let email else { row.email = .none; return }
        if texts.holds(row.email, email) { return }
        if let failure = row.failure, texts.holds(failure.email, email) { row.email = failure.email; return }
        row.email = texts.add(email)
    }

    mutating func takeFailure(_ failure: Failed) {
        let email = failure.email.map { texts.holds(row.email, $0) } == true ? row.email : texts.add(failure.email)
        row.failure = PackedFailure(step: failure.step, reason: texts.add(failure.reason), message: texts.add(failure.message),
                                    email: email, uid: texts.add(failure.uid))
    }
}

extension RegistrationRow {
    /// The row `packed` spells out, its texts read from `texts`.
    init(_ packed: PackedRegistration, texts: TextArena) {
        id = packed.id
        facts = RegistrationFacts(email: texts.string(packed.email), core: packed.core)
        times = packed.times
        storedVersion = packed.version
        if let f = packed.failure {
            // A failure that gave the row its email shares its string, as the fold's does.
            let email = !f.email.isNone && f.email == packed.email ? facts.email : texts.string(f.email)
            failure = Failed(step: f.step, reason: texts.text(f.reason), message: texts.text(f.message), email: email,
                             uid: texts.string(f.uid))
        }
    }

    /// This row packed, its texts added to `texts`.
    func packed(into texts: inout TextArena) -> PackedRegistration {
        var folding = PackedFolding(row: PackedRegistration(id: id), texts: TextArena())
        swap(&folding.texts, &texts)  // moved, not copied: a shared arena would be copied on the first add
        folding.row.core = facts.core
        folding.row.times = times
        folding.row.version = storedVersion
        if let failure { folding.takeFailure(failure) }
        folding.takeEmail(facts.email)
        swap(&folding.texts, &texts)
        return folding.row
    }
}

// MARK: - FailureBox

/// A registration's failure, out of line (immutable, so sharing it between copies is safe).
private final class FailureBox: Sendable {
    let failure: Failed
    init(_ failure: Failed) { self.failure = failure }
}

extension FailureBox: Equatable {
    static func == (lhs: FailureBox, rhs: FailureBox) -> Bool { lhs.failure == rhs.failure }
}
