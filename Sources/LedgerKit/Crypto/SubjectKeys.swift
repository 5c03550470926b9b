import LedgerDomain

// MARK: - SubjectKeys

/// Where a writer of data version 2 gets the data key of a subject (`PersonalDataSealer`): the
/// file store's key store (`events.keys`), or a PostgreSQL append's transaction over `ledger_keys`.
/// Either way a subject gets one random 256-bit key on first use, kept as durable as the line that
/// needs it, and an erased subject never gets one again.
protocol SubjectKeys {
    /// The key of `subject`: its live key, else a new one from `random`, stored no later than the
    /// line it encrypts. Refused (`subject-erased`) when the subject's key was erased, and
    /// (`missing-key`) when it has none and `mayCreate` is false (the log already names it).
    func key(creatingFor subject: SubjectID, random: any RandomSource, mayCreate: Bool) throws(KeyStoreError) -> [UInt8]
}

extension KeyStore: SubjectKeys {
    /// `createKey(for:random:)`: synced in its slot before this returns.
    func key(creatingFor subject: SubjectID, random: any RandomSource, mayCreate: Bool) throws(KeyStoreError) -> [UInt8] {
        try createKey(for: subject, random: random, mayCreate: mayCreate)
    }
}
