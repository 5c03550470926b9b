import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - A data directory driven through the built `ledger`

/// The environment every `ledger` process of the saga, session and read-command tests gets:
/// the fastest yescrypt cost, and no failpoints unless a test sets them.
let fastHashEnvironment = ["LEDGER_HASH_COST": "1", "LEDGER_FAILPOINTS": ""]

/// A fresh data directory and the commands run against it (`--data DIR` is added to each).
struct LedgerDir {
    /// The data directory.
    let path: String

    /// `DIR/events.jsonl`.
    var logPath: String { path + "/events.jsonl" }
    /// `DIR/profile_image`.
    var imageFolder: String { path + "/profile_image" }

    /// Runs `ledger ARGS --data DIR` with `LEDGER_HASH_COST=1` plus `env`.
    func run(_ arguments: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> ProcessResult {
        try LedgerTests.run(Paths.ledger, arguments + ["--data", path], stdin: stdin,
                            env: fastHashEnvironment.merging(env) { _, new in new })
    }

    /// Starts `ledger ARGS --data DIR` without waiting for it.
    func start(_ arguments: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> RunningProcess {
        try LedgerTests.start(Paths.ledger, arguments + ["--data", path], stdin: stdin,
                              env: fastHashEnvironment.merging(env) { _, new in new })
    }

    /// The arguments of `ledger register … --password-stdin --json`.
    static func registerArguments(email: String?, username: String?, image: String? = nil, extra: [String] = []) -> [String] {
        var arguments = ["register", "--password-stdin", "--json"]
        if let email { arguments += ["--email", email] }
        if let username { arguments += ["--username", username] }
        if let image { arguments += ["--image", image] }
        return arguments + extra
    }

    /// `ledger register --json` with the password on standard input.
    func register(email: String?, username: String? = "Test User", password: String = "correct horse 1",
                  image: String? = nil, extra: [String] = [], env: [String: String] = [:]) throws -> ProcessResult {
        try run(Self.registerArguments(email: email, username: username, image: image, extra: extra),
                stdin: password + "\n", env: env)
    }

    /// `ledger login --json` with the password on standard input.
    func login(email: String, password: String, json: Bool = true) throws -> ProcessResult {
        try run(["login", "--email", email, "--password-stdin"] + (json ? ["--json"] : []), stdin: password + "\n")
    }

    /// Runs a read command with `--json`, requires exit 0, and parses its standard output.
    func json(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
        let result = try run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result)", sourceLocation: sourceLocation)
        return try parseJSON(result.stdout)
    }

    // MARK: Files

    /// The log's bytes (empty when there is no log yet).
    func logBytes() throws -> [UInt8] {
        FileManager.default.fileExists(atPath: logPath) ? try readBytes(logPath) : []
    }

    /// Every line of the log, parsed as a JSON object, its personal members opened with the
    /// folder's keys (as readers see them: a data version 2 line stores them encrypted).
    func events() throws -> [[String: Any]] {
        try openedJSONLines(logBytes(), directory: path)
    }

    /// The `data` of every event of `type`, in log order.
    func data(of type: String) throws -> [[String: Any]] {
        try events().filter { $0["type"] as? String == type }.compactMap { $0["data"] as? [String: Any] }
    }

    /// The names in `DIR/profile_image` (none when the folder is absent).
    func imageFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: imageFolder)) ?? []).sorted()
    }

    /// Every regular file under the data directory, recursively, as absolute paths.
    func allFiles() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: path) else { return [] }
        var out: [String] = []
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let full = path + "/" + relative
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue { out.append(full) }
        }
        return out.sorted()
    }
}

/// Runs `body` with a fresh, empty data directory that is removed afterwards.
func withLedgerDir<T>(_ body: (LedgerDir) throws -> T) throws -> T {
    try withTempDirectory("ledger-saga") { try body(LedgerDir(path: $0)) }
}

// MARK: - Sample inputs

/// The valid 2x2 PNG shipped with the demo sample.
let samplePNG: String = {
    let folder = Paths.repo("Events/samples/demo/profile_image")
    let name = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted().first ?? "missing"
    return folder + "/" + name
}()

