import LedgerDomain
import LedgerKit
import Testing

// The saga's shell in-process: the coordinator over an in-memory store and blob store
// (locks go to a temporary folder), so every failure path is deterministic.

@Suite struct RegistrationCoordinatorTests {
    private let png: [UInt8] = (try? readBytes(samplePNG)) ?? []

    private func coordinator(_ store: InMemoryEventStore, _ blobs: MemoryBlobStore, _ directory: String,
                             failpoints: String? = nil, seed: UInt64 = 11) throws -> RegistrationCoordinator {
        // Each coordinator gets its own seed: two with the same seed would draw the same ids.
        RegistrationCoordinator(store: store, blobs: blobs, directory: directory, clock: FixedClock(step: 1),
                                random: SeededRandom(seed: seed), hasher: PasswordHasher(cost: 1), failpoints: try Failpoints(failpoints))
    }

    private func input(_ email: String = "zoe@example.com", image: Bool = true) -> RegistrationInput {
        RegistrationInput(email: email, userName: "Zoë", password: "long enough password", image: image ? png : nil)
    }

    private func types(_ store: InMemoryEventStore) -> [String] { store.events.map(\.envelope.type) }

    private func checkViews(_ store: InMemoryEventStore) -> LedgerViews {
        var views = LedgerViews()
        for event in store.events {
            views.apply(event)
            #expect(views.invariantViolations() == [], "after seq \(event.seq)")
        }
        return views
    }

    @Test func completedRegistrationWritesEveryStepAndASession() throws {
        try withTempDirectory { dir in
            let store = InMemoryEventStore(), blobs = MemoryBlobStore()
            let result = try coordinator(store, blobs, dir).register(input(), idempotencyKey: nil)
            #expect(result.outcome == .completed)
            #expect(types(store) == ["AccountCreated", "ImageStored", "ProfileWritten", "SessionStarted"])
            let image = try #require(result.profileImageName)
            #expect(blobs.blobs[image] == png)
            let token = try #require(result.token)
            guard case .sessionStarted(let started) = store.events.last?.event else { Issue.record("no session"); return }
            #expect(started.tokenHash == SHA256.hex(token))
            #expect(started.sessionId == result.sessionId)
            let views = checkViews(store)
            #expect(views.users.row(uid: result.uid ?? "")?.status == .active)
        }
    }

    // MARK: - Durable writes per registration

    /// Steps that touch nothing outside the log are one append: a registration without an image is
    /// one durable write, its first session included.
    @Test func aRegistrationWithoutAnImageIsOneWrite() throws {
        try withTempDirectory { dir in
            let store = InMemoryEventStore(), blobs = MemoryBlobStore()
            let result = try coordinator(store, blobs, dir).register(input(image: false), idempotencyKey: nil)
            #expect(result.outcome == .completed)
            #expect(store.batches == [["AccountCreated", "ProfileWritten", "SessionStarted"]])
            _ = checkViews(store)
        }
    }

    /// The one outside effect (the blob) comes before anything is created, so the account, the image
    /// the profile and the first session are one durable write too (plus the blob's own syncs).
    @Test func aRegistrationWithAnImageIsOneWriteAfterItsBlob() throws {
        try withTempDirectory { dir in
            let store = InMemoryEventStore(), blobs = MemoryBlobStore()
            var batchesBeforeTheBlob: Int?
            blobs.onPut = { _ in batchesBeforeTheBlob = store.batches.count }
            let result = try coordinator(store, blobs, dir).register(input(), idempotencyKey: nil)
            #expect(result.outcome == .completed)
            #expect(batchesBeforeTheBlob == 0, "the blob is written before any event")
            #expect(store.batches == [["AccountCreated", "ImageStored", "ProfileWritten", "SessionStarted"]])
            #expect(blobs.blobs[result.profileImageName ?? ""] == png)
            _ = checkViews(store)
        }
    }

