import Glibc
import LedgerDomain

// MARK: - LedgerEnvironment

/// The `LEDGER_*` variables ledger reads and the rule for each one's value: every reader parses its
/// variable here, and `check` applies every rule at once so that a bad value stops a command before
/// it does anything. An empty value is the same as an unset one.
public enum LedgerEnvironment {
    /// `LEDGER_CHECKPOINT_EVERY`: events between view checkpoints, a whole number ≥ 0 (0: none); default 10,000.
    public static func checkpointInterval(_ text: String?) throws(EnvironmentError) -> Int {
        guard let text = given(text) else { return 10_000 }
        guard let value = Int(text), value >= 0 else {
            throw EnvironmentError("LEDGER_CHECKPOINT_EVERY", "must be a whole number of events, 0 or more (0 turns checkpoints off)", text)
        }
        return value
    }

    /// `LEDGER_RETENTION_DAYS`: how long `ledger erase --expired` keeps the personal data of subjects
    /// without an account, a whole number of days ≥ 1; default 30.
    public static func retentionDays(_ text: String?) throws(EnvironmentError) -> Int {
        guard let text = given(text) else { return 30 }
        guard let value = Int(text), value >= 1, value <= 100_000 else {
            throw EnvironmentError("LEDGER_RETENTION_DAYS", "must be a whole number of days from 1 to 100000", text)
        }
        return value
    }

    /// `LEDGER_STORE_INDEX`: `1` (the default) uses the writers' index, `0` turns it off.
    public static func storeIndexEnabled(_ text: String?) throws(EnvironmentError) -> Bool {
        guard let text = given(text) else { return true }
        guard text == "0" || text == "1" else { throw EnvironmentError("LEDGER_STORE_INDEX", "must be 0 (no index) or 1 (the index)", text) }
        return text == "1"
    }

    /// `LEDGER_MAIL_FROM`: one address, by the rule of a registered email (`EmailRule`: a dot-atom
    /// local part, `@`, a domain; no list, no display name, no space, no header of its own); default `ledger@localhost`.
    public static func mailFrom(_ text: String?) throws(EnvironmentError) -> String {
        guard let text = given(text) else { return Mailer.defaultFrom }
        // `@localhost` (the default's domain) has no top-level domain: checked as `@localhost.test`.
        let lower = text.lowercasedASCII
        let checked = lower.hasSuffix("@localhost") ? lower + ".test" : lower
        guard EmailRule.problem(checked) == nil else {
            throw EnvironmentError("LEDGER_MAIL_FROM", "must be one address (local@domain)", text)
        }
        return text
    }

    /// `LEDGER_WITNESS_TIMEOUT`: how long `ledger head --key` waits for the `LEDGER_WITNESS` command,
    /// whole seconds from 1 to 3600; default 60.
    public static func witnessTimeout(_ text: String?) throws(EnvironmentError) -> Int {
        guard let text = given(text) else { return 60 }
        guard let value = Int(text), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), (1...3600).contains(value) else {
            throw EnvironmentError("LEDGER_WITNESS_TIMEOUT", "must be a whole number of seconds from 1 to 3600", text)
        }
        return value
    }

    /// `LEDGER_STORE`: a `postgres://USER@HOST:PORT/DATABASE` URL; unset or empty: the file log.
    /// The value is never repeated in the error (it may hold a password).
    public static func store(_ text: String?) throws(EnvironmentError) -> PostgresURL? {
        guard let text = given(text) else { return nil }
        guard let url = PostgresURL(text) else {
            throw EnvironmentError("LEDGER_STORE", "must be a postgres://USER@HOST:PORT/DATABASE URL (unset or empty: the file log under --data DIR)", nil)
        }
        return url
    }

    /// `LEDGER_IO_FAULTS` (drills): `OP=N,…`, OP one of `IOFaults.Operation`, N ≥ 1.
    public static func ioFaults(_ text: String?) throws(EnvironmentError) -> [IOFaults.Operation: Int] {
        guard let text = given(text) else { return [:] }
        var targets: [IOFaults.Operation: Int] = [:]
        for entry in text.split(separator: ",") {
            let parts = entry.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2, let operation = IOFaults.Operation(rawValue: String(parts[0])), let n = Int(parts[1]), n >= 1 else {
                let names = IOFaults.Operation.allCases.map(\.rawValue).joined(separator: ", ")
                throw EnvironmentError("LEDGER_IO_FAULTS", "must be OP=N entries (N from 1) separated by commas, OP one of \(names)", text)
            }
            targets[operation] = n
        }
        return targets
    }

    /// Applies the rule of every `LEDGER_*` variable in `environment`; throws for the first bad one.
    /// (`LEDGER_DATA`, `LEDGER_MAILER` and `LEDGER_WITNESS` take any value.)
    public static func check(_ environment: [String: String]) throws(EnvironmentError) {
        _ = try store(environment["LEDGER_STORE"])
        do {
            _ = try PasswordHasher.fromEnvironment(environment)
        } catch {
            throw EnvironmentError("LEDGER_HASH_COST", message: "\(error)")
        }
        _ = try StoreTuning.fromEnvironment(environment)
        _ = try retentionDays(environment["LEDGER_RETENTION_DAYS"])
        _ = try mailFrom(environment["LEDGER_MAIL_FROM"])
        _ = try TokenMessage.Links.fromEnvironment(environment)
        _ = try witnessTimeout(environment["LEDGER_WITNESS_TIMEOUT"])
        do {
            _ = try Failpoints(environment["LEDGER_FAILPOINTS"])
        } catch {
            throw EnvironmentError("LEDGER_FAILPOINTS", message: "\(error)")
        }
    }

    /// The process's value of `name`, for the edges only (the tools' `main`): code below them is given values.
    public static func process(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    private static func given(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
}

// MARK: - EnvironmentError

/// A `LEDGER_*` variable with a value its rule refuses.
public struct EnvironmentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The variable (`LEDGER_CHECKPOINT_EVERY`).
    public let variable: String
    /// One line: the variable, what it must be and (unless secret) the value given.
    public let message: String

    /// `VARIABLE must be RULE, not "VALUE"` (the value left out when nil).
    init(_ variable: String, _ rule: String, _ value: String?) {
        self.variable = variable
        message = "\(variable) \(rule)" + (value.map { ", not \"\($0)\"" } ?? "")
    }

    /// An error whose message another type's rule wrote.
    init(_ variable: String, message: String) { self.variable = variable; self.message = message }

    /// The message.
    public var description: String { message }
}
