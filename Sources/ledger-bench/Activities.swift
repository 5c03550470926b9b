import LedgerDomain

// MARK: - Activities

/// The activities a log is made of, as sequences of steps. Shares (per mille of activities):
/// registrations 300, sign-ins 250, logouts 200, wrong passwords 150, unknown emails 100.
/// Of registrations 85% complete (40% of them with an image) and 15% fail: 45% of failures at
/// validation, 30% on an email already in use, 25% compensated after an I/O error.
extension LogGenerator {
    /// Starts any activity (at most `longestActivity` events).
    mutating func startActivity() -> [Step] {
        let roll = rng.below(1000)
        if roll < 300 { return registration() }
        return startSingleEventActivity(roll: roll)
    }

    /// Starts a one-event activity: a sign-in, a logout or a refused sign-in.
    mutating func startSingleEventActivity() -> [Step] {
        startSingleEventActivity(roll: 300 + rng.below(700))
    }

    private mutating func startSingleEventActivity(roll: Int) -> [Step] {
        if roll < 550, let user = users.isEmpty ? nil : rng.pick(users) { return [sessionStart(for: user)] }
        if roll < 750, !openSessions.isEmpty { return [logout()] }
        if roll < 900, let user = users.isEmpty ? nil : rng.pick(users) { return [signInFailed(user.email, .wrongPassword)] }
        return [signInFailed(People.strangerEmail(&rng), .unknownEmail)]
    }

    // MARK: - Registration

    /// One registration saga, with the outcome mix above.
    mutating func registration() -> [Step] {
        serial += 1
        let stream = StreamCategory.registration.stream(uuid())
        let roll = rng.below(1000)
        if roll < 850 { return completed(stream) }
        if roll < 850 + 68 || users.isEmpty { return [rejectedAtValidation(stream)] }
        if roll < 850 + 68 + 45 {
            let taken = rng.pick(users).email
            let failed = Failed(step: .account, reason: "email-already-in-use", message: "the email \(taken) is already in use", email: taken)
            return [Step(stream: stream, effect: .none) { _ in .failed(failed) }]
        }
        return compensated(stream)
    }

    /// A new applicant's email and name: usually fresh, sometimes a retry of an email freed by a compensation.
    private mutating func applicant() -> (email: String, userName: String) {
        if !freedEmails.isEmpty && rng.chance(perMille: 500) {
            return freedEmails.remove(at: rng.below(freedEmails.count))
        }
        let userName = People.userName(&rng)
        return (People.email(for: userName, serial: serial, &rng), userName)
    }

    private mutating func created(_ stream: String, uid: String, email: String, withImage: Bool) -> Step {
        let created = AccountCreated(uid: uid, email: email, passwordHash: rng.pick(passwordHashes), withImage: withImage)
        return Step(stream: stream, effect: .none) { _ in .accountCreated(created) }
    }

    private mutating func imageStored(_ stream: String, uid: String, imageName: String) -> Step {
        let stored = ImageStored(uid: uid, imageName: imageName, contentType: rng.chance(perMille: 700) ? .jpeg : .png,
                                 bytes: rng.int(in: 6_000...1_900_000), sha256: hex64())
        return Step(stream: stream, effect: .none) { _ in .imageStored(stored) }
    }

    private mutating func completed(_ stream: String) -> [Step] {
        let (email, userName) = applicant()
        let uid = uuid()
        let imageName = rng.chance(perMille: 400) ? uuid() : nil
        var steps = [created(stream, uid: uid, email: email, withImage: imageName != nil)]
        if let imageName { steps.append(imageStored(stream, uid: uid, imageName: imageName)) }
        steps.append(Step(stream: stream, effect: .userActive(User(uid: uid, email: email))) { at in
            .profileWritten(ProfileWritten(uid: uid, email: email, userName: userName, profileImageName: imageName, createdAt: at))
        })
        steps.append(sessionStart(for: User(uid: uid, email: email)))
        return steps
    }

    private mutating func rejectedAtValidation(_ stream: String) -> Step {
        let refusal = People.validationRefusal(&rng, serial: serial)
        let failed = Failed(step: .validation, reason: refusal.reason, message: refusal.message, email: refusal.email)
        return Step(stream: stream, effect: .none) { _ in .failed(failed) }
    }

    /// An I/O error at the image or profile step, then the compensations in reverse order.
    private mutating func compensated(_ stream: String) -> [Step] {
        let (email, userName) = applicant()
        let uid = uuid()
        let variant = rng.below(10)  // 0-2: image step fails; 3-6: profile step fails after an image; 7-9: profile, no image
        let imageName = variant <= 6 ? uuid() : nil
        var steps = [created(stream, uid: uid, email: email, withImage: imageName != nil)]
        let failed: Failed
        if variant <= 2 {
            failed = Failed(step: .image, reason: "io-error",
                            message: "write ledger-data/profile_image/\(imageName!).tmp: No space left on device (ENOSPC)", email: email, uid: uid)
        } else {
            if let imageName { steps.append(imageStored(stream, uid: uid, imageName: imageName)) }
            failed = Failed(step: .profile, reason: "io-error", message: "could not write profile: disk I/O error (EIO)", email: email, uid: uid)
        }
        steps.append(Step(stream: stream, effect: .none) { _ in .failed(failed) })
        if variant > 2, let imageName {
            steps.append(Step(stream: stream, effect: .none) { _ in .imageDeleted(ImageDeleted(uid: uid, imageName: imageName)) })
        }
        steps.append(Step(stream: stream, effect: .emailFreed(email: email, userName: userName)) { _ in .accountDeleted(AccountDeleted(uid: uid)) })
        return steps
    }

    // MARK: - Sessions and sign-ins

    private mutating func sessionStart(for user: User) -> Step {
        let session = Session(id: uuid(), uid: user.uid)
        let tokenHash = hex64()
        return Step(stream: StreamCategory.session.stream(session.id), effect: .sessionOpened(session)) { at in
            .sessionStarted(SessionStarted(sessionId: session.id, uid: session.uid, tokenHash: tokenHash,
                                           expiresAt: at.adding(milliseconds: Self.sessionLifetime)))
        }
    }

    private mutating func logout() -> Step {
        let index = rng.below(openSessions.count)
        openSessions.swapAt(index, openSessions.count - 1)  // O(1) removal: order does not matter
        let session = openSessions.removeLast()
        return Step(stream: StreamCategory.session.stream(session.id), effect: .none) { _ in
            .sessionEnded(SessionEnded(sessionId: session.id, uid: session.uid, reason: "logout"))
        }
    }

    private mutating func signInFailed(_ email: String, _ reason: SignInFailure) -> Step {
        Step(stream: StreamCategory.signin.stream(uuid()), effect: .none) { _ in .signInFailed(SignInFailed(email: email, reason: reason)) }
    }
}
