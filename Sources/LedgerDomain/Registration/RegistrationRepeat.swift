// MARK: - RegistrationRepeat

/// Whether a repeat of a registration (same idempotency key) asks for what the first attempt did.
/// The first attempt's stream is what it asked for, as far as its events record it: the email
/// always (`AccountCreated`, `ProfileWritten` or `Failed`), the username once `ProfileWritten` is
/// recorded, the image once `AccountCreated` says whether one was given and `ImageStored` holds its
/// SHA-256; a first attempt refused at validation is repeated only by an input refused for the same
/// reason. The password is not compared: a repeat is no sign-in (it starts no session and shows no
/// token), and comparing it would make `register` a password oracle outside the lockout.
public enum RegistrationRepeat {
    /// What a repeat asked for differently from the first attempt.
    public enum Difference: String, Sendable {
        /// The normalized email.
        case email
        /// The display name.
        case username
        /// Whether an image was given, or its bytes.
        case image
        /// The input passes or fails validation where the first attempt did not (or for another reason).
        case validation
    }

    /// The first way `input` differs from the first attempt whose stream holds `events`, nil when it
    /// does not; `sha256Hex` is the lowercase hex SHA-256 the image's `ImageStored` records.
    public static func difference(_ input: RegistrationInput, firstAttempt events: [LedgerEvent],
                                  sha256Hex: ([UInt8]) -> String) -> Difference? {
        let validated = RegistrationValidator.validate(input)
        var email: String?
        var refusedAtValidation: Failed?
        var userName: String?
        var withImage: Bool?
        var imageHash: String?
        for event in events {
            switch event {
            case .accountCreated(let created):
                email = created.email
                withImage = created.withImage
            case .imageStored(let stored):
                imageHash = stored.sha256
                withImage = true
            case .profileWritten(let profile):
                email = profile.email
                userName = profile.userName
                withImage = profile.profileImageName != nil
            case .failed(let failed):
                if email == nil { email = failed.email }
                if failed.step == .validation { refusedAtValidation = failed }
            default:
                break
            }
        }
        switch validated {
        case .failure(let refused):
            if refused.email != email { return .email }
            return refused.reason == refusedAtValidation?.reason ? nil : .validation
        case .success(let valid):
            if valid.email != email { return .email }
            if refusedAtValidation != nil { return .validation }
            if let userName, userName != valid.userName { return .username }
            if let withImage, withImage != (valid.image != nil) { return .image }
            if let imageHash, let image = valid.image, sha256Hex(image.bytes) != imageHash { return .image }
            return nil
        }
    }
}