/// A unique email for one test.
func uniqueEmail(_ label: String = "user") -> String { "\(label)-\(UUID().uuidString.lowercased().prefix(8))@example.com" }

// MARK: - JSON

/// Parses `text` (one JSON document, surrounding whitespace allowed).
func parseJSON(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}

/// Parses `text` as one JSON object.
func parseObject(_ text: String) throws -> [String: Any] {
    guard let object = try parseJSON(text) as? [String: Any] else { throw SystemTestError("not a JSON object: \(text)") }
    return object
}

/// The member names of a JSON object.
func keys(_ value: Any?) -> Set<String> { Set((value as? [String: Any])?.keys.map { $0 } ?? []) }

/// The uid → status map of a `ledger users --json` array.
func userStatuses(_ value: Any) -> [String: String] {
    var out: [String: String] = [:]
    for row in value as? [[String: Any]] ?? [] {
        if let uid = row["uid"] as? String, let status = row["status"] as? String { out[uid] = status }
    }
    return out
}

// MARK: - Given events, then views (pure)

/// Appends events to an in-memory store (real envelopes, real hash chain), folds each into
/// `LedgerViews` and checks every invariant after every event.
final class ViewScenario {
    /// The clock the store stamps events with (one second per read by default).
    let clock: FixedClock
    /// The store.
    let store: InMemoryEventStore
    /// The views folded so far.
    private(set) var views = LedgerViews()
    /// Every recorded event so far.
    private(set) var recorded: [RecordedEvent] = []

    /// An empty scenario starting at 2026-11-29T09:00:00.000Z.
    init(step: Int64 = 1000) {
        clock = FixedClock(FixedClock.start, step: step)
        store = InMemoryEventStore(clock: clock, random: SeededRandom(seed: 7))
    }

    /// Sets the time of the next event.
    func at(_ rfc3339: String) { clock.instant = Timestamp(rfc3339: rfc3339)! }

    /// Appends `event` to `stream`, folds it, and expects no invariant violation afterwards.
    @discardableResult
    func given(_ event: LedgerEvent, in stream: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> RecordedEvent {
        let appended = try store.append([event], to: stream, expected: .any)
        let one = try #require(appended.first, sourceLocation: sourceLocation)
        views.apply(one)
        recorded.append(one)
        #expect(views.invariantViolations() == [], "after seq \(one.seq) \(one.envelope.type)", sourceLocation: sourceLocation)
        return one
    }

    /// The views folded from the first `count` events (what `--as-of count` shows).
    func views(asOf count: Int) -> LedgerViews {
        var out = LedgerViews()
        for event in recorded.prefix(count) { out.apply(event) }
        return out
    }

    /// The registration state folded from `registration`'s events.
    func state(_ registration: String) -> RegistrationState {
        var state = RegistrationState(registration: registration)
        for event in recorded where event.stream == StreamCategory.registration.stream(registration) { state.evolve(event) }
        return state
    }
}

/// Builders of the events of one registration, with fixed ids derived from `n`.
struct RegistrationScript {
    /// The registration id.
    let registration: String
    /// The account id.
    let uid: String
    /// The image name.
    let imageName: String
    /// The email.
    let email: String

    /// A script numbered `n` (distinct `n` give distinct ids).
    init(_ n: Int, email: String? = nil) {
        registration = Fixtures.uuid(5000 + n); uid = Fixtures.uuid(6000 + n); imageName = Fixtures.uuid(7000 + n)
        self.email = email ?? "person\(n)@example.com"
    }

    /// The registration's stream.
    var stream: String { StreamCategory.registration.stream(registration) }

