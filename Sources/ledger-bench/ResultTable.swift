// MARK: - ResultTable

/// A markdown table, columns padded so it also reads well in a terminal.
struct ResultTable {
    /// The header cells.
    let headers: [String]
    /// The rows, each as many cells as `headers`.
    private(set) var rows: [[String]] = []

    /// A table with `headers`.
    init(headers: [String]) { self.headers = headers }

    /// Adds a row.
    mutating func add(_ cells: [String]) {
        precondition(cells.count == headers.count, "a row needs \(headers.count) cells")
        rows.append(cells)
    }

    /// The table's lines.
    func render() -> [String] {
        let widths = headers.indices.map { column in ([headers] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            "| " + cells.enumerated().map { $1 + String(repeating: " ", count: widths[$0] - $1.count) }.joined(separator: " | ") + " |"
        }
        return [line(headers), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"] + rows.map(line)
    }
}
