// MARK: - PrefetchStage

/// What a prefetch hint asks for: the index slots where a fold's lookup starts (`slots`, asked for
/// a few lines ahead), or the rows those slots lead to (`rows`, asked for later, once the slots are
/// in the cache and a row's place can be read from them without a wait).
public enum PrefetchStage: Sendable {
    /// The home slots of the keys a line's fold looks up.
    case slots
    /// The rows the first slots whose tags match lead to.
    case rows
}
