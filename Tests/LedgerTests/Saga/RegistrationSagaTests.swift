import LedgerDomain
import LedgerKit
import Testing

// `RegistrationSaga.nextAction` for each state: given the registration's events, then the action.

@Suite struct RegistrationSagaTests {
    /// The state folded from `events` of registration `r` (appended through the in-memory store).
    private func state(_ r: RegistrationScript, _ events: [LedgerEvent]) throws -> RegistrationState {
        let s = ViewScenario()
        for event in events { try s.given(event, in: r.stream) }
        return s.state(r.registration)
    }

    @Test func startsWithTheBlobWhenAnImageIsPlannedElseWithTheAccount() throws {
        let r = RegistrationScript(100)
        let empty = RegistrationState(registration: r.registration)
        #expect(RegistrationSaga.nextAction(empty, withImage: true) == .writeImage)
        #expect(RegistrationSaga.nextAction(empty, withImage: true, writtenImage: r.imageName) == .createAccount)
        #expect(RegistrationSaga.nextAction(empty, withImage: false) == .createAccount)
        #expect(empty.outcome == .inProgress)
        #expect(empty.nextStep == .account)
    }

    @Test func recordsTheWrittenImageAfterTheAccount() throws {
        let r = RegistrationScript(101)
        let s = try state(r, [r.accountCreated()])
        #expect(RegistrationSaga.nextAction(s, withImage: true, writtenImage: r.imageName) == .recordImage)
        // A blob is never recorded before it is written.
        #expect(RegistrationSaga.nextAction(s, withImage: true) == .writeImage)
        #expect(s.nextStep == .image)
        #expect(s.withImage)
    }

    /// The forward path with an image, as the coordinator runs it: the only outside effect comes
    /// first, so the three events after it can be one batch.
    @Test func withAnImageTheBlobComesFirstThenTheThreeEvents() throws {
        let r = RegistrationScript(111)
        let s = ViewScenario()
        var written: String?
        var actions: [RegistrationSaga.Action] = []
        for _ in 0..<6 {
            let action = RegistrationSaga.nextAction(s.state(r.registration), withImage: true, writtenImage: written)
            actions.append(action)
            switch action {
            case .writeImage: written = r.imageName
            case .createAccount: try s.given(r.accountCreated(), in: r.stream)
            case .recordImage: try s.given(r.imageStored, in: r.stream)
            case .writeProfile: try s.given(r.profileWritten(), in: r.stream)
            default: break
            }
            if case .finish = action { break }
        }
        #expect(actions == [.writeImage, .createAccount, .recordImage, .writeProfile, .finish(.completed)])
    }

    /// A failure before `ImageStored` leaves a blob that no event owns: it is discarded, and the
    /// registration ends rejected (nothing was created) or compensated.
    @Test func discardsAWrittenBlobThatNoEventOwns() throws {
        let r = RegistrationScript(112)
        let taken = try state(r, [r.failed(.account, reason: "email-already-in-use", withUID: false)])
        #expect(RegistrationSaga.nextAction(taken, withImage: true, writtenImage: r.imageName) == .discardImage(imageName: r.imageName))
        #expect(RegistrationSaga.nextAction(taken, withImage: true) == .finish(.rejected))
        // The account is undone first; the blob after it.
        let failed = try state(r, [r.accountCreated(), r.failed(.image)])
        #expect(RegistrationSaga.nextAction(failed, withImage: true, writtenImage: r.imageName) == .undoAccount(uid: r.uid))
        let undone = try state(r, [r.accountCreated(), r.failed(.image), r.accountDeleted])
        #expect(RegistrationSaga.nextAction(undone, withImage: true, writtenImage: r.imageName) == .discardImage(imageName: r.imageName))
    }

    /// A blob that `ImageStored` records is compensated with `ImageDeleted`, never discarded silently.
    @Test func aRecordedBlobIsUndoneNotDiscarded() throws {
        let r = RegistrationScript(113)
        let failed = try state(r, [r.accountCreated(), r.imageStored, r.failed(.profile)])
        #expect(RegistrationSaga.nextAction(failed, withImage: true, writtenImage: r.imageName) == .undoImage(uid: r.uid, imageName: r.imageName))
        let imageUndone = try state(r, [r.accountCreated(), r.imageStored, r.failed(.profile), r.imageDeleted])
        #expect(RegistrationSaga.nextAction(imageUndone, withImage: true, writtenImage: r.imageName) == .undoAccount(uid: r.uid))
        let done = try state(r, [r.accountCreated(), r.imageStored, r.failed(.profile), r.imageDeleted, r.accountDeleted])
        #expect(RegistrationSaga.nextAction(done, withImage: true, writtenImage: r.imageName) == .finish(.compensated))
    }

    /// The image step can now fail before anything is created: rejected, nothing to compensate.
    @Test func aFailedBlobWriteIsRejectedWithNothingToUndo() throws {
        let r = RegistrationScript(114)
        let s = try state(r, [r.failed(.image, withUID: false)])
        #expect(RegistrationSaga.nextAction(s, withImage: true) == .finish(.rejected))
        #expect(s.outcome == .rejected)
    }

    @Test func writesTheProfileWhenThereIsNoImageStep() throws {
        let r = RegistrationScript(102)
        let s = try state(r, [r.accountCreated(withImage: false)])
        #expect(RegistrationSaga.nextAction(s, withImage: false) == .writeProfile)
        #expect(s.nextStep == .profile)
    }

