// MARK: - RegistrationPlan

/// What a registration's forward steps record, fixed before the first of them runs (the ids are
/// drawn, the password hashed and the image hashed up front, so deciding the events is pure).
public struct RegistrationPlan: Equatable, Sendable {
    /// The account to create.
    public var uid: String
    /// The normalized email.
    public var email: String
    /// The display name.
    public var userName: String
    /// The password's hash.
    public var passwordHash: String
    /// The image's record, when the registration has one.
    public var image: ImageStored?

    /// A plan from its parts.
    public init(uid: String, email: String, userName: String, passwordHash: String, image: ImageStored?) {
        self.uid = uid; self.email = email; self.userName = userName; self.passwordHash = passwordHash; self.image = image
    }
}
