import LedgerDomain

// MARK: - WritersIndex: the record layout

/// Where each field of `events.jsonl.index` lies (format `LDGRIX07`), declared once: a 4096-byte
/// header, then `capacity` slots of 48 bytes. Every slot starts with its tag (0 = empty) and its
/// 16-byte key; what its other bytes mean depends on the tag, so each kind of slot has its own
/// layout below. Integers are in the host's byte order, stored unaligned.
extension WritersIndex {
    /// An integer field at a byte offset within the header or a slot.
    struct Field<Value: FixedWidthInteger> {
        /// Bytes from the start of the header or slot.
        let offset: Int
    }

    /// A 16-byte key (`UUIDBits`: high word, then low) at a byte offset within a slot.
    struct KeyField {
        /// Bytes from the start of the slot.
        let offset: Int
    }

    /// The header's fields.
    enum Header {
        static let size = 4096
        /// `LDGRIX07`, 8 bytes at 0.
        static let magic = 0
        /// The boot id the coverage was written in, 36 bytes.
        static let bootID = 8
        static let bootIDLength = 36
        /// The covered prefix: its size in bytes, where its last line starts, that line's seq and
        /// its hash (64 hex bytes), and the latest event time in it.
        static var coveredSize: Field<Int64> { Field(offset: 48) }
        static var coveredLineStart: Field<Int64> { Field(offset: 56) }
        static var coveredSeq: Field<Int64> { Field(offset: 64) }
        static let coveredHash = 72
        static let coveredHashLength = 64
        static var coveredLastAt: Field<Int64> { Field(offset: 136) }
        /// The number of slots (a power of two) and of slots in use.
        static var capacity: Field<Int64> { Field(offset: 144) }
        static var count: Field<Int64> { Field(offset: 152) }
        /// The log file the coverage is of.
        static var logDevice: Field<UInt64> { Field(offset: 160) }
        static var logInode: Field<UInt64> { Field(offset: 168) }
        /// 1 while the slots hold exactly the coverage, 0 while being changed (then nothing is trusted).
        static var trusted: Field<Int64> { Field(offset: 176) }
        /// The seq of the covered line the last durable checkpoint was written (or tried) at, 0 before the first.
        static var checkpointSeq: Field<Int64> { Field(offset: 184) }
        /// How many erasure events the table folded (`WritersIndex+Erasures`), then the last
        /// `recentErasures` of them, the n-th (from 0) at `erasures + n % recentErasures *
        /// erasureSize`: its seq, where its line starts, then its subject's id (ASCII,
        /// zero-padded to `subjectLength`).
        static var erasureCount: Field<Int64> { Field(offset: 192) }
        static let erasures = 200
        static let erasureSize = 16 + subjectLength
        static let subjectLength = 44
        static let recentErasures = 64
    }

    /// What every slot has, whatever its tag.
    enum Slot {
        static let size = 48
        static var tag: Field<UInt8> { Field(offset: 0) }
        static var key: KeyField { KeyField(offset: 8) }
        /// The 4-byte value after the tag (a count or a status), and the 24 bytes after the key:
        /// what a slot says, compared by `verify` and moved when the table grows.
        static let value = 4..<8
        static let words = 24..<48
        /// The seq of the last event applied (every kind but `olderFailures`, whose slot changes
        /// only with its `failures` slot).
        static var seq: Field<Int64> { Field(offset: 40) }
    }

    /// A stream (`registrationStream`, `sessionStream`, `signinStream`, `accountStream`), keyed by its id.
    enum StreamSlot {
        /// Its number of events.
        static var count: Field<UInt32> { Field(offset: 4) }
        /// Where its first and its last line start.
        static var firstLine: Field<Int64> { Field(offset: 24) }
        static var lastLine: Field<Int64> { Field(offset: 32) }
    }

    /// `email`, keyed by the email's key: the account last created with it.
    enum EmailSlot {
        static var lastAccount: KeyField { KeyField(offset: 24) }
    }

    /// `uid`, keyed by an account's uid: the key of the email it was last created with.
    enum UIDSlot {
        static var email: KeyField { KeyField(offset: 24) }
    }

    /// `account`, keyed by uid: its status and its last `AccountCreated` line.
    enum AccountSlot {
        /// Its `AccountStatus`, as its index in `statusValues`.
        static var status: Field<UInt32> { Field(offset: 4) }
        /// Where the line holding its password hash starts (its `AccountCreated` or last
        /// `PasswordChanged`), and the first 8 bytes of that line's hash.
        static var passwordLine: Field<Int64> { Field(offset: 24) }
        static var passwordLineHash: Field<UInt64> { Field(offset: 32) }
    }

    /// `failures`, keyed by the email's key: its consecutive wrong passwords, and the two latest times.
    enum FailuresSlot {
        static var count: Field<UInt32> { Field(offset: 4) }
        static var newest: Field<Int64> { Field(offset: 24) }
        static var second: Field<Int64> { Field(offset: 32) }
    }

    /// `olderFailures`, keyed by the email's key: the three wrong-password times before `failures`'s two.
    enum OlderFailuresSlot {
        static var third: Field<Int64> { Field(offset: 24) }
        static var fourth: Field<Int64> { Field(offset: 32) }
        static var fifth: Field<Int64> { Field(offset: 40) }
    }

    // MARK: - Access

    /// The header's `field`.
    subscript<Value>(header field: Field<Value>) -> Value {
        get { load(Value.self, at: field.offset) }
        set { store(newValue, at: field.offset) }
    }

    /// `field` of the slot at byte offset `slot`.
    subscript<Value>(slot: Int, field: Field<Value>) -> Value {
        get { load(Value.self, at: slot + field.offset) }
        set { store(newValue, at: slot + field.offset) }
    }

    /// The key `field` of the slot at byte offset `slot`.
    subscript(slot: Int, field: KeyField) -> UUIDBits {
        get { UUIDBits(high: load(UInt64.self, at: slot + field.offset), low: load(UInt64.self, at: slot + field.offset + 8)) }
        set {
            store(newValue.high, at: slot + field.offset)
            store(newValue.low, at: slot + field.offset + 8)
        }
    }
}
