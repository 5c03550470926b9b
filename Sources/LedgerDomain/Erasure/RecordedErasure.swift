// MARK: - RecordedErasure

/// An erasure event a cache records (a views checkpoint's account changes): its seq and the
/// subject whose key it destroyed. A read that starts from the cache never meets the event itself,
/// so it asks the key store about the subjects of the last of these instead: a key store restored
/// from a backup taken before them still holds their keys.
public struct RecordedErasure: Equatable, Sendable {
    /// The erasure event's seq.
    public var seq: Int
    /// The subject it erased.
    public var subject: SubjectID

    /// The erasure at `seq` of `subject`.
    public init(seq: Int, subject: SubjectID) {
        self.seq = seq
        self.subject = subject
    }
}
