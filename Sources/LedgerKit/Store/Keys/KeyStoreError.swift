import LedgerDomain

// MARK: - KeyStoreError

/// Why the key store refused; `code` is stable, `message` is for people.
public struct KeyStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable codes.
    public enum Code: String, Sendable {
        /// A slot on a subject's way is torn (a write cut short) or damaged: reported, never read as a key.
        case tornSlot = "torn-slot"
        /// The file is shorter than its header says (cut short, e.g. mid-slot).
        case truncated
        /// The file is not a key store of this format, or its header or size is wrong.
        case damaged
        /// The subject's key was erased: it is never created again.
        case subjectErased = "subject-erased"
        /// The store was opened read-only.
        case readOnly = "read-only"
        /// The file was removed while open.
        case missing
        /// A subject the log already names has no key and no erasure: keys were lost (never made anew).
        case missingKey = "missing-key"
        /// The file or its folder could not be read or written (a symbolic link, a hard link, a failed sync, ...).
        case io = "io-error"
    }

    /// The stable code.
    public let code: Code
    /// A one-line message.
    public let message: String
    /// For `tornSlot`: the slot's index.
    public let slot: Int?
    /// For `io`: the failed system call.
    public let cause: SystemError?

    /// An error from its parts.
    public init(_ code: Code, _ message: String, slot: Int? = nil, cause: SystemError? = nil) {
        self.code = code; self.message = message; self.slot = slot; self.cause = cause
    }

    /// A key `subject` should have and has not: only the event that starts a subject makes its key.
    static func missing(_ subject: SubjectID) -> KeyStoreError {
        KeyStoreError(.missingKey, "the key store has no key of \(subject), which the log already names and no erasure erased: keys were lost; run `ledger verify`")
    }

    /// Wraps what a file operation threw.
    static func io(_ error: any Error) -> KeyStoreError {
        if let error = error as? KeyStoreError { return error }
        if let system = error as? SystemError { return KeyStoreError(.io, system.description, cause: system) }
        return KeyStoreError(.io, "\(error)")
    }

    /// Runs `body`; whatever it throws comes out as a key-store error.
    static func mapping<T>(_ body: () throws -> T) throws(KeyStoreError) -> T {
        do { return try body() } catch { throw io(error) }
    }

    /// The message.
    public var description: String { message }
}
