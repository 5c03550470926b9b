import Foundation
import Glibc
import LedgerDomain
import LedgerKit
import Testing

// MARK: - KeyStoreTests

/// The file store's key store (`events.keys`): keys made once and found again, erasures that
/// leave no key bytes in the file, growth past the first table, torn slots reported, and the file
/// refused through a symbolic or hard link.
struct KeyStoreTests {
    static func subject(_ n: Int) -> SubjectID {
        .account(UUIDBits(high: 0x1234_5678_9ABC_4DEF, low: 0x8000_0000_0000_0000 | UInt64(n)))
    }

    static let day = SubjectID("address-2026-11-29")!

    /// The code of what `body` throws, nil when it does not.
    static func code<T>(_ body: () throws -> T) -> KeyStoreError.Code? {
        do {
            _ = try body()
            return nil
        } catch let error as KeyStoreError { return error.code } catch {
            Issue.record("not a KeyStoreError: \(error)")
            return nil
        }
    }

    /// Where `needle` starts in `haystack`, if anywhere.
    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        Data(haystack).range(of: Data(needle))?.lowerBound
    }

    @Test("a key is made once, found again, erased for good; the file is 0600 and survives a reopen")
    func createLookupErase() throws {
        try withTempDirectory { dir in
            let random = SeededRandom(seed: 5)
            let store = try KeyStore(directory: dir)
            #expect(try store.state(of: Self.subject(1)) == .absent)
            #expect(try store.key(for: Self.subject(1)) == nil)
            let key = try store.createKey(for: Self.subject(1), random: random)
            #expect(key.count == 32)
            #expect(try store.createKey(for: Self.subject(1), random: random) == key)
            #expect(try store.key(for: Self.subject(1)) == key)
            let dayKey = try store.createKey(for: Self.day, random: random)
            #expect(dayKey != key)
            #expect(try store.state(of: Self.subject(1)) == .live)

            try store.erase(subject: Self.subject(1))
            #expect(try store.state(of: Self.subject(1)) == .erased)
            #expect(try store.key(for: Self.subject(1)) == nil)
            #expect(Self.code { try store.createKey(for: Self.subject(1), random: random) } == .subjectErased)
            try store.erase(subject: Self.subject(1))  // twice: nothing changes
            try store.erase(subject: Self.subject(2))  // never keyed: recorded as erased
            #expect(try store.state(of: Self.subject(2)) == .erased)

            var info = stat()
            #expect(stat(FileSystem.join(dir, "events.keys"), &info) == 0 && info.st_mode & 0o777 == 0o600)
            let reopened = try KeyStore(directory: dir)
            #expect(try reopened.state(of: Self.subject(1)) == .erased)
            #expect(try reopened.state(of: Self.subject(2)) == .erased)
            #expect(try reopened.key(for: Self.day) == dayKey)
            let reader = try KeyStore(directory: dir, writable: false)
            #expect(try reader.key(for: Self.day) == dayKey)
            #expect(Self.code { try reader.erase(subject: Self.day) } == .readOnly)
            #expect(Self.code { try KeyStore(path: FileSystem.join(dir, "other.keys"), writable: false) } == .io)
        }
    }

    @Test("10,000 subjects: the table grows into a new file, every key is found again, distinct, after a reopen too")
    func growth() throws {
        try withTempDirectory { dir in
            let random = SeededRandom(seed: 10_000)
            let store = try KeyStore(directory: dir)
            let path = FileSystem.join(dir, "events.keys")
            let firstSize = try readBytes(path).count
            #expect(firstSize == 128 + 1024 * 128)
            // Opened before the growth: it must follow the replaced file.
            let early = try KeyStore(directory: dir)
            var keys: [[UInt8]] = []
            for n in 0..<10_000 { keys.append(try store.createKey(for: Self.subject(n), random: random)) }
            #expect(Set(keys).count == 10_000)
            let bytes = try readBytes(path)
            #expect(bytes.count > firstSize && (bytes.count - 128) % 128 == 0)
            let capacity = (bytes.count - 128) / 128
            #expect(capacity & (capacity - 1) == 0 && capacity >= 16_384)
            for n in stride(from: 0, to: 10_000, by: 10) { try store.erase(subject: Self.subject(n)) }
            #expect(try early.key(for: Self.subject(9_999)) == keys[9_999])
            #expect(try early.state(of: Self.subject(40)) == .erased)
            let extra = try early.createKey(for: Self.day, random: random)
            let reopened = try KeyStore(directory: dir)
            #expect(try reopened.key(for: Self.day) == extra)
            for n in 0..<10_000 {
                #expect(try reopened.key(for: Self.subject(n)) == (n % 10 == 0 ? nil : keys[n]), "subject \(n)")
            }
            #expect(!(try FileManager.default.contentsOfDirectory(atPath: dir)).contains { $0.contains(".tmp-") })
        }
    }

    @Test("after an erasure the key's bytes are nowhere in the file, while other keys still are")
    func erasedKeysAreGoneFromTheBytes() throws {
        try withTempDirectory { dir in
            let random = SeededRandom(seed: 17)
            let store = try KeyStore(directory: dir)
            let keys = try (0..<50).map { try store.createKey(for: Self.subject($0), random: random) }
            let path = FileSystem.join(dir, "events.keys")
            let before = try readBytes(path)
            for key in keys { #expect(Self.find(key, in: before) != nil) }
            for n in 0..<25 { try store.erase(subject: Self.subject(n)) }
            let after = try readBytes(path)
            for (n, key) in keys.enumerated() {
                #expect((Self.find(key, in: after) == nil) == (n < 25), "subject \(n)")
                #expect(Self.find(Array(key.prefix(8)), in: after) == nil || n >= 25, "subject \(n): part of its key is left")
            }
        }
    }

    @Test("a torn slot (its bytes cut mid-slot) is reported, never read as a key; an erasure overwrites it; a cut file is refused")
    func tornSlots() throws {
        try withTempDirectory { dir in
            let random = SeededRandom(seed: 3)
            let store = try KeyStore(directory: dir)
            let key = try store.createKey(for: Self.subject(7), random: random)
            _ = try store.createKey(for: Self.subject(8), random: random)
            let path = FileSystem.join(dir, "events.keys")
            var bytes = try readBytes(path)
            let slot = (Self.find(key, in: bytes)! - 72)
            #expect((slot - 128) % 128 == 0)
            // A write that reached the first 100 bytes of the slot only: the rest is the old bytes (zeros).
            var torn = bytes
            for i in (slot + 100)..<(slot + 128) { torn[i] = 0 }
            try writeBytes(torn, to: path)
            let reader = try KeyStore(directory: dir)
            #expect(Self.code { try reader.key(for: Self.subject(7)) } == .tornSlot)
            #expect(Self.code { try reader.state(of: Self.subject(7)) } == .tornSlot)
            #expect(Self.code { try reader.createKey(for: Self.subject(7), random: random) } == .tornSlot)
            // One flipped bit in the key is torn too.
            bytes[slot + 80] ^= 0x04
            try writeBytes(bytes, to: path)
            #expect(Self.code { try KeyStore(directory: dir).key(for: Self.subject(7)) } == .tornSlot)
            // Its subject's bytes are whole: erasing it writes a whole erased slot.
            try reader.erase(subject: Self.subject(7))
            #expect(try reader.state(of: Self.subject(7)) == .erased)
            #expect(Self.find(Array(key[16...]), in: try readBytes(path)) == nil)
            // A file cut inside a slot.
            let whole = try readBytes(path)
            try writeBytes(Array(whole.prefix(128 + 5 * 128 + 60)), to: path)
            #expect(Self.code { try KeyStore(directory: dir) } == .truncated)
            #expect(Self.code { try KeyStore(directory: dir, writable: false) } == .truncated)
            // A damaged header.
            var header = whole
            header[16] ^= 1
            try writeBytes(header, to: path)
            #expect(Self.code { try KeyStore(directory: dir) } == .damaged)
        }
    }

    @Test("a creation cut short (zeros, no header) is made again; slots without a header are damage")
    func creationCutShort() throws {
        try withTempDirectory { dir in
            let path = FileSystem.join(dir, "events.keys")
            try writeBytes([UInt8](repeating: 0, count: 4096), to: path)
            let store = try KeyStore(directory: dir)
            #expect(try store.state(of: Self.day) == .absent)
            #expect(try readBytes(path).count == 128 + 1024 * 128)
            var bytes = [UInt8](repeating: 0, count: 4096)
            bytes[300] = 1
            try writeBytes(bytes, to: path)
            #expect(Self.code { try KeyStore(directory: dir) } == .damaged)
        }
    }

    @Test("a symbolic link or a hard link at events.keys is refused, and nothing is written through it")
    func linksRefused() throws {
        try withTempDirectory { dir in
            let elsewhere = FileSystem.join(dir, "elsewhere")
            try FileSystem.makeDirectories(elsewhere)
            let target = FileSystem.join(elsewhere, "events.keys")
            _ = try KeyStore(directory: elsewhere)
            let original = try readBytes(target)
            let data = FileSystem.join(dir, "data")
            try FileSystem.makeDirectories(data)
            #expect(symlink(target, FileSystem.join(data, "events.keys")) == 0)
            do {
                _ = try KeyStore(directory: data)
                Issue.record("a symbolic link was opened")
            } catch let error as KeyStoreError {
                #expect(error.code == .io && error.cause?.isNotRegular == true, "\(error)")
            }
            #expect(Self.code { try KeyStore(directory: data, writable: false) } == .io)
            #expect(unlink(FileSystem.join(data, "events.keys")) == 0)
            #expect(link(target, FileSystem.join(data, "events.keys")) == 0)
            do {
                _ = try KeyStore(directory: data)
                Issue.record("a hard link was opened for writing")
            } catch let error as KeyStoreError {
                #expect(error.code == .io && error.cause?.isNotRegular == true, "\(error)")
            }
            #expect(try readBytes(target) == original)
        }
    }

    /// What the writers of `concurrentWriters` made, gathered across threads.
    final class Made: @unchecked Sendable {
        private let lock = NSLock()
        private var keys: [Int: [UInt8]] = [:]
        private(set) var errors: [String] = []
        func record(_ n: Int, _ key: [UInt8]) { lock.withLock { keys[n] = key } }
        func fail(_ error: any Error) { lock.withLock { errors.append("\(error)") } }
        var all: [Int: [UInt8]] { lock.withLock { keys } }
    }

    @Test("two writers with their own descriptors make keys at once through the table's growth: none is lost")
    func concurrentWriters() throws {
        try withTempDirectory { dir in
            let made = Made()
            DispatchQueue.concurrentPerform(iterations: 2) { writer in
                do {
                    let store = try KeyStore(directory: dir)
                    let random = SeededRandom(seed: UInt64(writer + 1))
                    for n in stride(from: writer, to: 3_000, by: 2) { made.record(n, try store.createKey(for: Self.subject(n), random: random)) }
                    // The other writer's subjects too: one key each, whoever made it first.
                    for n in stride(from: 1 - writer, to: 3_000, by: 50) { _ = try store.createKey(for: Self.subject(n), random: random) }
                } catch { made.fail(error) }
            }
            #expect(made.errors.isEmpty, "\(made.errors)")
            let reopened = try KeyStore(directory: dir)
            let keys = made.all
            #expect(keys.count == 3_000)
            for n in 0..<3_000 { #expect(try reopened.key(for: Self.subject(n)) == keys[n], "subject \(n)") }
            #expect(try readBytes(FileSystem.join(dir, "events.keys")).count > 128 + 1024 * 128)
        }
    }

    /// Writers that open a key store no one has made yet, all at once: one initialises it, and the
    /// others, which may look while it is half-way (its size set, its header not yet written), wait
    /// for it instead of calling it damaged ("has slots but no header").
    @Test func writersOpeningANewKeyStoreAtOnceAllSucceed() throws {
        let made = Made()
        for round in 0..<150 {
            try withTempDirectory { dir in
                DispatchQueue.concurrentPerform(iterations: 4) { writer in
                    do {
                        let store = try KeyStore(directory: dir)
                        made.record(round * 4 + writer, try store.createKey(for: Self.subject(writer), random: SeededRandom(seed: UInt64(writer + 1))))
                    } catch { made.fail(error) }
                }
            }
        }
        #expect(made.errors.isEmpty, "\(made.errors.prefix(3))")
        #expect(made.all.count == 600)
    }
}
