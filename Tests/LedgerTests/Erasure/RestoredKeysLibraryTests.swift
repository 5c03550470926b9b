import Foundation
import LedgerDomain
import LedgerKit
import Testing

// A key store restored from a backup taken before an erasure, read through the library: the first
// read that meets the erasure destroys the key again, as `ledger users` does (a start that finds an
// erasure event whose key still exists destroys it), and the erased person reads as erased.

@Suite struct RestoredKeysLibraryTests {
    private let password = "correct horse battery"

    @Test func aLibraryReadDestroysAKeyTheLogErased() async throws {
        let place = try LibraryStore.file.place("library-restored-keys")
        defer { place.remove() }
        let keys = place.folder.path + "/events.keys"
        var ledger = try await Ledger.open(place.configuration)
        let gone = try await ledger.register(email: "restored@example.com", password: password, userName: "Restored")
        _ = try await ledger.register(email: "stays@example.com", password: password, userName: "Stays")
        let backup = try Data(contentsOf: URL(fileURLWithPath: keys))
        _ = try await ledger.delete(account: gone.uid)
        await ledger.close()
        let subject = try #require(SubjectID("account-\(gone.uid)"))
        #expect(try KeyStore(path: keys, writable: false).state(of: subject) == .erased)
        try backup.write(to: URL(fileURLWithPath: keys))
        #expect(try KeyStore(path: keys, writable: false).state(of: subject) == .live, "the backup brought the key back")

        ledger = try await Ledger.open(place.configuration)
        let users = try await ledger.users()
        #expect(users.first { $0.uid == gone.uid }?.email == nil)
        #expect(users.first { $0.email == "stays@example.com" } != nil)
        #expect(try KeyStore(path: keys, writable: false).state(of: subject) == .erased, "the read destroyed it again")
        await ledger.close()
        #expect(try place.verify().status == 0)
    }
}
