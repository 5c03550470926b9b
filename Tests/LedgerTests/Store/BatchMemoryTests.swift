@testable import LedgerKit
import Testing

// MARK: - BatchMemoryTests

/// A read reuses its batches' memory: what a batch gives back is handed out again, grown when a
/// chunk needs more, and handed out clean (no line state of the batch before).
struct BatchMemoryTests {
    @Test func bytesGivenBackAreHandedOutAgain() {
        let memory = BatchMemory()
        let first = memory.bytes(atLeast: 10)
        #expect(first.capacity >= BatchMemory.bytesAtLeast)
        memory.give(first)
        let again = memory.bytes(atLeast: LogScanner.chunkSize)
        #expect(again.start == first.start)
        // More than any pooled buffer holds: a new, larger one; the small one stays pooled.
        let larger = memory.bytes(atLeast: first.capacity + 1)
        #expect(larger.start != first.start && larger.capacity > first.capacity)
        memory.give(again)
        memory.give(larger)
        #expect(memory.bytes(atLeast: first.capacity + 1).start == larger.start)
    }

    @Test func aFullPoolKeepsTheLargestBuffers() {
        let memory = BatchMemory()
        let sizes = [1, 2, 3, 4, 5].map { $0 * BatchMemory.bytesAtLeast }
        let buffers = sizes.map { memory.bytes(atLeast: $0) }
        for b in buffers { memory.give(b) }
        // Five given back, four kept: the smallest went. Each of the four larger ones comes back out.
        var handed: Set<UnsafeMutablePointer<UInt8>> = []
        for _ in 0..<4 { handed.insert(memory.bytes(atLeast: 2 * BatchMemory.bytesAtLeast).start) }
        #expect(handed == Set(buffers.dropFirst().map(\.start)))
    }

    @Test func slotsComeBackWithTheirStatesCleared() {
        let memory = BatchMemory()
        let slots = memory.slots(atLeast: 100)
        #expect(slots.capacity >= BatchMemory.slotsAtLeast)
        for i in 0..<100 { slots.state[i] = UInt8(1 + i % 3) }
        memory.give(slots)
        let again = memory.slots(atLeast: 100)
        #expect(again.state == slots.state)
        #expect((0..<100).allSatisfy { again.state[$0] == 0 })
        memory.give(again)
    }

    @Test func rangesComeBackEmptyWithTheirRoom() {
        let memory = BatchMemory()
        var ranges = memory.ranges()
        for i in 0..<1000 { ranges.append(i..<(i + 1)) }
        let room = ranges.capacity
        memory.give(ranges)
        ranges = []
        let again = memory.ranges()
        #expect(again.isEmpty && again.capacity >= room)
    }
}
