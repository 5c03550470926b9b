import Glibc
import LedgerKit

// MARK: - RegisterCommand

/// `ledger register`: signs a user up as a saga of events, compensating partial sign-ups.
enum RegisterCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "register", summary: "sign a user up: account, image, profile, then a first session",
        options: [
            .option("email", "E", "the email, normalized to lowercase (without it the sign-up is refused: missing-email)"),
            .option("username", "U", "the display name, 1-64 characters, no control characters (without it: missing-username)"),
            .option("image", "FILE", "a JPEG or PNG profile image (checked by its bytes; at most 2 MiB)"),
            .flag("password-stdin", "read the password from the first line of standard input"),
            .option("idempotency-key", "K", "repeat-safe key: a repeat with the same input returns the first outcome; any repeat appends nothing"),
            .option("max-image-bytes", "N", "the image size limit (default 2097152)"),
            .flag("json", "print the outcome as JSON"),
        ],
        details: "Without --password-stdin the password is prompted for without echo (standard input must be a terminal).\nExit 0 registered; 1 rejected, failed, or K first used with another input; 2 usage; 3 I/O error.",
        outputMustBeReceived: true)

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let key = invocation.value("idempotency-key")
        if key?.isEmpty == true { throw CLIError.usage("--idempotency-key needs a non-empty key K (or leave it out)") }
        let password = try PasswordInput.read(invocation, context)
        let maxBytes = try invocation.positiveInt("max-image-bytes") ?? Ledger.Input.defaultMaxImageBytes
        var input = RegistrationInput(email: invocation.value("email"), userName: invocation.value("username"),
                                      password: password, image: nil, maxImageBytes: maxBytes)
        if let path = invocation.value("image") {
            switch readImage(path, limit: maxBytes) {
            case .success(let bytes): input.image = bytes
            case .failure(let refusal): input.imageRefusal = refusal
            }
        }
        let result: RegistrationResult
        do {
            let asked = input
            result = try context.withLedger(invocation) { try await $0.register(asked, idempotencyKey: key) }
        } catch let failure as LedgerError {
            guard invocation.flag("json"), let error = failure.cause as? RegistrationError else { throw failure }
            let refused = CLIError.from(error)
            context.printJSON(.object(JSONObject([
                ("status", .string("refused")), ("registration", .string(error.registration)),
                ("reason", .string(error.code.rawValue)), ("message", .string(refused.message)),
            ])))
            return refused.status.rawValue
        }
        if result.outcome != .completed {
            context.recorded.note("registration \(result.registration) \(result.outcome.rawValue)")
        }
        if result.outcome == .completed {
            let session = result.sessionId.map { ", session \($0) started, its token lost (end it with `ledger logout --session \($0)`)" } ?? ""
            context.recorded.note("registration \(result.registration) completed as uid \(result.uid ?? "-")\(session)")
        }
        print(result, json: invocation.flag("json"), context)
        return result.outcome == .completed ? 0 : CLIError.Status.failure.rawValue
    }

    /// Reads the image file: no `..`, no symlink, a regular file within the limit.
    static func readImage(_ path: String, limit: Int) -> Result<[UInt8], RefusedRegistration> {
        if path.split(separator: "/").contains("..") {
            return .failure(RefusedRegistration(reason: "invalid-image-path", message: "the image path must not contain `..`"))
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            return .failure(RefusedRegistration(reason: "image-unreadable", message: "cannot read the image \(path): \(String(cString: strerror(errno)))"))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return .failure(RefusedRegistration(reason: "invalid-image-path", message: "the image \(path) is not a regular file (symlinks are refused)"))
        }
        guard Int(info.st_size) <= limit else {
            return .failure(RefusedRegistration(reason: "image-too-large", message: "the image has \(info.st_size) bytes; the limit is \(limit)"))
        }
        do {
            return .success(try FileSystem.read(path, limit: limit))
        } catch {
            return .failure(RefusedRegistration(reason: "image-unreadable", message: "\(error)"))
        }
    }

    static func print(_ result: RegistrationResult, json: Bool, _ context: Context) {
        if result.outcome == .completed {
            if json {
                context.printJSON(.object(JSONObject([
                    ("status", .string("registered")), ("registration", .string(result.registration)),
                    ("uid", result.uid.map(JSONValue.string) ?? .null),
                    ("profileImageName", result.profileImageName.map(JSONValue.string) ?? .null),
                    ("sessionId", result.sessionId.map(JSONValue.string) ?? .null),
                    ("token", result.token.map(JSONValue.string) ?? .null),
                ])))
            } else {
                context.print(context.style.green("registered") + " uid \(result.uid ?? "-") (registration \(result.registration))\(result.replayed ? " — earlier attempt with this key" : "")")
                if let session = result.sessionId, let token = result.token {
                    context.print("session \(session)")
                    context.print("token \(token)   (shown once: keep it secret)")
                } else if !result.replayed {
                    context.complain("registered, but no session could be started; sign in with `ledger login`")
                }
            }
        } else {
            let outcome = result.outcome == .inProgress ? "compensation-pending" : result.outcome.rawValue
            if json {
                context.printJSON(.object(JSONObject([
                    ("status", .string("failed")), ("registration", .string(result.registration)),
                    ("step", result.failure.map { .string($0.step.rawValue) } ?? .null),
                    ("reason", result.failure.map { .string($0.reason) } ?? .null),
                    ("outcome", .string(outcome)),
                ])))
            } else {
                let failure = result.failure
                context.print(context.style.red("registration \(result.registration) failed") + " at step \(failure?.step.rawValue ?? "-"): \(failure?.reason ?? "-") — \(failure?.message ?? "")")
                context.print("outcome: \(outcome)\(outcome == "compensation-pending" ? " (run `ledger recover`)" : "")")
            }
        }
    }
}
