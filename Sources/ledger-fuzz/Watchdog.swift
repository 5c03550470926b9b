import Glibc

// MARK: - Watchdog

// State read by the signal handlers. Written only by the fuzzing thread between inputs; the handlers
// run on that same thread, so they see a consistent value. Nothing here allocates once installed.
nonisolated(unsafe) private var watchedIndex = 0
nonisolated(unsafe) private var watchedTarget = 0
nonisolated(unsafe) private var replayPrefix = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
nonisolated(unsafe) private var scratch = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
nonisolated(unsafe) private var savedActions = UnsafeMutablePointer<sigaction>(bitPattern: 0)

/// Turns a hang into a report naming the input (and exit 70), and a crash into a report naming the input
/// before the runtime's own crash handling (backtrace, then death by the signal) runs.
enum Watchdog {
    /// Exit status after a hang.
    static let hangStatus: Int32 = 70
    /// The signals of a crash: traps (`fatalError`, overflow, bounds), bad memory, aborts.
    static let crashSignals = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]
    /// Target names by code.
    static let targets = ["decoder", "image", "special"]

    /// Installs the handlers. `replay` is the command that replays one input, without `--start`.
    static func install(replay: String) {
        let prefix = Array(replay.utf8)
        replayPrefix = .allocate(capacity: prefix.count)
        _ = replayPrefix.initialize(from: prefix)
        scratch = .allocate(capacity: 64)
        savedActions = .allocate(capacity: 65)
        savedActions!.initialize(repeating: sigaction(), count: 65)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            Watchdog.emit("HANG")
            _exit(Watchdog.hangStatus)
        }
        sigaction(SIGALRM, &action, nil)
        for signal in crashSignals {
            var crash = sigaction()
            crash.__sigaction_handler.sa_handler = { signal in
                Watchdog.emit("CRASH", signal: signal)
                // Put back what was there (the Swift runtime's backtracer, or the default) and return:
                // the faulting instruction runs again and the original handling takes over.
                sigaction(signal, savedActions! + Int(signal), nil)
                if signal == SIGABRT { raise(signal) }
            }
            sigaction(signal, &crash, savedActions! + Int(signal))
        }
    }

    /// Marks the start of input `index` of `target` (0 decoder, 1 image, 2 special) with `seconds` to finish.
    @inline(__always)
    static func begin(index: Int, target: Int, seconds: UInt32) {
        watchedIndex = index
        watchedTarget = target
        alarm(seconds)
    }

    /// Marks the end of the inputs.
    static func stop() { alarm(0) }

    /// Writes `ledger-fuzz: <what> [(signal N)]: input #N (target); replay: <command> --start N --iterations 1`.
    /// Signal-safe: only `write` on preallocated memory.
    private static func emit(_ what: StaticString, signal: Int32 = -1) {
        put("\nledger-fuzz: ")
        put(what)
        if signal >= 0 { put(" (signal "); putNumber(Int(signal)); put(")") }
        let target = watchedTarget
        if target == 2 {
            put(": special input #"); putNumber(watchedIndex)
            put(" (a fixed hostile input, run before the random ones)\n")
            return
        }
        put(": input #"); putNumber(watchedIndex)
        put(target == 0 ? " (decoder)" : " (image)")
        put("; replay: ")
        put(UnsafeBufferPointer(replayPrefix))
        put(" --start "); putNumber(watchedIndex); put(" --iterations 1\n")
    }

    private static func put(_ text: StaticString) {
        put(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = write(2, base, bytes.count)
    }

    private static func putNumber(_ value: Int) {
        guard let base = scratch.baseAddress else { return }
        var n = value.magnitude, end = scratch.count
        repeat {
            end -= 1
            base[end] = UInt8(ascii: "0") + UInt8(n % 10)
            n /= 10
        } while n > 0 && end > 1
        if value < 0 { end -= 1; base[end] = UInt8(ascii: "-") }
        put(UnsafeBufferPointer(rebasing: scratch[end...]))
    }
}
