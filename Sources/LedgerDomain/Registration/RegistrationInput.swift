// MARK: - RegistrationInput

/// What a sign-up asks for, before validation. The password never leaves the process.
public struct RegistrationInput: Sendable {
    /// The email as typed.
    public var email: String?
    /// The display name as typed.
    public var userName: String?
    /// The password as typed.
    public var password: String?
    /// The image's bytes, if one was given.
    public var image: [UInt8]?
    /// The largest image accepted.
    public var maxImageBytes: Int
    /// Set by the shell when the image could not be taken at all (bad path, unreadable, too large).
    public var imageRefusal: RefusedRegistration?

    /// An input from its parts.
    public init(email: String?, userName: String?, password: String?, image: [UInt8]?, maxImageBytes: Int = ImageInspector.defaultMaxBytes) {
        self.email = email; self.userName = userName; self.password = password
        self.image = image; self.maxImageBytes = maxImageBytes
    }
}

// MARK: - ValidRegistration

/// A sign-up that passed validation.
public struct ValidRegistration: Sendable {
    /// The normalized (lowercase) email.
    public var email: String
    /// The display name.
    public var userName: String
    /// The password (hashed before anything is written).
    public var password: String
    /// The image and its format.
    public var image: (bytes: [UInt8], contentType: ImageContentType)?
}

// MARK: - RegistrationValidator

/// Validation rules, applied before any write. Failures become `Failed` with step `validation`.
public enum RegistrationValidator {
    /// Checks `input`; returns the valid registration or the `Failed` payload describing the first problem.
    public static func validate(_ input: RegistrationInput) -> Result<ValidRegistration, RefusedRegistration> {
        let email = input.email.map(EmailRule.normalized)
        func refuse(_ reason: String, _ message: String) -> Result<ValidRegistration, RefusedRegistration> {
            .failure(RefusedRegistration(reason: reason, message: message, email: email.flatMap { $0.isEmpty ? nil : $0 }))
        }
        guard let email, !email.isEmpty else { return refuse("missing-email", "an email is required") }
        guard let userName = input.userName, !userName.isEmpty else { return refuse("missing-username", "a username is required") }
        guard let password = input.password, !password.isEmpty else { return refuse("missing-password", "a password is required") }
        if let problem = EmailRule.problem(email) { return refuse("invalid-email", problem) }
        if let problem = passwordProblem(password) { return refuse(problem.reason, problem.message) }
        guard userName.count <= 64 else { return refuse("invalid-username", "the username must have 1 to 64 characters") }
        guard !userName.unicodeScalars.allSatisfy(\.properties.isWhitespace) else {
            return refuse("invalid-username", "the username must not be only spaces")
        }
        guard !userName.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return refuse("invalid-username", "the username must not contain control characters")
        }
        var image: (bytes: [UInt8], contentType: ImageContentType)?
        if let refusal = input.imageRefusal { return refuse(refusal.reason, refusal.message) }
        if let bytes = input.image {
            guard bytes.count <= input.maxImageBytes else {
                return refuse("image-too-large", "the image has \(bytes.count) bytes; the limit is \(input.maxImageBytes)")
            }
            guard let type = ImageInspector.contentType(of: bytes) else {
                return refuse("invalid-image", "the image is not a complete JPEG or PNG (checked by its bytes, not its name)")
            }
            image = (bytes, type)
        }
        return .success(ValidRegistration(email: email, userName: userName, password: password, image: image))
    }

    /// The password rule of sign-up and of every new password (a change, a reset): `PasswordRule`.
    /// The refusal's reason and message when `password` breaks it, else nil.
    public static func passwordProblem(_ password: String) -> (reason: String, message: String)? {
        PasswordRule.problem(password)
    }

    /// True when the normalized `email` follows `EmailRule`.
    public static func isValidEmail(_ email: String) -> Bool { EmailRule.problem(email) == nil }
}

/// A sign-up refused at validation: the `Failed` members.
public struct RefusedRegistration: Error, Equatable, Sendable {
    /// A refusal from its parts.
    public init(reason: String, message: String, email: String? = nil) { self.reason = reason; self.message = message; self.email = email }

    /// Kebab-case reason.
    public var reason: String
    /// Human message.
    public var message: String
    /// The normalized email, when one was given.
    public var email: String?
}

// MARK: - ASCII helpers

extension String {
    /// The string with ASCII letters lowercased (emails are normalized this way).
    public var lowercasedASCII: String {
        String(decoding: utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// The string without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(scalars[first...last])
    }
}
