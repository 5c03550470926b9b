import LedgerDomain

// MARK: - PreparedKeys

/// The data keys one file store write seals with (`SubjectKeys`): those of the subjects its lines
/// name, made at once beforehand (`KeyStore.createKeys`), each with its own outcome; any other
/// subject (an erased day's successor) asked of the key store itself.
struct PreparedKeys: SubjectKeys {
    /// Each subject's key, or why it has none, as `KeyStore.createKeys` gave them.
    let made: [SubjectID: Result<[UInt8], KeyStoreError>]
    /// The key store they were made in.
    let store: KeyStore

    /// The key `made` holds for `subject` (or its refusal), else the key store's.
    func key(creatingFor subject: SubjectID, random: any RandomSource, mayCreate: Bool) throws(KeyStoreError) -> [UInt8] {
        if let outcome = made[subject] { return try outcome.get() }
        return try store.createKey(for: subject, random: random, mayCreate: mayCreate)
    }
}
