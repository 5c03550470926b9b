import Glibc
import LedgerDomain

// MARK: - KeyRing.ThreadCache

extension KeyRing {
    /// The last key a thread found in a ring (which ring, at which generation, for which subject).
    /// Each thread has its own, made on first use and released when the thread ends; only that
    /// thread ever touches it.
    final class ThreadCache {
        /// The ring (kept alive by the cache: rings live as long as their process anyway).
        var ring: KeyRing?
        var generation: UInt64 = 0
        /// The subject: an account's uid, or an address subject.
        var account: UUIDBits?
        var address: SubjectID?
        var key: LiveKey?

        /// True when the subject is the address subject spelled `bytes`.
        func holdsAddress(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            guard var text = address?.text else { return false }
            return text.withUTF8 { $0.count == bytes.count && memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
        }

        private static let slot: pthread_key_t = {
            var slot = pthread_key_t()
            guard pthread_key_create(&slot, { pointer in
                if let pointer { Unmanaged<ThreadCache>.fromOpaque(pointer).release() }
            }) == 0 else { preconditionFailure("pthread_key_create failed") }  // only when out of thread keys
            return slot
        }()

        /// This thread's cache.
        static var current: ThreadCache {
            if let pointer = pthread_getspecific(slot) { return Unmanaged<ThreadCache>.fromOpaque(pointer).takeUnretainedValue() }
            let cache = ThreadCache()
            pthread_setspecific(slot, Unmanaged.passRetained(cache).toOpaque())
            return cache
        }
    }
}
