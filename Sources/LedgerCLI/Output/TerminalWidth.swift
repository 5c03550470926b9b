import Glibc

// MARK: - TerminalWidth

/// How many columns human output may use: the terminal's width when standard output is one.
enum TerminalWidth {
    /// The width of the terminal on `fd` from `ioctl(TIOCGWINSZ)`, nil when it is not a terminal or
    /// reports no size (a fresh pseudo-terminal often reports 0 columns).
    static func query(fd: Int32 = 1) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The width to fit rows to: nil (no limit beyond each column's own) when standard output is not
    /// a terminal; else the terminal's columns, else a positive `$COLUMNS`, else nil.
    static func resolve(isTerminal: Bool, terminalColumns: Int?, environment: [String: String]) -> Int? {
        guard isTerminal else { return nil }
        if let terminalColumns, terminalColumns > 0 { return terminalColumns }
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        return nil
    }
}
