import LedgerDomain
import Testing

// The saga's single entry point, pure: given a registration's log, when the shell reports what each
// instruction came to, then the instructions the run gives (what to perform, what to write on which
// terms, when to stop).

@Suite struct RegistrationRunTests {
    private typealias Run = RegistrationRun
    private let now = Timestamp(rfc3339: "2026-11-29T09:00:05.000Z")!

    private func plan(_ r: RegistrationScript, image: Bool) -> RegistrationPlan {
        let stored = ImageStored(uid: r.uid, imageName: r.imageName, contentType: .png, bytes: 82, sha256: Fixtures.hex64(3))
        return RegistrationPlan(uid: r.uid, email: r.email, userName: "Person", passwordHash: "$y$j9T$salt$hash", image: image ? stored : nil)
    }

    @Test func aRegistrationIsOneWriteOnTheTermsTheTableDecides() {
        let r = RegistrationScript(230)
        var run = Run(r.state(given: []), plan: plan(r, image: false))
        #expect(run.start(at: now) == .perform(.createAccount))
        #expect(run.performed(.done, at: now) == .perform(.writeProfile))
        #expect(run.state.version == 1, "the account is held, folded into what the saga sees")
        let write = run.performed(.done, at: now)
        #expect(write == .append([r.accountCreated(withImage: false), r.profileWritten(image: false)], version: 0,
                                 terms: AppendTerms(uniqueEmail: true, firstSession: r.uid), outcomeOf: .createAccount))
        #expect(run.start(at: now) == write, "asked again, the run gives the same instruction")
        #expect(run.appended(at: now) == .finish)
        #expect(run.state.outcome == .completed && run.state.version == 2)
    }

    @Test func withAnImageTheBlobIsWrittenFirstAndTheEventsStillShareOneWrite() {
        let r = RegistrationScript(231)
        var run = Run(r.state(given: []), plan: plan(r, image: true))
        #expect(run.start(at: now) == .perform(.writeImage))
        #expect(run.performed(.done, at: now) == .perform(.createAccount))
        #expect(run.writtenImage == r.imageName)
        #expect(run.performed(.done, at: now) == .perform(.recordImage))
        #expect(run.performed(.done, at: now) == .perform(.writeProfile))
        #expect(run.performed(.done, at: now) == .append([r.accountCreated(), r.imageStored, r.profileWritten()], version: 0,
                                                         terms: AppendTerms(uniqueEmail: true, firstSession: r.uid), outcomeOf: .createAccount))
        #expect(run.appended(at: now) == .finish)
        #expect(run.state.outcome == .completed)
    }

    @Test func aRefusedWriteIsTheOutcomeOfTheActionThatOpenedIt() {
        let r = RegistrationScript(232)
        let start = r.state(given: [])
        var run = Run(start, plan: plan(r, image: true))
        _ = run.start(at: now)
        _ = run.performed(.done, at: now)  // the blob
        _ = run.performed(.done, at: now)  // the account, held
        _ = run.performed(.done, at: now)  // the image, held
        guard case .append(_, _, _, .createAccount) = run.performed(.done, at: now) else { Issue.record("no write"); return }
        // The email was taken meanwhile: the account's step failed, none of the write happened.
        let failed = LedgerEvent.failed(Failed(step: .account, reason: "email-already-in-use", message: "taken", email: r.email, uid: nil))
        #expect(run.refused(.refused(.emailTaken, message: "taken"), at: now)
                == .append([failed], version: 0, terms: AppendTerms(), outcomeOf: nil), "a Failed is refused with the store's error")
        #expect(run.state.version == 1 && run.state.uid == nil, "the saga sees the log's state and the Failed")
        // The Failed is durable before the blob folder is touched: then the blob no event owns goes.
        #expect(run.appended(at: now) == .perform(.discardImage(imageName: r.imageName)))
        #expect(run.performed(.done, at: now) == .finish)
        #expect(run.writtenImage == nil && run.state.outcome == .rejected)
    }

    @Test func aFailedCompensationStopsTheRunCompensationPending() {
        let r = RegistrationScript(233)
        let given = r.state(given: [r.accountCreated(), r.imageStored, r.failed(.profile)])
        var run = Run(given, plan: nil)  // `recover`: no plan, the log's own image step
        #expect(run.start(at: now) == .perform(.undoImage(uid: r.uid, imageName: r.imageName)))
        #expect(run.performed(.failed(message: "EIO"), at: now) == .finish)
        #expect(run.state == given && run.state.outcome == .compensationPending)
    }

    @Test func recoverCompensatesWithTheSameMachine() {
        let r = RegistrationScript(234)
        var run = Run(r.state(given: [r.accountCreated(), r.imageStored, r.failed(.profile)]), plan: nil)
        #expect(run.start(at: now) == .perform(.undoImage(uid: r.uid, imageName: r.imageName)))
        #expect(run.performed(.done, at: now) == .append([r.imageDeleted], version: 3, terms: AppendTerms(), outcomeOf: .undoImage(uid: r.uid, imageName: r.imageName)))
        #expect(run.appended(at: now) == .perform(.undoAccount(uid: r.uid)))
        #expect(run.performed(.done, at: now) == .append([r.accountDeleted], version: 4, terms: AppendTerms(), outcomeOf: nil))
        #expect(run.appended(at: now) == .finish)
        #expect(run.state.outcome == .compensated)
    }
}
