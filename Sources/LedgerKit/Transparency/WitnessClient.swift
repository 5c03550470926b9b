import LedgerDomain

// MARK: - WitnessClient

/// The log's side of a C2SP tlog-witness: `LEDGER_WITNESS` is a command line, run with
/// `/bin/sh -c` as the mailer is (`ShellCommand`, an allow-listed environment: never the store's URL
/// or any other secret), that gets an `add-checkpoint` body on its standard input — `old N` (the
/// size this witness last cosigned, from `WitnessSizes`), the consistency proof from N, a blank
/// line, the signed head — and answers its cosignature line on standard output (what
/// `ledger witness` does). A `size-conflict` answer (exit non-zero, the size it holds alone on a
/// line; read so whatever the exit status, as a wrapper script may lose it) is asked once more
/// from that size. Bounded: the answer is at most `maxAnswerBytes`, the
/// command's standard error is kept (its last line quoted in a refusal), and it is killed with its
/// process group after `timeout` seconds.
public struct WitnessClient: Sendable {
    /// The largest answer read: a few cosignature lines (one is under 400 bytes).
    public static let maxAnswerBytes = 16_384
    /// The most of the witness's standard error kept.
    public static let maxErrorBytes = 16_384

    /// The command line.
    public let command: String
    /// The environment it runs with (`NAME=value` entries), already allow-listed.
    public let environment: [String]
    /// Seconds to wait for each run.
    public let timeout: Int

    /// The variables a witness command may see: the mailer's (`Mailer.isAllowed`) without its
    /// `LEDGER_MAIL_*` settings. Nothing else.
    public static func isAllowed(_ name: String) -> Bool { Mailer.allowedEnvironment.contains(name) || name.hasPrefix("LC_") }

