// MARK: - Table

/// A plain text table: a header row, aligned columns, values cut with an ellipsis past `maxWidth`.
struct Table {
    /// Column titles.
    let headers: [String]
    /// Rows of cells.
    var rows: [[String]] = []
    /// The widest a column may be.
    var maxWidth = 64

    /// The rendered lines.
    func render() -> [String] {
        let cut = { (text: String) -> String in text.count > maxWidth ? String(text.prefix(maxWidth - 1)) + "…" : text }
        let cells = ([headers] + rows).map { $0.map(cut) }
        var widths = headers.map { _ in 0 }
        for row in cells { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        return cells.map { row in
            row.enumerated().map { i, cell in i == row.count - 1 ? cell : pad(cell, widths[i] + 1) }.joined()
        }
    }
}
