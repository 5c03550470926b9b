import LedgerKit

// MARK: - ImagesCommand

/// `ledger images`.
enum ImagesCommand {
    /// The definition.
    static let spec = CommandSpec(name: "images", summary: "list profile images (stored or deleted)", options: ReadOptions.specs)

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let images = try ReadOptions.load(invocation, context, views: .images).views.images
        if invocation.flag("json") {
            context.printRows { ViewRowsWriter.images(images, sink: $0) }
        } else {
            let rows = images.rows
            context.printTable(Table(headers: ["IMAGE", "UID", "TYPE", "BYTES", "STATUS"],
                                     rows: rows.map { [$0.imageName, $0.uid, $0.contentType.rawValue, String($0.bytes), $0.status.rawValue] }),
                               noun: "image")
        }
        return 0
    }
}