    /// A failing step after the blob: the batch records the image, so it is compensated with
    /// `ImageDeleted` (the blob is removed between the two writes), then the account.
    @Test func aFailedProfileWithAnImageRecordsTheImageBeforeUndoingIt() throws {
        try withTempDirectory { dir in
            let store = InMemoryEventStore(), blobs = MemoryBlobStore()
            let result = try coordinator(store, blobs, dir, failpoints: "ProfileWritten=error").register(input(), idempotencyKey: nil)
            #expect(result.outcome == .compensated)
            #expect(store.batches == [["AccountCreated", "ImageStored", "Failed"], ["ImageDeleted"], ["AccountDeleted"]])
            #expect(blobs.blobs.isEmpty)
            _ = checkViews(store)
        }
    }

    /// A failing pure step: the account, the failure and its compensation land together, or not at all.
    @Test func aFailedProfileWithoutAnImageIsOneWriteToo() throws {
        try withTempDirectory { dir in
            let store = InMemoryEventStore(), blobs = MemoryBlobStore()
            let result = try coordinator(store, blobs, dir, failpoints: "ProfileWritten=error").register(input(image: false), idempotencyKey: nil)
            #expect(result.outcome == .compensated)
            #expect(result.failure?.step == .profile)
            #expect(store.batches == [["AccountCreated", "Failed", "AccountDeleted"]])
            _ = checkViews(store)
        }
    }

    /// A taken email refuses the whole staged batch: only the `Failed` of the account step is written.
    @Test func aTakenEmailRefusesTheStagedBatch() throws {
        try withTempDirectory { dir in
            let store = InMemoryEventStore(), blobs = MemoryBlobStore()
            _ = try coordinator(store, blobs, dir, seed: 1).register(input(image: false), idempotencyKey: nil)
            let second = try coordinator(store, blobs, dir, seed: 2).register(input(image: false), idempotencyKey: nil)
            #expect(second.outcome == .rejected)
            #expect(second.failure?.step == .account && second.failure?.reason == "email-already-in-use")
            #expect(store.batches.last == ["Failed"])
            #expect(checkViews(store).users.rows.count == 1)
        }
    }

    /// The blob comes first, so a blob that cannot be written fails the registration before any
    /// account exists: one `Failed` (step `image`), nothing to compensate.
    @Test func failedBlobWriteRejectsBeforeAnythingIsCreated() throws {
        try withTempDirectory { dir in
            let store = InMemoryEventStore(), blobs = MemoryBlobStore()
            blobs.failPuts = true
            let result = try coordinator(store, blobs, dir).register(input(), idempotencyKey: nil)
            #expect(result.outcome == .rejected)
            #expect(result.failure?.step == .image)
            #expect(result.failure?.reason == "io-error")
            #expect(result.failure?.uid == nil)
            #expect(store.batches == [["Failed"]])
            #expect(blobs.blobs.isEmpty)
            #expect(checkViews(store).users.rows.isEmpty)
        }
    }

    /// A refused batch (here: the email is taken) means no `ImageStored`: the blob written before it
    /// is discarded; if it cannot be, it is an orphan file that `recover` removes.
    @Test func aBlobNoEventOwnsIsDiscardedOrLeftForRecover() throws {
        try withTempDirectory { dir in
            let store = InMemoryEventStore(), blobs = MemoryBlobStore()
            _ = try coordinator(store, blobs, dir, seed: 1).register(input(image: false), idempotencyKey: nil)
            blobs.failRemoves = true
            let second = try coordinator(store, blobs, dir, seed: 2).register(input(), idempotencyKey: nil)
            #expect(second.outcome == .rejected)
            #expect(second.failure?.step == .account && second.failure?.reason == "email-already-in-use")
            #expect(store.batches.last == ["Failed"])
            let orphan = try #require(blobs.blobs.keys.first)
            #expect(blobs.blobs.count == 1)

            blobs.failRemoves = false
            let report = try coordinator(store, blobs, dir, seed: 3).recover()
            #expect(report.removedImages == [orphan])
            #expect(report.interrupted.isEmpty && report.compensated.isEmpty)
            #expect(blobs.blobs.isEmpty)
            #expect(checkViews(store).images.rows.isEmpty)
        }
    }

