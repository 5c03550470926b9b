// MARK: - ChunkedArray

/// An append-only array stored in fixed chunks of 4,096 elements: growing never copies what is
/// already stored, so the views' row arrays (most of replay's memory) use what they hold plus at most
/// one partial chunk, with no moment where an old and a new copy of a large array both exist.
struct ChunkedArray<Element>: RandomAccessCollection {
    private static var shift: Int { 12 }
    private static var chunkSize: Int { 1 << shift }

    private var chunks: [[Element]] = []
    /// Elements held.
    private(set) var count = 0

    /// An empty array.
    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    /// The element at `index` (0 ..< count).
    subscript(index: Int) -> Element {
        _read { yield chunks[index >> Self.shift][index & (Self.chunkSize - 1)] }
        set { chunks[index >> Self.shift][index & (Self.chunkSize - 1)] = newValue }
        _modify { yield &chunks[index >> Self.shift][index & (Self.chunkSize - 1)] }
    }

    /// Calls `body` with each element, in order, where it lies: iterating copies each element,
    /// retaining and releasing every reference it holds.
    func forEachInPlace(_ body: (UnsafePointer<Element>) -> Void) {
        for chunk in chunks {
            chunk.withUnsafeBufferPointer { elements in
                for i in elements.indices { body(elements.baseAddress! + i) }
            }
        }
    }

    /// Calls `hint` with the address of the element at `index`, when it is held (a prefetch: the
    /// address is never read here).
    func prefetch(_ index: Int, _ hint: (UnsafeRawPointer) -> Void) {
        guard index >= 0, index < count else { return }
        chunks[index >> Self.shift].withUnsafeBufferPointer { hint(UnsafeRawPointer($0.baseAddress! + (index & (Self.chunkSize - 1)))) }
    }

    /// Adds `element` at the end (moved in: a borrowed element was copied, its references retained).
    mutating func append(_ element: consuming Element) {
        if count & (Self.chunkSize - 1) == 0 {
            var chunk: [Element] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(consume element)
        count += 1
    }
}

extension ChunkedArray: Equatable where Element: Equatable {}
extension ChunkedArray: Sendable where Element: Sendable {}
