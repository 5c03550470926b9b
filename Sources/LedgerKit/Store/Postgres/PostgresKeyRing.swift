import LedgerDomain
import Synchronization

// MARK: - PostgresKeyRing

/// The opener of a PostgreSQL store's encrypted personal members (`PersonalDataOpener`), the
/// store's `KeyRing`: each subject's key is read from `ledger_keys` once, on a connection of its
/// own, and kept for the life of the process (a key never changes; it is only erased). A subject
/// erased is `.erased`, one without a row `.missingKey`. After `bulkAfter` lookups one by one the
/// whole table is read in one query, so a read of the whole log costs one query, not one per
/// subject. Safe to share between the scanner's threads: the keys and the connection sit behind one mutex.
public final class PostgresKeyRing: PersonalDataOpener {
    /// What the ring knows of a subject.
    enum Entry: Equatable { case key([UInt8]), erased, absent }

    /// Lookups one by one before the whole table is read.
    static let bulkAfter = 32

    private struct State {
        var connection: PostgresConnection?
        var entries: [SubjectID: Entry] = [:]
        var lookups = 0
        var bulkLoaded = false
    }

    private let state = Mutex<State>(State())
    /// The subjects whose erasure events this process met (`noteErased`).
    private let erasedMet = Mutex<Set<SubjectID>>([])
    /// The store.
    public let url: PostgresURL

    /// The subjects whose erasure events this process met: a read asks `ledger_keys` whether it
    /// still holds a key of one (`LogSource.finishErasures`).
    public var erasedSubjectsMet: Set<SubjectID> { erasedMet.withLock { $0 } }

    /// The ring of the store at `url` (connected on first use).
    public init(url: PostgresURL) { self.url = url }

    /// The text of `member`, opened with its subject's key.
    public func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember {
        switch entry(member.subject) {
        case .success(.key(let key)):
            do throws(MemberCipherError) {
                return .text(try MemberCipher.decrypt(member, eventID: eventID, type: type, member: name, key: key))
            } catch {
                return .unreadable(error.description)
            }
        case .success(.erased): return .erased
        case .success(.absent): return .missingKey
        case .failure(let error): return .unreadable("the key of \(member.subject) cannot be read from ledger_keys: \(error)")
        }
    }

    /// What `ledger_keys` holds for `subject` (nil: the store could not be asked).
    func entry(_ subject: SubjectID) -> Result<Entry, StoreError> {
        state.withLock { state -> Result<Entry, StoreError> in
            if let known = state.entries[subject] { return .success(known) }
            do {
                if state.connection?.isOpen != true { state.connection = try PostgresConnection.forStore(url) }
                let connection = state.connection!
                if !state.bulkLoaded && state.lookups >= Self.bulkAfter {
                    let rows = try connection.execute("SELECT subject, erased, encode(key, 'hex') FROM ledger_keys")
                    for row in 0..<rows.count {
                        // A subject the log erased (`noteErased`) stays erased, whatever the table says.
                        guard let subject = rows.string(row, 0).flatMap(SubjectID.init), state.entries[subject] != .erased else { continue }
                        state.entries[subject] = Self.entry(erased: rows.string(row, 1), hex: rows.string(row, 2))
                    }
                    state.bulkLoaded = true
                    if let known = state.entries[subject] { return .success(known) }
                }
                state.lookups += 1
                let rows = try connection.execute("SELECT erased, encode(key, 'hex') FROM ledger_keys WHERE subject = $1", [subject.text])
                let entry = rows.count == 1 ? Self.entry(erased: rows.string(0, 0), hex: rows.string(0, 1)) : .absent
                // An absent key may be made by the next append: only keys and erasures are kept.
                if entry != .absent { state.entries[subject] = entry }
                return .success(entry)
            } catch let error as PostgresError where error.sqlState == "42P01" {
                return .success(.absent)  // a store from before data version 2: no keys at all
            } catch let error as PostgresError {
                if error.connectionLost { state.connection = nil }
                return .failure(StoreError(.unavailable, error.message))
            } catch {
                return .failure(StoreError(.unavailable, "\(error)"))
            }
        }
    }

    /// The log erased `subject`: its members open as erased from now on, whatever `ledger_keys`
    /// says (a row restored from a backup taken before the erasure brings nothing back). True when
    /// the ring held its key, so members of it may have been opened to text: what was read of them
    /// must be read again.
    public func noteErased(_ subject: SubjectID) -> Bool {
        erasedMet.withLock { _ = $0.insert(subject) }
        return state.withLock { state in
            let had = state.entries[subject]
            state.entries[subject] = .erased
            if case .key = had { return true }
            return false
        }
    }

    /// Forgets what the ring read of `subject` (its key was destroyed).
    public func forget(_ subject: SubjectID) { state.withLock { _ = $0.entries.removeValue(forKey: subject) } }

    /// The entry of a row: erased, or the key its hex spells (a row this build cannot read: absent).
    static func entry(erased: String?, hex: String?) -> Entry {
        if erased == "t" { return .erased }
        guard let hex, let key = bytes(hex: hex), key.count == AESGCM.keySize else { return .absent }
        return .key(key)
    }

    /// The bytes of lowercase or uppercase hex text, nil when it is not hex.
    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            case 0x41...0x46: c - 0x41 + 10
            default: nil
            }
        }
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    // MARK: - Shared rings

    /// One ring per store in this process (by its URL's text), so every read of a store reads its keys once.
    private static let rings = Mutex<[String: PostgresKeyRing]>([:])

    /// The ring of the store at `url`.
    public static func forStore(_ url: PostgresURL) -> PostgresKeyRing {
        rings.withLock { rings in
            if let ring = rings[url.text] { return ring }
            let ring = PostgresKeyRing(url: url)
            rings[url.text] = ring
            return ring
        }
    }
}