    @Test func failedImageRemovalLeavesCompensationPendingUntilRecover() throws {
        try withTempDirectory { dir in
            let store = InMemoryEventStore(), blobs = MemoryBlobStore()
            blobs.failRemoves = true
            let result = try coordinator(store, blobs, dir, failpoints: "ProfileWritten=error").register(input(), idempotencyKey: nil)
            #expect(result.outcome == .compensationPending)
            #expect(types(store) == ["AccountCreated", "ImageStored", "Failed"])
            #expect(blobs.blobs.count == 1)

            blobs.failRemoves = false
            let report = try coordinator(store, blobs, dir, seed: 12).recover()
            #expect(report.compensated == [result.registration])
            #expect(report.interrupted.isEmpty)
            #expect(types(store) == ["AccountCreated", "ImageStored", "Failed", "ImageDeleted", "AccountDeleted"])
            #expect(blobs.blobs.isEmpty)
            let views = checkViews(store)
            #expect(views.registrations.state(of: result.registration)?.outcome == .compensated)

            let again = try coordinator(store, blobs, dir, seed: 13).recover()
            #expect(again.changedNothing)
            #expect(store.events.count == 5)
        }
    }

    @Test func secondAccountWithTheSameEmailIsRejected() throws {
        try withTempDirectory { dir in
            let store = InMemoryEventStore(), blobs = MemoryBlobStore()
            let first = try coordinator(store, blobs, dir).register(input("Dup@Example.com", image: false), idempotencyKey: nil)
            let second = try coordinator(store, blobs, dir, seed: 12).register(input("dup@example.com", image: true), idempotencyKey: nil)
            #expect(first.outcome == .completed)
            #expect(second.outcome == .rejected)
            #expect(second.failure?.step == .account)
            #expect(second.failure?.reason == "email-already-in-use")
            #expect(blobs.blobs.isEmpty, "the second registration's image must not stay behind")
            #expect(store.batches.last == ["Failed"], "the refused batch left nothing but the failure")
            #expect(checkViews(store).users.rows.count == 1)
        }
    }

    @Test func validationRefusalAppendsOneFailedAndNothingElse() throws {
        try withTempDirectory { dir in
            let store = InMemoryEventStore(), blobs = MemoryBlobStore()
            var bad = input()
            bad.image = Array("not an image".utf8)
            let result = try coordinator(store, blobs, dir).register(bad, idempotencyKey: nil)
            #expect(result.outcome == .rejected)
            #expect(result.failure?.step == .validation)
            #expect(result.failure?.reason == "invalid-image")
            #expect(types(store) == ["Failed"])
            #expect(blobs.blobs.isEmpty)
        }
    }

    @Test func idempotencyKeyReturnsTheFirstOutcome() throws {
        try withTempDirectory { dir in
            let store = InMemoryEventStore(), blobs = MemoryBlobStore()
            let first = try coordinator(store, blobs, dir).register(input(), idempotencyKey: "key-1")
            let count = store.events.count
            let second = try coordinator(store, blobs, dir, seed: 12).register(input(), idempotencyKey: "key-1")
            #expect(second.registration == first.registration)
            #expect(second.registration == RegistrationCoordinator.registrationID(forKey: "key-1"))
            #expect(second.outcome == .completed)
            #expect(second.replayed)
            #expect(second.token == nil)
            #expect(store.events.count == count)
        }
    }

    @Test func differentIdempotencyKeysAreDifferentRegistrations() throws {
        // The id is SHA-256 of the key's bytes (values computed with Python's hashlib): a release
        // build once hashed a dangling pointer instead, and every key mapped to one registration.
        #expect(RegistrationCoordinator.registrationID(forKey: "a") == "506d8d42-bb0b-47ee-9259-3be62399c44e")
        #expect(RegistrationCoordinator.registrationID(forKey: "order-42") == "61abd095-f8cd-4616-91e4-832c5985e7a9")
        try withTempDirectory { dir in
            let store = InMemoryEventStore(), blobs = MemoryBlobStore()
            var other = input()
            other.email = "someone.else@example.com"
            let first = try coordinator(store, blobs, dir).register(input(), idempotencyKey: "key-1")
            let second = try coordinator(store, blobs, dir, seed: 12).register(other, idempotencyKey: "key-2")
            #expect(second.registration != first.registration)
            #expect(second.uid != first.uid)
            #expect(!second.replayed)
            #expect(second.outcome == .completed)
        }
    }
}
