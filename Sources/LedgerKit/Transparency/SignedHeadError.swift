// MARK: - SignedHeadError

/// Why a signed head was refused; `code` is stable (the `--json` kind), `message` one line.
public struct SignedHeadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable codes.
    public enum Code: String, Sendable {
        /// The log's key or a named witness did not sign it validly: a signature missing, one that
        /// does not verify, a note signed by a key of another name or id.
        case badSignature = "bad-signature"
        /// Not a signed head: a note that does not parse, or a text that is not a checkpoint body.
        case malformed = "malformed-signed-head"
        /// `ledger head --key` found the tree's state disagreeing with the log's lines: nothing signed.
        case cacheMismatch = "cache-mismatch"
        /// `ledger head --key` found the log's first lines no longer having the root it signed last.
        case signedHeadMismatch = "signed-head-mismatch"
        /// `ledger head --key` found the key's memory of the heads it signed (`SignerMemory`)
        /// unreadable, or an entry in it not signed by the key: nothing signed.
        case memoryDamaged = "signer-memory-damaged"
    }

    /// The stable code.
    public let code: Code
    /// A one-line message.
    public let message: String

    /// An error from its parts.
    public init(_ code: Code, _ message: String) { self.code = code; self.message = message }

    /// The message.
    public var description: String { message }
}
