import Glibc
import LedgerDomain

// MARK: - BlobFolderEntry

/// What a name in `profile_image/` is: the one rule `audit` and `recover` share, so every file
/// `audit` reports as an orphan is one `recover` removes, and a file that is not the ledger's is
/// reported as such and left to the operator.
public enum BlobFolderEntry: Equatable, Sendable {
    /// An image blob: a lowercase UUID.
    case image(String)
    /// A temporary file of a blob's atomic write (`<uuid>.tmp-<pid>`), and the image (`<uuid>`) it is written for.
    case temporary(String, image: String)
    /// Any other name: nothing the ledger writes (`notes.txt`, a copy, a folder).
    case foreign(String)

    /// The entry named `name`.
    public init(name: String) {
        if Identifiers.isLowercaseUUID(name) {
            self = .image(name)
        } else if let image = Self.image(ofTemporary: name) {
            self = .temporary(name, image: image)
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
    /// registration (`running`) is storing, or a temporary file of an image no running registration
    /// is storing. Whether a registration runs is its lock's word (held by a live process, on any
    /// host for PostgreSQL), never the pid in the temporary name: after a reboot that pid may name an
    /// unrelated live process, and the file would never be removed (found by
    /// `Tests/Drills/crash_states.py`). The image is noted in the lock before its temporary file is
    /// created, and the folder is listed before the running registrations are asked.
    public func isOrphan(images: ImageView, running: Set<String>) -> Bool {
        switch self {
        case .image(let name): images.status(of: name) != .stored && !running.contains(name)
        case .temporary(_, let image): !running.contains(image)
        case .foreign: false
        }
    }

    /// The image a temporary blob name `<uuid>.tmp-<pid>` is written for (`<uuid>`), else nil (the
    /// pid written as `getpid()` writes it: digits, no sign, no leading zero).
    private static func image(ofTemporary name: String) -> String? {
        guard let marker = name.firstRange(of: ".tmp-") else { return nil }
        let image = String(name[..<marker.lowerBound])
        guard Identifiers.isLowercaseUUID(image), let pid = Int32(name[marker.upperBound...]), pid > 0,
              String(pid) == name[marker.upperBound...] else { return nil }
        return image
    }
}
