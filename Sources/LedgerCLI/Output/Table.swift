import LedgerKit

// MARK: - Table

/// A plain text table: a header row and aligned columns, measured in display columns
/// (`DisplayWidth`). Values are cut with an ellipsis past `maxWidth`, and, given a terminal width,
/// the widest columns are shrunk first until a row fits; an id column is never cut (an id cut short
/// cannot be pasted back), so a row whose ids alone do not fit is wider than the terminal.
struct Table {
    /// Column titles.
    let headers: [String]
    /// Rows of cells.
    var rows: [[String]] = []
    /// The widest a column may be.
    var maxWidth = 64
    /// The narrowest each column may be, by index (so rows printed later can line up with these).
    var minimumWidths: [Int] = []
    /// Columns that hold ids whatever the rows so far (when later rows are printed to this layout).
    var idColumns: Set<Int> = []
    /// The tone of a body cell, from its column and text (nil: plain).
    var tone: (_ column: Int, _ text: String) -> Style.Tone? = { _, _ in nil }

    /// A column narrower than this (or than its own content) is never made by fitting.
    static let narrowest = 4

    /// The column widths: each column's widest cell (within `maxWidth`, at least its minimum), then,
    /// when a row would be wider than `width`, the widest columns but the id columns shrunk one
    /// column at a time.
    func layout(fittingIn width: Int?) -> Layout {
        var widths = headers.indices.map { i in min(maxWidth, i < minimumWidths.count ? minimumWidths[i] : 0) }
        for row in [headers] + rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], min(maxWidth, DisplayWidth.of(OneLine.escaped(cell)))) }
        }
        guard let width, !widths.isEmpty else { return Layout(widths: widths) }
        let floors = widths.indices.map { isIDColumn($0) ? widths[$0] : min(widths[$0], Self.narrowest) }
        var total = widths.reduce(widths.count - 1, +)
        while total > width {
            // The widest column that can still give; on a tie, the rightmost.
            var widest: Int?
            for i in widths.indices where widths[i] > floors[i] && widths[i] >= widest.map({ widths[$0] }) ?? 0 { widest = i }
            guard let widest else { break }
            widths[widest] -= 1
            total -= 1
        }
        return Layout(widths: widths)
    }

    /// True when column `i` holds ids: each of its cells is a uid, a session id, an image name or a
    /// stream name (or `-`), and at least one is.
    func isIDColumn(_ i: Int) -> Bool {
        if idColumns.contains(i) { return true }
        var any = false
        for row in rows where i < row.count && row[i] != "-" {
            guard Identifiers.isLowercaseUUID(row[i]) || StreamName.parse(row[i]) != nil else { return false }
            any = true
        }
        return any
    }

    /// The rendered lines: the header (bold) and the rows, fitted to `width` when given.
    func render(width: Int? = nil, style: Style = .plain) -> [String] {
        let layout = layout(fittingIn: width)
        return [layout.header(headers, style: style)] + rows.map { layout.row($0, style: style, tone: tone) }
    }

    /// `3 events`, `1 event`.
    static func count(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}

// MARK: - Layout

/// The column widths of a table; renders any row to them, cutting long cells with `…`.
struct Layout {
    /// Width of each column (a space separates columns; the last is not padded).
    let widths: [Int]

    /// The header line, bold.
    func header(_ cells: [String], style: Style) -> String {
        line(cells, style: style) { _, _ in .bold }
    }

    /// A body line, each cell in the tone `tone` gives it.
    func row(_ cells: [String], style: Style, tone: (Int, String) -> Style.Tone?) -> String {
        line(cells, style: style, tone: tone)
    }

    private func line(_ cells: [String], style: Style, tone: (Int, String) -> Style.Tone?) -> String {
        var text = ""
        for (i, raw) in cells.enumerated() {
            // A value from the log or a file name may hold a newline or a terminal escape: shown escaped.
            let cell = OneLine.escaped(raw)
            let width = i < widths.count ? widths[i] : DisplayWidth.of(cell)
            let cut = Self.cut(cell, to: width)
            text += style.apply(tone(i, cell), cut)
            if i < cells.count - 1 { text += String(repeating: " ", count: max(0, width - DisplayWidth.of(cut)) + 1) }
        }
        return text
    }

    /// `text` if it fits in `width` columns, else its start and `…` within them.
    static func cut(_ text: String, to width: Int) -> String {
        DisplayWidth.of(text) > width ? DisplayWidth.prefix(text, fitting: max(0, width - 1)) + "…" : text
    }
}

// MARK: - Printing

extension Context {
    /// Prints `table` fitted to the terminal (in color when on), then its count line (dim).
    func printTable(_ table: Table, noun: String) {
        table.render(width: outputWidth, style: style).forEach(print)
        print(style.dim(Table.count(table.rows.count, noun)))
    }
}
