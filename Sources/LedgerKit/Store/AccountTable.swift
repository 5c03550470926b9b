import LedgerDomain

// MARK: - AccountTable

/// The whole account fold's state in dictionaries: what a process that folds the log itself keeps
/// (a file store without its index file, answering `.uniqueEmails`; `verify`'s check of the
/// PostgreSQL tables). The failures keep an email's last `SignInRecord.keptFailures` times, as every store does.
struct AccountTable: AccountFoldState, Equatable {
    /// One account.
    struct Account: Equatable {
        /// Its status.
        var status: AccountStatus
        /// The email it holds (was last created with, or changed to), keyed by its bytes.
        var email: EmailBytes
        /// The seq of the line holding its password hash (its `AccountCreated` or last `PasswordChanged`).
        var passwordSeq: Int
    }

    var accounts: [UUIDBits: Account] = [:]
    /// Each email's last account, by the email's bytes (as every index of emails keys them).
    var emails: [EmailBytes: UUIDBits] = [:]
    /// Each email's recent failures, by the email's bytes.
    var failures: [EmailBytes: [Timestamp]] = [:]

    /// Room for the accounts of about `lines` lines (one in three or so creates one), so the fold never rehashes.
    mutating func reserve(lines: Int) {
        accounts.reserveCapacity(lines / 3)
        emails.reserveCapacity(lines / 3)
    }

    func emailKey(_ email: String) -> EmailBytes { EmailBytes(email) }
    func account(_ uid: UUIDBits) -> AccountFacts<EmailBytes>? { accounts[uid].map { AccountFacts(status: $0.status, email: $0.email) } }
    func lastAccount(of email: EmailBytes) -> UUIDBits? { emails[email] }
    mutating func recordCreation(of uid: UUIDBits, email: EmailBytes, status: AccountStatus, by event: ViewEvent) {
        accounts[uid] = Account(status: status, email: email, passwordSeq: event.seq)
        emails[email] = uid
    }
    mutating func setStatus(_ status: AccountStatus, of uid: UUIDBits) { accounts[uid]?.status = status }
    mutating func recordPassword(of uid: UUIDBits, by event: ViewEvent) { accounts[uid]?.passwordSeq = event.seq }
    mutating func recordEmailChange(of uid: UUIDBits, to email: EmailBytes, by event: ViewEvent) {
        accounts[uid]?.email = email
        emails[email] = uid
    }
    func mayHaveFailures(_ email: EmailBytes) -> Bool { failures[email] != nil }
    func recentFailures(of email: EmailBytes) -> [Timestamp] { failures[email] ?? [] }
    mutating func appendFailure(of email: EmailBytes, at time: Timestamp, by event: ViewEvent) {
        failures[email] = Array(((failures[email] ?? []) + [time]).suffix(SignInRecord.keptFailures))
    }
    mutating func clearFailures(of email: EmailBytes) { failures[email] = nil }

    /// The first way `self` (a store's tables) differs from `other` (the log's fold), in words; nil when alike.
    func difference(from other: AccountTable) -> String? {
        if accounts != other.accounts,
           let uid = accounts.keys.first(where: { accounts[$0] != other.accounts[$0] }) ?? other.accounts.keys.first(where: { accounts[$0] == nil }) {
            if let mine = accounts[uid], let theirs = other.accounts[uid], mine.status == theirs.status, mine.passwordSeq == theirs.passwordSeq {
                return "the email of account \(uid.uuidString) differs from the log's"  // never spelled out
            }
            return "account \(uid.uuidString) is \(Self.describe(accounts[uid])) in the tables, \(Self.describe(other.accounts[uid])) in the log"
        }
        if emails != other.emails { return "an email's last account differs" }
        if failures != other.failures { return "an email's sign-in failures differ" }
        return nil
    }

    private static func describe(_ account: Account?) -> String {
        account.map { "\($0.status.rawValue) (password set at seq \($0.passwordSeq))" } ?? "absent"
    }
}
