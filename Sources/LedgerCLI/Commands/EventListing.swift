import LedgerKit

// MARK: - EventListing

/// What `ledger events` prints: the matching lines exactly as stored (`--json`), or a table with a
/// count line. Printed at the end, or, when following, batch by batch with fixed column widths.
struct EventListing {
    /// The table's column titles.
    static let headers = ["SEQ", "AT", "TYPE", "STREAM"]
    /// Widths every row fits when following (seq up to 7 digits, millisecond timestamps, any type or stream).
    static let followingWidths = [
        7,
        Timestamp(millis: 0).rfc3339.count,
        EventType.allCases.map(\.rawValue.count).max() ?? 0,
        StreamCategory.allCases.map { $0.stream(String(repeating: "0", count: 36)).count }.max() ?? 0,
    ]

    /// Print raw lines instead of a table.
    let json: Bool
    /// Print as batches arrive (`flushBatch`) rather than all at `finish`.
    let following: Bool
    /// Where to print.
    let context: Context
    /// Events printed so far.
    private(set) var count = 0
    private var rows: [[String]] = []
    private var layout: Layout?

    /// A listing for `--json` or not, following or not.
    init(json: Bool, following: Bool, context: Context) {
        self.json = json; self.following = following; self.context = context
    }

    /// Prints (`--json`) or gathers one matching event.
    mutating func add(_ event: RecordedEvent, line: UnsafeBufferPointer<UInt8>) {
        count += 1
        if json {
            context.print(String(decoding: line, as: UTF8.self))
        } else {
            rows.append([String(event.seq), event.at.rfc3339, event.envelope.type, event.stream])
        }
    }

    /// When following: prints the rows gathered since the last batch (the header before the first)
    /// and writes out standard output.
    mutating func flushBatch() {
        guard following else { return }
        if !json {
            let style = context.style
            if layout == nil {
                let table = Table(headers: Self.headers, rows: rows, minimumWidths: Self.followingWidths, idColumns: [3])
                let fitted = table.layout(fittingIn: context.outputWidth)
                context.print(fitted.header(Self.headers, style: style))
                layout = fitted
            }
            if let layout { for row in rows { context.print(layout.row(row, style: style) { _, _ in nil }) } }
            rows = []
        }
        context.flush()
    }

    /// Prints what is left of the table and its count line (nothing more with `--json`).
    mutating func finish() {
        guard !json else { context.flush(); return }
        if following {
            flushBatch()
            context.print(context.style.dim(Table.count(count, "event")))
            context.flush()
        } else {
            context.printTable(Table(headers: Self.headers, rows: rows), noun: "event")
        }
    }
}
