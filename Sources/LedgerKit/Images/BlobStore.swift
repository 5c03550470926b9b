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

/// Blobs as files in `DIR/profile_image/`, written temp → fsync → rename → fsync folder.
public struct FileBlobStore: BlobStore {
    /// `DIR/profile_image`.
    public let folder: String

    /// The blob folder of data directory `directory`.
    public init(directory: String) { folder = FileSystem.join(directory, "profile_image") }

    /// Creates the folder (and fsyncs its parent) when it does not exist yet: once per data directory.
    public func prepare() throws { try FileSystem.makeDirectories(folder) }

    /// Stores `bytes` durably. `name` must be a lowercase UUID (no path tricks).
    public func put(_ name: String, _ bytes: [UInt8]) throws {
        try checkName(name)
        try FileSystem.makeDirectories(folder)
        try FileSystem.writeAtomically(bytes, to: FileSystem.join(folder, name))
    }

    /// Removes the blob and fsyncs the folder.
    public func remove(_ name: String) throws {
        try checkName(name)
        try FileSystem.remove(FileSystem.join(folder, name))
    }

    /// The blob's bytes, or nil when missing.
    public func get(_ name: String) throws -> [UInt8]? {
        try checkName(name)
        do {
            return try FileSystem.read(FileSystem.join(folder, name))
        } catch let error as SystemError where error.isNotFound {
            return nil
        }
    }

    /// Every entry of the folder (leftover temp files included).
    public func names() throws -> [String] { try Self.list(folder) }

    /// The entries of `folder` (none when it does not exist), sorted.
    public static func list(_ folder: String) throws -> [String] {
        guard let dir = opendir(folder) else {
            if errno == ENOENT { return [] }
            throw SystemError("list", path: folder)
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