    @Test func writesTheProfileAfterTheImage() throws {
        let r = RegistrationScript(103)
        let s = try state(r, [r.accountCreated(), r.imageStored])
        #expect(RegistrationSaga.nextAction(s, withImage: true) == .writeProfile)
        #expect(s.nextStep == .profile)
        #expect(s.imageLive)
    }

    @Test func finishesCompletedAfterTheProfile() throws {
        let r = RegistrationScript(104)
        let s = try state(r, [r.accountCreated(), r.imageStored, r.profileWritten()])
        #expect(RegistrationSaga.nextAction(s, withImage: true) == .finish(.completed))
        #expect(s.outcome == .completed)
        #expect(s.nextStep == .session)
    }

    @Test func finishesRejectedWhenNothingWasCreated() throws {
        let r = RegistrationScript(105)
        let validation = try state(r, [.failed(Failed(step: .validation, reason: "invalid-email", message: "bad", email: "x"))])
        #expect(RegistrationSaga.nextAction(validation, withImage: true) == .finish(.rejected))
        let taken = try state(r, [r.failed(.account, reason: "email-already-in-use", withUID: false)])
        #expect(RegistrationSaga.nextAction(taken, withImage: false) == .finish(.rejected))
    }

    @Test func compensatesTheImageFirstThenTheAccount() throws {
        let r = RegistrationScript(106)
        let failed = try state(r, [r.accountCreated(), r.imageStored, r.failed(.profile)])
        #expect(RegistrationSaga.nextAction(failed, withImage: true) == .undoImage(uid: r.uid, imageName: r.imageName))
        #expect(failed.outcome == .compensationPending)

        let imageUndone = try state(r, [r.accountCreated(), r.imageStored, r.failed(.profile), r.imageDeleted])
        #expect(RegistrationSaga.nextAction(imageUndone, withImage: true) == .undoAccount(uid: r.uid))
        #expect(imageUndone.outcome == .compensationPending)

        let done = try state(r, [r.accountCreated(), r.imageStored, r.failed(.profile), r.imageDeleted, r.accountDeleted])
        #expect(RegistrationSaga.nextAction(done, withImage: true) == .finish(.compensated))
        #expect(done.compensations == [.imageDeleted, .accountDeleted])
    }

    @Test func compensatesOnlyTheAccountWhenTheImageStepFailed() throws {
        let r = RegistrationScript(107)
        let failed = try state(r, [r.accountCreated(), r.failed(.image)])
        #expect(RegistrationSaga.nextAction(failed, withImage: true) == .undoAccount(uid: r.uid))
        let done = try state(r, [r.accountCreated(), r.failed(.image), r.accountDeleted])
        #expect(RegistrationSaga.nextAction(done, withImage: true) == .finish(.compensated))
    }

    @Test func aFailureStopsForwardSteps() throws {
        // Even with the image step missing, a failure means compensation, never a forward step.
        let r = RegistrationScript(108)
        let s = try state(r, [r.accountCreated(), r.failed(.image, reason: "interrupted")])
        #expect(RegistrationSaga.nextAction(s, withImage: true) == .undoAccount(uid: r.uid))
    }

    @Test func failureEventCarriesTheStateEmailAndAccount() throws {
        let r = RegistrationScript(109)
        let s = try state(r, [r.accountCreated(withImage: false)])
        let event = RegistrationSaga.failure(at: .profile, reason: "interrupted", message: "died", state: s, email: "other@example.com")
        #expect(event == .failed(Failed(step: .profile, reason: "interrupted", message: "died", email: r.email, uid: r.uid)))
        let empty = RegistrationState(registration: r.registration)
        let early = RegistrationSaga.failure(at: .account, reason: "io-error", message: "m", state: empty, email: "given@example.com")
        #expect(early == .failed(Failed(step: .account, reason: "io-error", message: "m", email: "given@example.com", uid: nil)))
    }

    @Test func recoveryFollowsTheSameLoopFromAnInterruptedState() throws {
        // What `recover` does: fold, append Failed(interrupted) at nextStep, then drive compensations.
        let r = RegistrationScript(110)
        let s = ViewScenario()
        try s.given(r.accountCreated(), in: r.stream)
        try s.given(r.imageStored, in: r.stream)
        var state = s.state(r.registration)
        #expect(state.outcome == .inProgress)
        let failure = RegistrationSaga.failure(at: state.nextStep, reason: "interrupted", message: "died", state: state)
        try s.given(failure, in: r.stream)
        state = s.state(r.registration)
        #expect(state.failure?.step == .profile)
        var actions: [RegistrationSaga.Action] = []
        while true {
            let action = RegistrationSaga.nextAction(state, withImage: state.withImage)
            actions.append(action)
            switch action {
            case .undoImage(let uid, let image): try s.given(.imageDeleted(ImageDeleted(uid: uid, imageName: image)), in: r.stream)
            case .undoAccount(let uid): try s.given(.accountDeleted(AccountDeleted(uid: uid)), in: r.stream)
            default: break
            }
            if case .finish = action { break }
            #expect(actions.count < 5, "the loop must end")
            if actions.count >= 5 { break }
            state = s.state(r.registration)
        }
        #expect(actions == [.undoImage(uid: r.uid, imageName: r.imageName), .undoAccount(uid: r.uid), .finish(.compensated)])
        #expect(s.views.users.row(uid: r.uid)?.status == .deleted)
        #expect(s.views.images.row(imageName: r.imageName)?.status == .deleted)
    }
}
