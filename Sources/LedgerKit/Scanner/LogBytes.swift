// MARK: - LogBytes

/// The bytes of a log as the scanner reads them, in order from an offset: a file, or a store's lines
/// streamed (each with its newline), so one verifying fold serves every store.
public protocol LogBytes: AnyObject {
    /// The bytes there are now: how much the scanner asks for at once (a stream of unknown length says `Int.max`).
    func size() throws -> Int
    /// Reads up to `count` bytes at `offset` into `buffer`; 0 at the end.
    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) throws -> Int
    /// True when every batch was stored whole (a PostgreSQL transaction): a batch the end cuts
    /// short then lost rows after it was acknowledged, instead of never having been acknowledged.
    var storesWholeBatches: Bool { get }
}

extension LogBytes {
    /// A file's batch is one write a crash can cut.
    public var storesWholeBatches: Bool { false }
}

extension FileDescriptor: LogBytes {}
