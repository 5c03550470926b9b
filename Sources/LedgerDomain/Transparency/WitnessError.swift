// MARK: - WitnessError

/// Why a witness refused to cosign (C2SP tlog-witness `add-checkpoint`): `code` is stable (the
/// `--json` kind of `ledger witness`), `httpStatus` the status the spec gives the same refusal.
public struct WitnessError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable codes.
    public enum Code: String, Sendable, CaseIterable {
        /// The checkpoint's origin is not the log this witness follows (404).
        case unknownOrigin = "unknown-origin"
        /// No valid signature by the log's key, or a signature by it that does not verify (403).
        case badSignature = "bad-signature"
        /// The request does not parse, or its old size is past the checkpoint's size (400).
        case badRequest = "bad-request"
        /// The old size is not the size of the last checkpoint this witness cosigned (409).
        case sizeConflict = "size-conflict"
        /// The consistency proof does not verify, or an equal size has another root: a fork (422).
        case badProof = "bad-proof"
        /// The witness's own state file does not verify under its key: edited or damaged (500).
        case stateDamaged = "state-damaged"

        /// The HTTP status of the C2SP tlog-witness protocol for this refusal.
        public var httpStatus: Int {
            switch self {
            case .unknownOrigin: return 404
            case .badSignature: return 403
            case .badRequest: return 400
            case .sizeConflict: return 409
            case .badProof: return 422
            case .stateDamaged: return 500
            }
        }
    }

    /// The stable code.
    public let code: Code
    /// A one-line message.
    public let message: String
    /// With `size-conflict`: the size of the last checkpoint the witness cosigned.
    public let heldSize: UInt64?

    /// An error from its parts.
    public init(_ code: Code, _ message: String, heldSize: UInt64? = nil) {
        self.code = code; self.message = message; self.heldSize = heldSize
    }

    /// The message.
    public var description: String { message }
}
