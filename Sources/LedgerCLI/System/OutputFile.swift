import LedgerKit

// MARK: - OutputFile

/// A file a command is to write (`report --html FILE`), checked before any work is done, so that a
/// path that cannot be written is named for its real cause rather than by the temp file beside it.
enum OutputFile {
    /// Throws an I/O error (exit 3) when `path` is a folder, or its folder does not exist or is no folder.
    static func check(_ path: String) throws(CLIError) {
        let folder = FileSystem.directoryName(path)
        if FileSystem.isDirectory(path) {
            throw CLIError.environment("cannot write \(path): it is a folder; name the file to write in it, e.g. \(FileSystem.join(path, "report.html"))",
                                       code: "is-a-directory")
        }
        guard FileSystem.isDirectory(folder) else {
            let why = FileSystem.exists(folder) ? "\(folder) is not a folder" : "the folder \(folder) does not exist"
            throw CLIError.environment("cannot write \(path): \(why); create it first, or name a file in an existing folder", code: "not-found")
        }
    }
}