    /// `AccountCreated`.
    func accountCreated(withImage: Bool = true) -> LedgerEvent {
        .accountCreated(AccountCreated(uid: uid, email: email, passwordHash: "$y$j9T$salt$hash", withImage: withImage))
    }
    /// `ImageStored`.
    var imageStored: LedgerEvent {
        .imageStored(ImageStored(uid: uid, imageName: imageName, contentType: .png, bytes: 82, sha256: Fixtures.hex64(3)))
    }
    /// `ProfileWritten`.
    func profileWritten(image: Bool = true) -> LedgerEvent {
        .profileWritten(ProfileWritten(uid: uid, email: email, userName: "Person", profileImageName: image ? imageName : nil,
                                       createdAt: Timestamp(rfc3339: "2026-11-29T09:00:05.000Z")!))
    }
    /// `Failed` at `step` (with the email and, when `withUID`, the account).
    func failed(_ step: RegistrationStep, reason: String = "io-error", withUID: Bool = true) -> LedgerEvent {
        .failed(Failed(step: step, reason: reason, message: "\(reason) at \(step.rawValue)", email: email, uid: withUID ? uid : nil))
    }
    /// `ImageDeleted`.
    var imageDeleted: LedgerEvent { .imageDeleted(ImageDeleted(uid: uid, imageName: imageName)) }
    /// `AccountDeleted`.
    var accountDeleted: LedgerEvent { .accountDeleted(AccountDeleted(uid: uid)) }
    /// `SessionStarted` for session `n` expiring at `expiresAt`.
    func sessionStarted(_ session: String, expiresAt: String = "2026-12-29T09:00:00.000Z") -> LedgerEvent {
        .sessionStarted(SessionStarted(sessionId: session, uid: uid, tokenHash: Fixtures.hex64(9),
                                       expiresAt: Timestamp(rfc3339: expiresAt)!))
    }
    /// `SessionEnded` (logout).
    func sessionEnded(_ session: String) -> LedgerEvent {
        .sessionEnded(SessionEnded(sessionId: session, uid: uid, reason: "logout"))
    }
}

// MARK: - An in-memory blob store that can be told to fail

/// A `BlobStore` double: blobs in memory; `failPuts` / `failRemoves` make those calls throw.
final class MemoryBlobStore: BlobStore {
    /// The blobs.
    private(set) var blobs: [String: [UInt8]] = [:]
    /// When true, `put` throws an I/O error.
    var failPuts = false
    /// When true, `remove` throws an I/O error.
    var failRemoves = false
    /// Called with each name before it is put (to see what the log held at that moment).
    var onPut: (String) -> Void = { _ in }

    /// An empty store.
    init() {}

    func put(_ name: String, _ bytes: [UInt8]) throws {
        onPut(name)
        if failPuts { throw SystemTestError("injected put failure") }
        blobs[name] = bytes
    }

    func remove(_ name: String) throws {
        if failRemoves { throw SystemTestError("injected remove failure") }
        blobs[name] = nil
    }

    func get(_ name: String) throws -> [UInt8]? { blobs[name] }

    func names() throws -> [String] { blobs.keys.sorted() }
}

extension LedgerViews {
    /// Empty views whose sign-in view counts under `policy`.
    static func folding(_ policy: SignInPolicy) -> LedgerViews {
        var views = LedgerViews()
        views.signIns = SignInView(policy: policy)
        return views
    }
}

// MARK: - Given events, when an action, then events (the saga's table, pure)

extension RegistrationScript {
    /// The saga's state of this registration after `events` (folded without a store).
    func state(given events: [LedgerEvent]) -> RegistrationState {
        var state = RegistrationState(registration: registration)
        events.forEach { state.evolve($0) }
        return state
    }

    /// The plan whose events this script's builders make (`profileWritten` at `profileAt`).
    func plan(withImage: Bool = true) -> RegistrationPlan {
        guard case .imageStored(let image) = imageStored else { preconditionFailure("imageStored builds an ImageStored") }
        return RegistrationPlan(uid: uid, email: email, userName: "Person", passwordHash: "$y$j9T$salt$hash", image: withImage ? image : nil)
    }

    /// The time `profileWritten` records.
    var profileAt: Timestamp { Timestamp(rfc3339: "2026-11-29T09:00:05.000Z")! }

    /// What the saga decides for `action`'s `outcome`, given `events` and this script's plan.
    func decide(given events: [LedgerEvent], when action: RegistrationSaga.Action, _ outcome: RegistrationSaga.StepOutcome,
                withImage: Bool = true, planned: Bool = true) -> RegistrationSaga.Decision {
        RegistrationSaga.decide(action, outcome, state: state(given: events), plan: planned ? plan(withImage: withImage) : nil, at: profileAt)
    }
}
