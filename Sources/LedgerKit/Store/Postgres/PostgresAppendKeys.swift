import LedgerDomain

// MARK: - PostgresAppendKeys

/// The data keys one PostgreSQL append uses (`SubjectKeys`), inside its transaction and under the
/// append lock: the keys of the subjects its events name by uid, read with the append's other reads
/// (`readForAppend`); any other subject's looked up when first needed; a subject without a key
/// given a new random one, inserted into `ledger_keys` by the statements that insert the lines
/// (`insertStatements`), so the key commits with them or not at all.
final class PostgresAppendKeys: SubjectKeys {
    private let connection: PostgresConnection
    /// What the table holds (or this append made) for the subjects asked so far.
    private var entries: [SubjectID: PostgresKeyRing.Entry] = [:]
    /// The keys this append made, in order.
    private(set) var made: [(subject: SubjectID, key: [UInt8])] = []
    /// The erased subjects an import brought (`adopt`).
    private var erasedAdopted: [SubjectID] = []

    /// The keys of an append on `connection`, knowing the rows `preloaded` returned (`preloadQuery`).
    init(connection: PostgresConnection, preloaded: PostgresResult?) {
        self.connection = connection
        guard let preloaded else { return }
        for row in 0..<preloaded.count {
            guard let subject = preloaded.string(row, 0).flatMap(SubjectID.init) else { continue }
            entries[subject] = PostgresKeyRing.entry(erased: preloaded.string(row, 1), hex: preloaded.string(row, 2))
        }
    }

    /// The statement that reads the rows of the subjects `events` name by uid (their keys, or that they were erased).
    static func preloadQuery(_ events: [LedgerEvent]) -> PostgresConnection.Statement {
        var subjects = Set<String>()
        for event in events {
            guard let rule = PersonalMembers.rule(for: event.type) else { continue }
            for case .uidMember(let name) in rule.subject {
                if let uid = event.data[name]?.stringValue.flatMap(UUIDBits.init(uuid:)) { subjects.insert(SubjectID.account(uid).text) }
            }
        }
        return .init("SELECT subject, erased, encode(key, 'hex') FROM ledger_keys WHERE subject = ANY($1::text[])",
                     [PostgresAccounts.textArray(subjects.sorted())])
    }

    /// The key of `subject`: the table's, else a new one from `random` (inserted with the lines).
    func key(creatingFor subject: SubjectID, random: any RandomSource, mayCreate: Bool) throws(KeyStoreError) -> [UInt8] {
        if entries[subject] == nil {
            do {
                let rows = try connection.execute("SELECT erased, encode(key, 'hex') FROM ledger_keys WHERE subject = $1", [subject.text])
                entries[subject] = rows.count == 1 ? PostgresKeyRing.entry(erased: rows.string(0, 0), hex: rows.string(0, 1)) : .absent
            } catch {
                throw KeyStoreError(.io, "ledger_keys could not be read: \(error)")
            }
        }
        switch entries[subject]! {
        case .key(let key): return key
        case .erased: throw KeyStoreError(.subjectErased, "the key of \(subject) was erased; it is never made again")
        case .absent where !mayCreate: throw KeyStoreError.missing(subject)
        case .absent:
            let key = random.bytes(AESGCM.keySize)
            guard key.count == AESGCM.keySize else { throw KeyStoreError(.io, "the random source gave \(key.count) bytes, not 32") }
            entries[subject] = .key(key)
            made.append((subject, key))
            return key
        }
    }

    /// Takes `subject`'s key (nil: erased) from another key store (`ledger import` of a version 2
    /// log and its `events.keys`), to be inserted with the lines; a subject the table has keeps its row.
    func adopt(_ subject: SubjectID, key: [UInt8]?) {
        guard entries[subject] == nil else { return }
        if let key {
            entries[subject] = .key(key)
            made.append((subject, key))
        } else {
            entries[subject] = .erased
            erasedAdopted.append(subject)
        }
    }

    /// The statements that insert the keys this append made or adopted (none when there are none).
    /// Under the append lock no other writer makes one meanwhile; a row already there is kept.
    var insertStatements: [PostgresConnection.Statement] {
        var statements: [PostgresConnection.Statement] = []
        var start = 0
        while start < made.count {
            var values: [String] = [], parameters: [String?] = []
            for (subject, key) in made[start..<min(made.count, start + 1000)] {
                values.append("($\(parameters.count + 1), false, decode($\(parameters.count + 2), 'hex'))")
                parameters += [subject.text, Identifiers.hex(key)]
            }
            statements.append(.init("INSERT INTO ledger_keys (subject, erased, key) VALUES " + values.joined(separator: ", ")
                                    + " ON CONFLICT (subject) DO NOTHING", parameters))
            start += 1000
        }
        if !erasedAdopted.isEmpty {
            statements.append(.init("INSERT INTO ledger_keys (subject, erased, key) SELECT s, true, NULL FROM unnest($1::text[]) AS s ON CONFLICT (subject) DO NOTHING",
                                    [PostgresAccounts.textArray(erasedAdopted.map(\.text))]))
        }
        return statements
    }

    /// The opener of this append's transaction: `erasing` reads as erased, the keys this append
    /// made open their lines (not committed yet, no other connection sees them), else `ring`.
    func opener(erasing: Set<SubjectID>, ring: PostgresKeyRing) -> any PersonalDataOpener {
        TransactionOpener(erasing: erasing.union(erasedAdopted), made: Dictionary(made.map { ($0.subject, $0.key) }) { first, _ in first }, ring: ring)
    }

    /// `opener(erasing:ring:)`.
    private struct TransactionOpener: PersonalDataOpener {
        let erasing: Set<SubjectID>
        let made: [SubjectID: [UInt8]]
        let ring: PostgresKeyRing

        func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember {
            if erasing.contains(member.subject) { return .erased }
            guard let key = made[member.subject] else { return ring.open(member, eventID: eventID, type: type, name: name) }
            do throws(MemberCipherError) {
                return .text(try MemberCipher.decrypt(member, eventID: eventID, type: type, member: name, key: key))
            } catch {
                return .unreadable(error.description)
            }
        }
    }
}
