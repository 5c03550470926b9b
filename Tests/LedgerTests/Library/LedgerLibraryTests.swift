import Foundation
import LedgerDomain
import LedgerKit
import Synchronization
import Testing

// LedgerKit as a library: one open `Ledger` shared by many tasks keeps the rules (one live account
// per email, the lockout), loses no acknowledged registration, and closes without losing any. One
// body per test, run on the file store and on PostgreSQL (a database of its own on the throwaway
// cluster).

@Suite struct LedgerLibraryTests {
    private let password = "correct horse battery"
    /// Registrations per task in the race (64 tasks).
    private static let perTask = 100

    /// 64 tasks × 100 registrations through one ledger, half of them racing for 100 shared emails:
    /// every registration of a task's own email completes, one winner per shared email, every
    /// acknowledged registration's account in the log, seqs 1...N, and a log `ledger verify` accepts.
    @Test(arguments: LibraryStore.allCases)
    func sixtyFourTasksRegisterWithOneWinnerPerEmail(_ store: LibraryStore) async throws {
        let place = try store.place("library-race")
        defer { place.remove() }
        let opened = try await Ledger.open(place.configuration)
        let password = password, perTask = Self.perTask
        let outcomes = await withTaskGroup(of: [(String, String?)].self) { group in
            for task in 0..<64 {
                group.addTask {
                    var mine: [(String, String?)] = []
                    for n in 0..<perTask {
                        let email = task % 2 == 0 ? "shared-\((task / 2 * perTask + n) % 100)@example.com" : "own-\(task)-\(n)@example.com"
                        let uid = try? await opened.register(email: email, password: password, userName: "User \(task) \(n)").uid
                        mine.append((email, uid))
                    }
                    return mine
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        await opened.close()
        let won = outcomes.filter { $0.1 != nil }
        #expect(outcomes.filter { $0.0.hasPrefix("own-") }.allSatisfy { $0.1 != nil }, "every registration of its own email completes")
        let sharedWins = Dictionary(grouping: won.filter { $0.0.hasPrefix("shared-") }, by: \.0)
        #expect(sharedWins.count == 100 && sharedWins.values.allSatisfy { $0.count == 1 }, "one winner per shared email")
        let events = try place.events()
        #expect(events.map(\.seq) == Array(1...events.count))
        #expect(Set(won.compactMap(\.1)).isSubset(of: LibraryPlace.createdUIDs(in: events)), "every acknowledged registration is in the log")
        let verified = try place.verify()
        #expect(verified.status == 0, "\(verified)")
    }

    /// 64 tasks sign in with a wrong password at once: five password checks, every other attempt
    /// refused as locked, and the right password refused after them.
    @Test(arguments: LibraryStore.allCases)
    func theLockoutHoldsUnderSixtyFourConcurrentWrongPasswords(_ store: LibraryStore) async throws {
        let place = try store.place("library-lockout")
        defer { place.remove() }
        let opened = try await Ledger.open(place.configuration)
        _ = try await opened.register(email: "target@example.com", password: password, userName: "Target")
        let refused = await withTaskGroup(of: LedgerError.Code?.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    do throws(LedgerError) { _ = try await opened.signIn(email: "target@example.com", password: "not the password"); return nil } catch { return error.code }
                }
            }
            return await group.reduce(into: [LedgerError.Code?]()) { $0.append($1) }
        }
        #expect(refused.allSatisfy { $0 == .signInRefused })
        await #expect(throws: LedgerError.self) { _ = try await opened.signIn(email: "target@example.com", password: self.password) }
        await opened.close()
        let reasons = try place.events().compactMap { event -> String? in
            if case .signInFailed(let failed) = event.event, failed.email == "target@example.com" { failed.reason.rawValue } else { nil }
        }
        #expect(reasons.filter { $0 == "wrong-password" }.count == 5)
        #expect(reasons.filter { $0 == "locked" }.count == 60)
    }

    /// `close()` while tasks register (once 32 registrations were acknowledged): every call that
    /// returned a registration has it in the log, some calls were refused with `closed`, and calls
    /// made after the close are refused with `closed`.
    @Test(arguments: LibraryStore.allCases)
    func closeLosesNoAcknowledgedRegistrationAndRefusesNewCalls(_ store: LibraryStore) async throws {
        let place = try store.place("library-close")
        defer { place.remove() }
        let opened = try await Ledger.open(place.configuration)
        let password = password
        final class Tally: Sendable { let value = Mutex(0) }
        let count = Tally(), refused = Tally()
        let acknowledged = await withTaskGroup(of: [String].self) { group in
            for task in 0..<16 {
                group.addTask {
                    var mine: [String] = []
                    for n in 0..<20 {
                        do throws(LedgerError) {
                            mine.append(try await opened.register(email: "closing-\(task)-\(n)@example.com", password: password, userName: "C").uid)
                            count.value.withLock { $0 += 1 }
                        } catch {
                            if error.code == .closed { refused.value.withLock { $0 += 1 }; break }
                        }
                    }
                    return mine
                }
            }
            group.addTask {
                while count.value.withLock({ $0 }) < 32 { try? await Task.sleep(for: .milliseconds(5)) }
                await opened.close()
                return []
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        await #expect(throws: LedgerError(.closed, "the ledger is closed")) { _ = try await opened.head() }
        #expect(acknowledged.count >= 32 && refused.value.withLock { $0 } > 0, "the close came while tasks registered")
        #expect(Set(acknowledged).isSubset(of: try place.createdUIDs()))
        let verified = try place.verify()
        #expect(verified.status == 0, "\(verified)")
    }

    /// A PostgreSQL database without the ledger's tables is refused at `open`, with a message that
    /// names `ledger init`; nothing is created in it.
    @Test func openingADatabaseWithoutTablesNamesLedgerInit() async throws {
        let server = try PostgresServer.get()
        let url = try server.createDatabase()
        defer { server.dropDatabase(url) }
        let folder = try TemporaryFolder("library-no-tables")
        defer { folder.remove() }
        do {
            _ = try await Ledger.open(Ledger.Configuration(directory: folder.path, store: .postgres(url)))
            Issue.record("a database without tables was opened")
        } catch {
            #expect(error.code == .storeError && error.message.contains("ledger init"), "\(error)")
        }
        #expect(try PostgresConnection(url).execute("SELECT 1 FROM pg_tables WHERE tablename LIKE 'ledger_%'").count == 0)
    }
}
