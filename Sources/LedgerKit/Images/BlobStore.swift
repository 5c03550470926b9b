import Glibc
import LedgerDomain

// MARK: - BlobStore

/// Where profile image bytes live, behind an interface so deployments can swap it.
public protocol BlobStore {
    /// Makes sure blobs can be put (e.g. creates their folder durably), so that a `put` costs only its own syncs.
    func prepare() throws
    /// Stores `bytes` under `name` durably; returns only once they are on disk.
    func put(_ name: String, _ bytes: [UInt8]) throws
    /// Removes `name` durably; a missing blob is not an error.
    func remove(_ name: String) throws
    /// The blob's bytes, or nil when missing.
    func get(_ name: String) throws -> [UInt8]?
    /// The names of every blob present.
    func names() throws -> [String]
}

extension BlobStore {
    /// Nothing to prepare.
    public func prepare() throws {}
}

// MARK: - FileBlobStore

/// Blobs as files in `DIR/profile_image/`, written temp → fsync → rename → fsync folder. The folder
/// must be a real folder of the data directory (`FileSystem.checkOwnFolder`): at a link, nothing is
/// listed, read, created or removed, and every call is refused.
public struct FileBlobStore: BlobStore {
    /// `DIR/profile_image`.
    public let folder: String

    /// The blob folder of data directory `directory`.
    public init(directory: String) { folder = FileSystem.join(directory, "profile_image") }

    /// Creates the folder (and fsyncs its parent) when it does not exist yet: once per data directory.
    public func prepare() throws { try FileSystem.makeOwnFolder(folder) }

    /// Stores `bytes` durably. `name` must be a lowercase UUID (no path tricks).
    public func put(_ name: String, _ bytes: [UInt8]) throws {
        try checkName(name)
        try FileSystem.makeOwnFolder(folder)
        try FileSystem.writeAtomically(bytes, to: FileSystem.join(folder, name))
    }

    /// Removes the blob and fsyncs the folder.
    public func remove(_ name: String) throws {
        try checkName(name)
        guard try FileSystem.checkOwnFolder(folder) else { return }
        try FileSystem.remove(FileSystem.join(folder, name))
    }

    /// The blob's bytes, or nil when missing.
    public func get(_ name: String) throws -> [UInt8]? {
        try checkName(name)
        guard try FileSystem.checkOwnFolder(folder) else { return nil }
        do {
            return try FileSystem.read(FileSystem.join(folder, name))
        } catch let error as SystemError where error.isNotFound {
            return nil
        }
    }

    /// Every entry of the folder (leftover temp files included).
    public func names() throws -> [String] { try Self.list(folder) }

    /// The entries of `folder`, a folder of the data directory's own (none when it does not exist),
    /// sorted. A link there is refused (`checkOwnFolder`), and the folder is opened without
    /// following one (`O_NOFOLLOW`), so a link put there meanwhile is not listed either.
    public static func list(_ folder: String) throws -> [String] {
        guard try FileSystem.checkOwnFolder(folder) else { return [] }
        let fd = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return [] }
            if errno == ELOOP { throw SystemError.notFolder(folder, "it is a symbolic link") }
            if errno == ENOTDIR { throw SystemError.notFolder(folder, "it is not a folder") }
            throw SystemError("list", path: folder)
        }
        guard let dir = fdopendir(fd) else {
            let error = SystemError("list", path: folder)
            Glibc.close(fd)
            throw error
        }
        defer { closedir(dir) }
        var out: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { out.append(name) }
        }
        return out.sorted()
    }

    private func checkName(_ name: String) throws {
        guard Identifiers.isLowercaseUUID(name) else { throw SystemError("use blob name", path: name, code: EINVAL) }
    }
}
