// MARK: - RegistrationRepeat

/// Whether a repeat of a registration (same idempotency key) asks for what the first attempt did.
/// The first attempt's stream is what it asked for, as far as its events record it: the email
/// always (`AccountCreated`, `ProfileWritten` or `Failed`), the username once `ProfileWritten` is
/// recorded, the image once `AccountCreated` says whether one was given and `ImageStored` holds its
/// SHA-256, the password once `AccountCreated` holds its hash; a first attempt refused at validation
/// is repeated only by an input refused for the same reason.
public enum RegistrationRepeat {
    /// What a repeat asked for differently from the first attempt.
    public enum Difference: String, Sendable {
        /// The normalized email.
        case email
        /// The display name.
        case username
        /// Whether an image was given, or its bytes.
        case image
        /// The password (checked against the first attempt's hash).
        case password
        /// The input passes or fails validation where the first attempt did not (or for another reason).
        case validation
    }

    /// The first way `input` differs from the first attempt whose stream holds `events`, nil when it
    /// does not; `sha256Hex` is the lowercase hex SHA-256 the image's `ImageStored` records, and
    /// `passwordMatches(password, hash)` tells whether a password is the one `AccountCreated`'s hash
    /// was made from (asked last, once everything else matches: it is the costly check).
    public static func difference(_ input: RegistrationInput, firstAttempt events: [LedgerEvent],
                                  sha256Hex: ([UInt8]) -> String,
                                  passwordMatches: (String, String) -> Bool) -> Difference? {
        let validated = RegistrationValidator.validate(input)
        var email: String?
        var refusedAtValidation: Failed?
        var userName: String?
        var withImage: Bool?
        var imageHash: String?
        var passwordHash: String?
        for event in events {
            switch event {
            case .accountCreated(let created):
                email = created.email
                withImage = created.withImage
                passwordHash = created.passwordHash
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
            if let passwordHash, !passwordMatches(valid.password, passwordHash) { return .password }
            return nil
        }
    }
}
