import LedgerDomain
@testable import LedgerKit
import Testing

// The saga's table, pure: given a registration's events, its phase and the phase's one action;
// when an action came to an outcome, the events `decide` returns.

@Suite struct RegistrationSagaTableTests {
    private typealias Saga = RegistrationSaga

    // MARK: - Phases and their actions

    @Test func eachPhaseHasOneAction() {
        let r = RegistrationScript(200)
        let table: [(Saga.Phase, Saga.Action)] = [
            (.writingImage, .writeImage), (.creatingAccount, .createAccount), (.recordingImage, .recordImage),
            (.writingProfile, .writeProfile),
            (.compensating([.image(uid: r.uid, imageName: r.imageName), .account(uid: r.uid)]), .undoImage(uid: r.uid, imageName: r.imageName)),
            (.compensating([.account(uid: r.uid), .unrecordedImage(imageName: r.imageName)]), .undoAccount(uid: r.uid)),
            (.compensating([.unrecordedImage(imageName: r.imageName)]), .discardImage(imageName: r.imageName)),
            (.done(.completed), .finish(.completed)), (.done(.rejected), .finish(.rejected)),
        ]
        for (phase, action) in table { #expect(Saga.nextAction(phase) == action, "\(phase)") }
    }

    @Test func theForwardPathGoesThroughEachPhaseInOrder() {
        let r = RegistrationScript(201)
        #expect(Saga.phase(r.state(given: []), withImage: true) == .writingImage)
        #expect(Saga.phase(r.state(given: []), withImage: true, writtenImage: r.imageName) == .creatingAccount)
        #expect(Saga.phase(r.state(given: []), withImage: false) == .creatingAccount)
        #expect(Saga.phase(r.state(given: [r.accountCreated()]), withImage: true, writtenImage: r.imageName) == .recordingImage)
        #expect(Saga.phase(r.state(given: [r.accountCreated(), r.imageStored]), withImage: true, writtenImage: r.imageName) == .writingProfile)
        #expect(Saga.phase(r.state(given: [r.accountCreated(withImage: false)]), withImage: false) == .writingProfile)
        let completed = r.state(given: [r.accountCreated(), r.imageStored, r.profileWritten()])
        #expect(Saga.phase(completed, withImage: true, writtenImage: r.imageName) == .done(.completed))
    }

    @Test func aFailureListsWhatIsLeftToUndoInOrder() {
        let r = RegistrationScript(202)
        let afterImage = r.state(given: [r.accountCreated(), r.imageStored, r.failed(.profile)])
        #expect(Saga.phase(afterImage, withImage: true, writtenImage: r.imageName)
                == .compensating([.image(uid: r.uid, imageName: r.imageName), .account(uid: r.uid)]))
        let beforeImage = r.state(given: [r.accountCreated(), r.failed(.image)])
        #expect(Saga.phase(beforeImage, withImage: true, writtenImage: r.imageName)
                == .compensating([.account(uid: r.uid), .unrecordedImage(imageName: r.imageName)]))
        // In `ledger recover` no blob is this run's: only what the log records is undone.
        #expect(Saga.phase(beforeImage, withImage: true) == .compensating([.account(uid: r.uid)]))
        let taken = r.state(given: [r.failed(.account, reason: "email-already-in-use", withUID: false)])
        #expect(Saga.phase(taken, withImage: true, writtenImage: r.imageName) == .compensating([.unrecordedImage(imageName: r.imageName)]))
        #expect(Saga.phase(taken, withImage: true) == .done(.rejected))
        let undone = r.state(given: [r.accountCreated(), r.imageStored, r.failed(.profile), r.imageDeleted, r.accountDeleted])
        #expect(Saga.phase(undone, withImage: true) == .done(.compensated))
    }

    // MARK: - Decide: forward steps

    /// Each forward step done records its event, on the terms the table decides: the account's
    /// creation under the email check, the completing profile with the account's first session.
    @Test func aForwardStepDoneRecordsItsEvent() {
        let r = RegistrationScript(203)
        let checked = AppendTerms(uniqueEmail: true), withSession = AppendTerms(firstSession: r.uid)
        #expect(r.decide(given: [], when: .writeImage, .done) == .record([]))
        #expect(r.decide(given: [], when: .createAccount, .done) == .record([r.accountCreated()], checked))
        #expect(r.decide(given: [], when: .createAccount, .done, withImage: false) == .record([r.accountCreated(withImage: false)], checked))
        #expect(r.decide(given: [r.accountCreated()], when: .recordImage, .done) == .record([r.imageStored]))
        #expect(r.decide(given: [r.accountCreated(), r.imageStored], when: .writeProfile, .done) == .record([r.profileWritten()], withSession))
        #expect(r.decide(given: [r.accountCreated(withImage: false)], when: .writeProfile, .done, withImage: false)
                == .record([r.profileWritten(image: false)], withSession))
    }

    /// Compensations and the end carry no terms: no email is claimed, no session starts.
    @Test func compensationsCarryNoTerms() {
        let r = RegistrationScript(209)
        let failed = [r.accountCreated(), r.imageStored, r.failed(.profile)]
        for action in [RegistrationSaga.Action.undoImage(uid: r.uid, imageName: r.imageName), .undoAccount(uid: r.uid)] {
            guard case .record(_, let terms) = r.decide(given: failed, when: action, .done, planned: false) else {
                Issue.record("\(action) records nothing"); continue
            }
            #expect(terms == AppendTerms())
        }
    }

    /// Two decisions held for one write keep both terms.
    @Test func termsHeldTogetherAreMerged() {
        let merged = AppendTerms(uniqueEmail: true).merged(with: AppendTerms(firstSession: "u"))
        #expect(merged == AppendTerms(uniqueEmail: true, firstSession: "u"))
        #expect(AppendTerms().merged(with: AppendTerms()) == AppendTerms())
    }

    /// The email condition's typed refusal is what becomes `email-already-in-use`: no message is read.
    @Test func aTakenEmailIsTheTypedConditionFailure() {
        let r = RegistrationScript(204)
        let decision = r.decide(given: [], when: .createAccount, .refused(.emailTaken, message: "the email is already in use"))
        #expect(decision == .fail(.failed(Failed(step: .account, reason: "email-already-in-use", message: "the email is already in use",
                                                 email: r.email, uid: nil))))
    }

    @Test func aFailedForwardStepRecordsAnIOErrorAtItsStep() {
        let r = RegistrationScript(205)
        let failed = { (step: RegistrationStep, uid: String?) in
            RegistrationSaga.Decision.fail(.failed(Failed(step: step, reason: "io-error", message: "disk full", email: r.email, uid: uid)))
        }
        #expect(r.decide(given: [], when: .writeImage, .failed(message: "disk full")) == failed(.image, nil))
        #expect(r.decide(given: [], when: .createAccount, .failed(message: "disk full")) == failed(.account, nil))
        #expect(r.decide(given: [r.accountCreated()], when: .recordImage, .failed(message: "disk full")) == failed(.image, r.uid))
        #expect(r.decide(given: [r.accountCreated()], when: .writeProfile, .failed(message: "disk full")) == failed(.profile, r.uid))
    }

    /// `ledger recover` has no plan: it never goes forward.
    @Test func withoutAPlanNoForwardStepRuns() {
        let r = RegistrationScript(206)
        for action: Saga.Action in [.writeImage, .createAccount, .recordImage, .writeProfile] {
            #expect(r.decide(given: [], when: action, .done, planned: false) == .stop, "\(action)")
        }
    }

    // MARK: - Decide: compensations and the end

    @Test func aCompensationDoneRecordsItsEventAndAFailedOneStops() {
        let r = RegistrationScript(207)
        let failed = [r.accountCreated(), r.imageStored, r.failed(.profile)]
        #expect(r.decide(given: failed, when: .undoImage(uid: r.uid, imageName: r.imageName), .done, planned: false) == .record([r.imageDeleted]))
        #expect(r.decide(given: failed, when: .undoAccount(uid: r.uid), .done, planned: false) == .record([r.accountDeleted]))
        for outcome: Saga.StepOutcome in [.failed(message: "EIO"), .refused(.emailTaken, message: "m")] {
            #expect(r.decide(given: failed, when: .undoImage(uid: r.uid, imageName: r.imageName), outcome) == .stop)
            #expect(r.decide(given: failed, when: .undoAccount(uid: r.uid), outcome) == .stop)
        }
    }

    @Test func discardingAndFinishingRecordNothing() {
        let r = RegistrationScript(208)
        for outcome: Saga.StepOutcome in [.done, .failed(message: "EIO")] {
            #expect(r.decide(given: [r.failed(.account, withUID: false)], when: .discardImage(imageName: r.imageName), outcome) == .record([]))
            #expect(r.decide(given: [], when: .finish(.completed), outcome) == .record([]))
        }
    }

    @Test func recoverRecordsAnInterruptionAtTheNextStep() {
        let r = RegistrationScript(209)
        let state = r.state(given: [r.accountCreated(), r.imageStored])
        #expect(Saga.interrupted(state) == .failed(Failed(step: .profile, reason: "interrupted",
                                                          message: "the process running this registration died before step profile",
                                                          email: r.email, uid: r.uid)))
    }

    // MARK: - The shell's side: the typed refusal

    @Test func theEmailConditionRefusesWithATypedFailure() throws {
        let store = InMemoryEventStore(), condition = AppendCondition.uniqueEmails, r = RegistrationScript(210), other = RegistrationScript(211, email: r.email)
        _ = try store.append([StreamAppend([r.accountCreated()], to: r.stream, expected: .noStream)], condition: condition)
        let error = try #require(throws: StoreError.self) {
            try store.append([StreamAppend([other.accountCreated()], to: other.stream, expected: .noStream)], condition: condition)
        }
        #expect(error.condition == .emailTaken)
        #expect(error.code == .conditionFailed && error.reason == "email-already-in-use")
    }
}
