import Glibc
import LedgerDomain

// MARK: - Checkpoint

/// Views saved with the `seq` and `hash` they reflect and where that line ends in the log, so a
/// read replays only the events after it. Stored beside the log as `<log>.checkpoint`.
public struct Checkpoint {
    /// The views as of the checkpoint's line.
    public var views: LedgerViews
    /// Byte offset where the checkpoint's line starts.
    public var lineStart: Int
    /// Byte offset just after the checkpoint's line (where the tail starts).
    public var offset: Int
    /// The time of the checkpoint's line (known once loaded and matched against the log).
    public var headAt: Timestamp?

    /// The file format version.
    static let format = 1

    /// `<log>.checkpoint`.
    public static func path(forLog log: String) -> String { log + ".checkpoint" }

    /// Events between checkpoints: `LEDGER_CHECKPOINT_EVERY` (0 turns checkpoints off), else 10,000.
    public static var interval: Int {
        guard let raw = getenv("LEDGER_CHECKPOINT_EVERY"), let value = Int(String(cString: raw)), value >= 0 else { return 10_000 }
        return value
    }

    /// The checkpoint of `log`, if one exists, decodes, and still matches the log's line at its seq
    /// (same bytes, same hash); nil otherwise, so a stale or foreign checkpoint is ignored and rebuilt.
    public static func load(forLog log: String, file: FileDescriptor) -> Checkpoint? {
        guard interval > 0, let bytes = try? FileSystem.read(path(forLog: log)),
              case .object(let root)? = try? JSONReader.parse(bytes),
              root["format"]?.intValue == format, let lineStart = root["lineStart"]?.intValue,
              let offset = root["offset"]?.intValue, let viewsJSON = root["views"],
              let views = try? LedgerViews(checkpoint: viewsJSON),
              let headAt = CoveredLine.time(in: file, lineStart: lineStart, offset: offset, head: views.head)
        else { return nil }
        return Checkpoint(views: views, lineStart: lineStart, offset: offset, headAt: headAt)
    }

    /// Writes this checkpoint durably (temp, fsync, rename, fsync folder); failures are ignored
    /// (a read-only folder just means no checkpoint).
    public func save(forLog log: String) {
        let root = JSONValue.object(JSONObject([
            ("format", .int(Self.format)), ("lineStart", .int(lineStart)), ("offset", .int(offset)), ("views", views.checkpointJSON),
        ]))
        try? FileSystem.writeAtomically(JSONWriter.bytes(root), to: Self.path(forLog: log))
    }
}
