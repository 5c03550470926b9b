import LedgerDomain

// MARK: - GeneratedEvent

/// One event the generator emitted, ready to be chained and written.
struct GeneratedEvent {
    /// The event id (a fresh lowercase UUID).
    var id: String
    /// When it was recorded.
    var at: Timestamp
    /// Its stream, `<category>-<uuid>`.
    var stream: String
    /// The typed event.
    var event: LedgerEvent
}

// MARK: - LogGenerator

/// Produces a realistic, deterministic sequence of v1 events: registrations (completed with and
/// without an image; about 15% failed at validation, on a taken email, or compensated after an
/// I/O error), later sign-ins, logouts and refused sign-ins. Up to a few activities are in flight
/// at once, so their streams interleave as concurrent requests do. `next(remaining:)` never starts
/// an activity it cannot finish, so a log of exactly N events ends with every registration settled.
struct LogGenerator {
    /// The live population the activities draw on.
    struct User { let uid: String; let email: String }
    /// A session that was started and not yet ended.
    struct Session { let id: String; let uid: String }

    /// What emitting an event makes true for later activities.
    enum Effect {
        case none
        case userActive(User)
        case sessionOpened(Session)
        case emailFreed(email: String, userName: String)
    }

    /// An event of an in-flight activity, built when it is emitted (it needs its own time).
    struct Step {
        let stream: String
        let effect: Effect
        let make: (Timestamp) -> LedgerEvent
    }

    /// Activities that may be in flight at once.
    static let maxConcurrent = 4
    /// The most events one activity has (a compensated registration with an image).
    static let longestActivity = 5
    /// How long a session lasts (the product's default, 30 days).
    static let sessionLifetime: Int64 = 30 * 24 * 3600 * 1000

    var rng: SplitMix64
    /// The time of the last emitted event.
    private(set) var clock: Timestamp
    let passwordHashes: [String]
    var users: [User] = []
    var openSessions: [Session] = []
    var freedEmails: [(email: String, userName: String)] = []
    var serial = 0
    private var inFlight: [(steps: [Step], next: Int)] = []
    private var pending = 0

    /// A generator seeded with `seed`, starting at `start`, using the given real crypt strings.
    init(seed: UInt64, start: Timestamp, passwordHashes: [String]) {
        precondition(!passwordHashes.isEmpty, "at least one password hash")
        rng = SplitMix64(seed: seed)
        clock = start
        self.passwordHashes = passwordHashes
    }

    /// The next event; `remaining` counts it and every event still to come (≥ 1).
    mutating func next(remaining: Int) -> GeneratedEvent {
        precondition(remaining >= 1 && pending <= remaining)
        let room = remaining - pending
        if room > 0 && (inFlight.isEmpty || (inFlight.count < Self.maxConcurrent && rng.chance(perMille: 450))) {
            let steps = room >= Self.longestActivity ? startActivity() : startSingleEventActivity()
            inFlight.append((steps, 0))
            pending += steps.count
        }
        let slot = rng.below(inFlight.count)
        let step = inFlight[slot].steps[inFlight[slot].next]
        inFlight[slot].next += 1
        if inFlight[slot].next == inFlight[slot].steps.count { inFlight.remove(at: slot) }
        pending -= 1
        clock = clock.adding(milliseconds: Int64(rng.int(in: 40...700)))
        apply(step.effect)
        return GeneratedEvent(id: uuid(), at: clock, stream: step.stream, event: step.make(clock))
    }

    private mutating func apply(_ effect: Effect) {
        switch effect {
        case .none: break
        case .userActive(let user): users.append(user)
        case .sessionOpened(let session): openSessions.append(session)
        case .emailFreed(let email, let userName): freedEmails.append((email, userName))
        }
    }

    // MARK: - Randomness helpers

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A version-4 lowercase UUID.
    mutating func uuid() -> String {
        let words = [rng.next(), rng.next()]
        var out = [UInt8](repeating: UInt8(ascii: "-"), count: 36)
        var nibble = 0
        for position in 0..<36 where position != 8 && position != 13 && position != 18 && position != 23 {
            var value = Int((words[nibble / 16] >> UInt64(60 - 4 * (nibble % 16))) & 0xF)
            if nibble == 12 { value = 4 }                   // version
            if nibble == 16 { value = 8 | (value & 0x3) }  // variant
            out[position] = Self.hexDigits[value]
            nibble += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// 64 lowercase hex digits (a SHA-256 look-alike).
    mutating func hex64() -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for _ in 0..<4 {
            let word = rng.next()
            for shift in stride(from: 60, through: 0, by: -4) { out.append(Self.hexDigits[Int((word >> UInt64(shift)) & 0xF)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
