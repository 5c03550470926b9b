import LedgerDomain
import LedgerKit

// MARK: - Fixtures

/// Deterministic ids and one valid event of every catalogue type.
enum Fixtures {
    /// The bytes of a 3,000-line log of every event type, written by `FileEventStore` into `dir`
    /// (more than a read chunk's lines, so scans take the pipelined path; a new folder: data version
    /// 2, the personal members encrypted under its keys). `seed` picks the store's random ids.
    static func mixedLog(in dir: String, seed: UInt64) throws -> [UInt8] {
        let store = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: seed))
        try appendMixed(to: store)
        return try readBytes(store.logPath)
    }

    /// The same events as `mixedLog`, as a store of data version 1 writes them (each line takes the
    /// in-place lane, which reads version 1 lines).
    static func mixedVersion1Log(seed: UInt64) throws -> [UInt8] {
        let store = InMemoryEventStore(clock: FixedClock(step: 1), random: SeededRandom(seed: seed))
        try appendMixed(to: store)
        return store.log
    }

    /// Appends `mixedLog`'s events to `store`.
    private static func appendMixed(to store: any LedgerStore) throws {
        for n in 0..<300 {
            let types: [EventType] = [.accountCreated, .imageStored, .profileWritten, .failed, .imageDeleted, .accountDeleted]
            _ = try store.append(types.map { event($0, n) }, to: stream(.registration, n), expected: .noStream)
            _ = try store.append([event(.sessionStarted, n)], to: stream(.session, n), expected: .noStream)
            _ = try store.append([event(.sessionEnded, n)], to: stream(.session, n), expected: .exactly(1))
            _ = try store.append([signIn(n)], to: stream(.signin, n), expected: .noStream)
            _ = try store.append([signIn(n + 1)], to: stream(.signin, n + 10_000), expected: .noStream)
        }
    }

    /// A lowercase UUID built from `n` (distinct `n` give distinct ids).
    static func uuid(_ n: Int) -> String {
        let hex = String(UInt64(n), radix: 16)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    /// A fresh stream name of `category` for `n`.
    static func stream(_ category: StreamCategory, _ n: Int) -> String { category.stream(uuid(n)) }

    /// A valid stream for an event of `type`, numbered `n`.
    static func stream(for type: EventType, _ n: Int) -> String { stream(type.category, n) }

    /// A 64-digit lowercase hex string derived from `n`.
    static func hex64(_ n: Int) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<64).map { digits[($0 * 7 + n) % 16] })
    }

    /// One valid event of `type`; `n` varies its members.
    static func event(_ type: EventType, _ n: Int = 1) -> LedgerEvent {
        let uid = uuid(1000 + n), image = uuid(2000 + n), session = uuid(3000 + n)
        let created = Timestamp(rfc3339: "2026-11-29T09:00:00.123Z")!
        switch type {
        case .accountCreated:
            return .accountCreated(AccountCreated(uid: uid, email: "user\(n)@example.com", passwordHash: "$y$j9T$salt\(n)$hash\(n)"))
        case .imageStored:
            return .imageStored(ImageStored(uid: uid, imageName: image, contentType: n.isMultiple(of: 2) ? .png : .jpeg,
                                            bytes: 82 + n, sha256: hex64(n)))
        case .profileWritten:
            return .profileWritten(ProfileWritten(uid: uid, email: "user\(n)@example.com", userName: "Zoë \"Ångström\" \\ \(n)",
                                                  profileImageName: n.isMultiple(of: 2) ? nil : image, createdAt: created))
        case .failed:
            return n.isMultiple(of: 2)
                ? .failed(Failed(step: .validation, reason: "invalid-email", message: "email is not valid:\n\ttab"))
                : .failed(Failed(step: .profile, reason: "io-error", message: "disk full", email: "user\(n)@example.com", uid: uid))
        case .imageDeleted:
            return .imageDeleted(ImageDeleted(uid: uid, imageName: image))
        case .accountDeleted:
            return .accountDeleted(AccountDeleted(uid: uid))
        case .sessionStarted:
            return .sessionStarted(SessionStarted(sessionId: session, uid: uid, tokenHash: hex64(n + 3),
                                                  expiresAt: Timestamp(rfc3339: "2126-11-29T00:00:00.000Z")!))
        case .sessionEnded:
            return .sessionEnded(SessionEnded(sessionId: session, uid: uid, reason: "logout"))
        case .signInFailed:
            return .signInFailed(SignInFailed(email: "nobody\(n)@example.com", reason: .unknownEmail))
        case .accountDisabled:
            return .accountDisabled(AccountDisabled(uid: uid, reason: n.isMultiple(of: 2) ? "" : "abuse report \"\(n)\"\nsee ticket"))
        case .accountEnabled:
            return .accountEnabled(AccountEnabled(uid: uid))
        case .emailVerificationRequested:
            return .emailVerificationRequested(EmailVerificationRequested(uid: uid, email: "user\(n)@example.com", tokenHash: hex64(n + 5),
                                                                          expiresAt: Timestamp(rfc3339: "2126-11-30T00:00:00.000Z")!))
        case .emailVerified:
            return .emailVerified(EmailVerified(uid: uid, email: "user\(n)@example.com"))
        case .passwordResetRequested:
            return .passwordResetRequested(PasswordResetRequested(uid: uid, tokenHash: hex64(n + 6),
                                                                  expiresAt: Timestamp(rfc3339: "2126-11-29T01:00:00.000Z")!))
        case .passwordChanged:
            return .passwordChanged(PasswordChanged(uid: uid, passwordHash: "$y$j9T$newsalt\(n)$newhash\(n)",
                                                    reason: n.isMultiple(of: 2) ? .reset : .change))
        case .emailChanged:
            return .emailChanged(EmailChanged(uid: uid, email: "moved\(n)@example.org", previousEmail: "user\(n)@example.com"))
        case .addressDataErased:
            return .addressDataErased(AddressDataErased(subject: SubjectID("address-2026-11-\(10 + n % 18)")!, reason: n.isMultiple(of: 2) ? .operator : .retention))
        case .personalDataErased:
            // An account of its own: appended, an erasure destroys its subject's key (the fixtures' other accounts stay readable).
            return .personalDataErased(PersonalDataErased(uid: uuid(5000 + n), reason: n.isMultiple(of: 2) ? .operator : .accountDeleted))
        case .logMigrated:
            return .logMigrated(LogMigrated(fromHead: Head(seq: 10 + n, hash: hex64(n + 7)), events: 10 + n, migratedAt: created))
        }
    }

    /// A refused sign-in event (a single-event `signin-` stream).
    static func signIn(_ n: Int) -> LedgerEvent {
        .signInFailed(SignInFailed(email: "drill\(n)@example.com", reason: n.isMultiple(of: 2) ? .wrongPassword : .unknownEmail))
    }

    /// A registration event (`AccountCreated`) numbered `n`.
    static func registration(_ n: Int) -> LedgerEvent { event(.accountCreated, n) }
}

// MARK: - Checkpoint round trips

extension Fixtures {
    /// `views` written as a checkpoint (ids fingerprinted from 1 up to its event count) and read back:
    /// the bytes and what was read.
    static func checkpointRoundTrip(_ views: LedgerViews) throws -> (bytes: [UInt8], views: LedgerViews) {
        var bytes: [UInt8] = []
        CheckpointWriter.write(views, ids: IDFingerprints(seed: .zero, sorted: Array(1...UInt64(max(views.events, 1))))!) { bytes.append(contentsOf: $0) }
        var offset = 0
        let read = try CheckpointReader.read { out in
            let n = min(out.count, bytes.count - offset)
            out.copyBytes(from: bytes[offset..<(offset + n)])
            offset += n
            return n
        }
        return (bytes, read.views)
    }
}
