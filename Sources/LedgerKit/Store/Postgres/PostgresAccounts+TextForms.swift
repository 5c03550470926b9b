import LedgerDomain

// MARK: - PostgresAccounts: text forms

/// How the account-state tables' values read and write as text.
extension PostgresAccounts {
    /// The account read at `status` (then email, password seq) of `row`, nil when absent or unreadable.
    static func account(_ result: PostgresResult, _ row: Int, status column: Int) -> Account? {
        guard let status = result.string(row, column).flatMap(AccountStatus.init(rawValue:)),
              let email = result.string(row, column + 1), let passwordSeq = result.int(row, column + 2) else { return nil }
        return Account(status: status, email: email, passwordSeq: passwordSeq)
    }

    /// The account of a row the fold is about to decide on: nil when absent, and an error when
    /// present but unreadable (e.g. a status this build does not know), so that an append refuses
    /// rather than read an account that holds its email as none.
    static func loadedAccount(_ result: PostgresResult, _ row: Int, status column: Int) throws -> Account? {
        guard !result.isNull(row, column) else { return nil }
        guard let account = account(result, row, status: column) else {
            throw StoreError(.damaged, "the PostgreSQL account tables hold a row this build cannot read (ledger_accounts.status \(result.string(row, column) ?? "")); run `ledger verify --store URL`")
        }
        return account
    }

    /// The times of a `bigint[]` in text form (`{1,2}`), oldest first; nil text: none.
    static func times(_ text: String?) -> [Timestamp] {
        guard let text else { return [] }
        return text.dropFirst().dropLast().split(separator: ",").compactMap { Int64($0).map { Timestamp(millis: $0) } }
    }

    /// A `text[]` literal of `items`, each quoted.
    static func textArray(_ items: [String]) -> String {
        let quoted = items.map { item in
            var out = "\""
            for character in item {
                if character == "\\" || character == "\"" { out.append("\\") }
                out.append(character)
            }
            return out + "\""
        }
        return "{" + quoted.joined(separator: ",") + "}"
    }

    /// A `bigint[]` literal of the times' milliseconds.
    static func bigintArray(_ times: [Timestamp]) -> String {
        "{" + times.map { String($0.millis) }.joined(separator: ",") + "}"
    }
}
