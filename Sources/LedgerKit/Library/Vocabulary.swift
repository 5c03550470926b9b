import LedgerDomain

// MARK: - The values a client of LedgerKit reads and prints
//
// A client (the `ledger` command line, an app) depends on `LedgerKit` alone. These are the value
// types of the core it receives and prints: JSON values and writers, the views (read models) and
// their rows, events as read, times, heads, the signed-note values, and the typed refusals. None
// of them is a rule: what an account may do, what an email or a password must be and what an event
// means are decided in `LedgerDomain` behind `Ledger` and the stores, and stay out of this list
// (`CLIBoundaryTests` checks that the rooms holding the rules are not named here).

/// A JSON value (`ledger`'s `--json` output).
public typealias JSONValue = LedgerDomain.JSONValue
/// A JSON object, its members in order.
public typealias JSONObject = LedgerDomain.JSONObject
/// Writes JSON values as compact text.
public typealias JSONWriter = LedgerDomain.JSONWriter
/// How an erased personal member reads and prints.
public typealias ErasedText = LedgerDomain.ErasedText
/// Writes a view's rows as a JSON array, row by row.
public typealias ViewRowsWriter = LedgerDomain.ViewRowsWriter
/// A UTC time with milliseconds (RFC 3339).
public typealias Timestamp = LedgerDomain.Timestamp
/// A registration refused before any step ran: its reason code and message.
public typealias RefusedRegistration = LedgerDomain.RefusedRegistration
/// A sign-up as typed (`Ledger.register(_:idempotencyKey:)`).
public typealias RegistrationInput = LedgerDomain.RegistrationInput
/// Spells and parses the ledger's ids.
public typealias Identifiers = LedgerDomain.Identifiers
/// A witness's refusal, with its HTTP-like code.
public typealias WitnessError = LedgerDomain.WitnessError
/// An event as read from the log.
public typealias RecordedEvent = LedgerDomain.RecordedEvent
/// A log's head: its last seq and hash.
public typealias Head = LedgerDomain.Head
/// An account command's refusal (`already-disabled`, `account-live`, …).
public typealias AccountRefusal = LedgerDomain.AccountRefusal
/// The kind of an account token: a verification or a password reset.
public typealias TokenKind = LedgerDomain.AccountTokens.Kind
/// The audit's view of account changes.
public typealias AccountChangeView = LedgerDomain.AccountChangeView
/// The views a read folds, with their rows.
public typealias LedgerViews = LedgerDomain.LedgerViews
/// A row of the users view.
public typealias UserRow = LedgerDomain.UserRow
/// Where a read stops: a seq or a time.
public typealias AsOf = LedgerDomain.AsOf
/// The model of `ledger report`'s HTML page.
public typealias ReportModel = LedgerDomain.ReportModel
/// Renders a `ReportModel` as one HTML page.
public typealias HTMLReport = LedgerDomain.HTMLReport
/// An event type of the catalogue.
public typealias EventType = LedgerDomain.EventType
/// A stream's name (`category-uuid`).
public typealias StreamName = LedgerDomain.StreamName
/// A stream's category.
public typealias StreamCategory = LedgerDomain.StreamCategory
/// What is wrong with a log line.
public typealias LogProblem = LedgerDomain.LogProblem
/// The kind of a log problem (its stable code).
public typealias ProblemKind = LedgerDomain.ProblemKind
/// The payload of `AccountDisabled`.
public typealias AccountDisabled = LedgerDomain.AccountDisabled
/// Why an account was deleted.
public typealias AccountDeletedReason = LedgerDomain.AccountDeletedReason
/// A signed note's problem.
public typealias NoteError = LedgerDomain.NoteError
/// A signed-note verifier key.
public typealias NoteVerifierKey = LedgerDomain.NoteVerifierKey
/// A signed-note key name, and what a valid one is.
public typealias NoteKeyName = LedgerDomain.NoteKeyName
/// A signed-note key's algorithm.
public typealias NoteKeyType = LedgerDomain.NoteKeyType
/// A witness's add-checkpoint request.
public typealias AddCheckpointRequest = LedgerDomain.AddCheckpointRequest
