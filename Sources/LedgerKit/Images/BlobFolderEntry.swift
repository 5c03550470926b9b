import Glibc
import LedgerDomain

// MARK: - BlobFolderEntry

/// What a name in `profile_image/` is: the one rule `audit` and `recover` share, so every file
/// `audit` reports as an orphan is one `recover` removes, and a file that is not the ledger's is
/// reported as such and left to the operator.
public enum BlobFolderEntry: Equatable, Sendable {
    /// An image blob: a lowercase UUID.
    case image(String)
    /// A temporary file of a blob's atomic write (`<uuid>.tmp-<pid>`), and whether its writer runs.
    case temporary(String, writerRunning: Bool)
    /// Any other name: nothing the ledger writes (`notes.txt`, a copy, a folder).
    case foreign(String)

    /// The entry named `name`.
    public init(name: String) {
        if Identifiers.isLowercaseUUID(name) {
            self = .image(name)
        } else if let pid = Self.writer(ofTemporary: name) {
            self = .temporary(name, writerRunning: !(kill(pid, 0) != 0 && errno == ESRCH))
        } else {
            self = .foreign(name)
        }
    }

    /// The entry named `name` in the folder `folder`: a folder (or anything that is neither a
    /// regular file nor a link) is `foreign` whatever its name, so `recover` never tries to remove
    /// it and `audit` names it for the operator.
    public init(name: String, in folder: String) {
        var info = stat()
        let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG, (info.st_mode & S_IFMT) != S_IFLNK {
            self = .foreign(name)
        } else {
            self.init(name: name)
        }
    }

    /// The entry's name.
    public var name: String {
        switch self {
        case .image(let name), .temporary(let name, _), .foreign(let name): name
        }
    }

    /// True when `recover` removes it: an image no `ImageStored` in `images` owns and no running
    /// registration (`running`) is storing, or a temporary file whose writer is gone.
    public func isOrphan(images: ImageView, running: Set<String>) -> Bool {
        switch self {
        case .image(let name): images.status(of: name) != .stored && !running.contains(name)
        case .temporary(_, let writerRunning): !writerRunning
        case .foreign: false
        }
    }

    /// The writer's process id of a temporary blob name `<uuid>.tmp-<pid>`, else nil.
    private static func writer(ofTemporary name: String) -> Int32? {
        guard let marker = name.firstRange(of: ".tmp-"), Identifiers.isLowercaseUUID(String(name[..<marker.lowerBound])) else { return nil }
        guard let pid = Int32(name[marker.upperBound...]), pid > 0, String(pid) == name[marker.upperBound...] else { return nil }
        return pid
    }
}