    /// A client running `command` with the allow-listed part of `environment`, waiting `timeout` seconds.
    public init(command: String, environment: [String: String] = [:], timeout: Int = 60) {
        self.command = command; self.timeout = timeout
        self.environment = environment.filter { Self.isAllowed($0.key) }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// The client `LEDGER_WITNESS` and `LEDGER_WITNESS_TIMEOUT` name; nil when `LEDGER_WITNESS` is
    /// unset or blank. `EnvironmentError` for a bad timeout.
    public static func fromEnvironment(_ environment: [String: String]) throws -> WitnessClient? {
        guard let command = environment["LEDGER_WITNESS"], command.contains(where: { !$0.isWhitespace }) else { return nil }
        return WitnessClient(command: command, environment: environment, timeout: try LedgerEnvironment.witnessTimeout(environment["LEDGER_WITNESS_TIMEOUT"]))
    }

    /// This witness's id in `WitnessSizes`.
    public var id: String { WitnessSizes.id(ofCommand: command) }

    /// `note` (the signed head of `size` lines, signed by `logKey`) with the witness's cosignature
    /// lines appended. `proof(old)` is the consistency proof from `old` to `size`; `sizes`, when
    /// given, says which `old` to send first and records `size` once cosigned. Every line the
    /// witness adds must be a cosignature (tlog-cosignature: a timestamp and a signature) by a key
    /// that is not the log's, and each of `witnessKeys` must have cosigned validly; an answer that
    /// adds nothing (the log's own line echoed) is no cosignature. Throws `WitnessClientError` when
    /// the witness cannot be run, refuses, hangs or answers anything else; I/O errors of `sizes` as
    /// `SystemError`.
    public func cosign(note: String, size: UInt64, logKey: NoteVerifierKey, witnessKeys: [NoteVerifierKey] = [], sizes: WitnessSizes?,
                       proof: (UInt64) throws -> [Digest32]) throws -> String {
        let recorded = try sizes?.size(of: id) ?? 0
        var old = recorded <= size ? recorded : 0
        var retried = false
        while true {
            let body = AddCheckpointRequest.body(oldSize: old, proof: old == 0 ? [] : try proof(old), note: note)
            let outcome: ShellCommand.Outcome
            do {
                outcome = try ShellCommand(command: command, environment: environment)
                    .run(input: body, outputLimit: Self.maxAnswerBytes, errorLimit: Self.maxErrorBytes, timeout: Double(timeout))
            } catch let error as SystemError {
                throw WitnessClientError("the witness (LEDGER_WITNESS) could not be run: \(error)")
            }
            switch outcome.termination {
            case .exited(0) where Self.heldSize(outcome.output) == nil:
                let cosigned = try append(outcome.output, to: note, logKey: logKey, witnessKeys: witnessKeys)
                if recorded != size { try sizes?.record(size, for: id) }
                return cosigned
            case .exited(let status):
                if !retried, let held = Self.heldSize(outcome.output) {
                    guard held <= size else {
                        throw WitnessClientError("the witness holds a head of \(held) lines, past this log's \(size): it cosigned a longer history of this log (a fork, or a log put back from a backup)")
                    }
                    guard held != old else { throw refusal("exited \(status), answering the size it was sent", outcome) }
                    old = held
                    retried = true
                    continue
                }
                throw refusal("exited \(status)", outcome)
            case .killed(let signal): throw refusal("was killed by signal \(signal)", outcome)
            case .timedOut: throw refusal("did not answer within \(timeout) s (LEDGER_WITNESS_TIMEOUT) and was stopped", outcome)
            case .outputTooLarge: throw refusal("answered more than \(Self.maxAnswerBytes) bytes and was stopped", outcome)
            }
        }
    }

    /// `note` with the answer's signature lines: at least one new, none in the log key's name or
    /// id, each a cosignature's size, and every key of `witnessKeys` among them with a valid one.
    private func append(_ answer: [UInt8], to note: String, logKey: NoteVerifierKey, witnessKeys: [NoteVerifierKey]) throws -> String {
        guard !answer.isEmpty else { throw WitnessClientError("the witness exited 0 without a cosignature line") }
        let cosigned: String, added: [NoteSignature]
        do {
            cosigned = try SignedHead.appendingCosignatures(answer, to: note)
            let before = try SignedNote(parsing: Array(note.utf8)).signatures
            added = try SignedNote(parsing: Array(cosigned.utf8)).signatures.filter { !before.contains($0) }
        } catch {
            throw WitnessClientError("the witness did not answer cosignature lines: \(error)")
        }
        if added.contains(where: { $0.name == logKey.name || $0.keyID == logKey.keyID }) {
            throw WitnessClientError("the witness answered a signature line in the log key's name or id \(logKey.name): no cosignature of its own")
        }
        guard !added.isEmpty else { throw WitnessClientError("the witness answered no cosignature of its own, only lines the head already holds") }
        guard added.allSatisfy({ Cosignature.split($0.signature) != nil }) else {
            throw WitnessClientError("the witness answered a signature line that is not a cosignature (a timestamp and an Ed25519 signature)")
        }
        if !witnessKeys.isEmpty {
            do { _ = try SignedHead.verify(Array(cosigned.utf8), logKey: logKey, witnessKeys: witnessKeys) } catch {
                throw WitnessClientError("the witness's answer is not a valid cosignature by --witness-vkey: \(error.message)")
            }
        }
        return cosigned
    }

    /// The size a `size-conflict` answer holds: decimal digits alone on one line.
    static func heldSize(_ output: [UInt8]) -> UInt64? {
        guard output.last == 0x0A, case let digits = output.dropLast(), (1...20).contains(digits.count),
              digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), digits.first != 0x30 || digits.count == 1 else { return nil }
        return UInt64(String(decoding: digits, as: UTF8.self))
    }

    /// A refusal saying how the witness ended, with the last line of its standard error.
    private func refusal(_ how: String, _ outcome: ShellCommand.Outcome) -> WitnessClientError {
        let said = outcome.errors.split(separator: 0x0A).last.map { String(decoding: $0.prefix(300), as: UTF8.self) }
        return WitnessClientError("the witness (LEDGER_WITNESS) \(how)" + (said.map { ": \($0)" } ?? ""))
    }
}

// MARK: - WitnessClientError

/// Why `ledger head --key` got no cosignature from `LEDGER_WITNESS`: code `witness-refused`, one line.
public struct WitnessClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The stable code.
    public static let code = "witness-refused"
    /// A one-line message.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
