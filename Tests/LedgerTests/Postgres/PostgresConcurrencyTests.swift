import Foundation
import Glibc
import LedgerKit
import Testing

// MARK: - PostgresConcurrencyTests

/// Many `ledger register` processes on one PostgreSQL store, and a server killed mid-run.
struct PostgresConcurrencyTests {
    /// 8 processes at once, half racing on the same emails: checked as the file backend's concurrency drill.
    @Test func eightRegisterProcessesShareOneStore() throws {
        try withPostgresLedger { pg in
            try withTempDirectory("ledger-pg-drill") { folder in
                let loops = try RegistrationLoops.start(folder: folder, url: pg.url.text, data: pg.dir.path, procs: 8, per: 8, tag: "c")
                try loops.wait()
                let acknowledged = try loops.acknowledged()
                let errors = try loops.errors()
                // 4 loops × 8 own emails, plus exactly one winner for each of the 8 shared emails.
                #expect(acknowledged.count == 4 * 8 + 8, "\(errors.prefix(5))")
                #expect(acknowledged.filter { $0.email.hasPrefix("shared-") }.count == 8)
                // An export with its keys, verified on its own; the emails read from its opened lines.
                try checkRegistrationLog(try exportedCopy(in: folder) { try pg.run($0) }, acknowledged: acknowledged)
                // The losers of each race were refused (exit 1, email-already-in-use), never an error.
                #expect(errors.isEmpty, "\(errors.prefix(5))")
                let audit = try pg.run(["audit"])
                #expect(audit.status == 0, "\(audit)")
            }
        }
    }

    /// The server stops at once (`pg_ctl stop -m immediate`: no checkpoint, like a power cut) while
    /// 4 processes register, then restarts: every acknowledged registration is in the store, the chain
    /// verifies, and the registrations that failed meanwhile did so with one-line errors (exit 3).
    @Test func serverKilledMidRunLosesNothingAcknowledged() throws {
        let server = try PostgresServer.startCluster()
        let cluster = try #require(server.cluster)
        defer { try? cluster.stopImmediately() }
        try server.withDatabase { url in
            try withLedgerDir { dir in
                try withTempDirectory("ledger-pg-crash") { folder in
                    #expect(try dir.run(["init", "--store", url.text]).status == 0)
                    let loops = try RegistrationLoops.start(folder: folder, url: url.text, data: dir.path, procs: 4, per: 30, tag: "k")
                    // Let some registrations be acknowledged, then cut the server off mid-run.
                    let deadline = Date().addingTimeInterval(60)
                    while (try loops.acknowledged().count) < 12 && Date() < deadline { usleep(50_000) }
                    let before = try loops.acknowledged()
                    try cluster.stopImmediately()
                    usleep(1_500_000)
                    try cluster.start()
                    try loops.wait()
                    let acknowledged = try loops.acknowledged()
                    #expect(acknowledged.count >= before.count)
                    let copy = try exportedCopy(in: folder) { try dir.run($0 + ["--store", url.text]) }
                    try checkRegistrationLog(copy, acknowledged: acknowledged, exactAccounts: false)
                    // Failures while the server was down: clear one-line errors, never a trap.
                    let errors = try loops.errors()
                    #expect(!errors.isEmpty, "the server stop happened after every registration had finished")
                    let unlike = errors.filter { !$0.hasPrefix("ledger: ") || $0.contains("Fatal error") || $0.contains("Stack dump") }
                    #expect(unlike.isEmpty, "\(unlike.prefix(5)) among \(errors.count) error lines")
                    // Registrations cut off half way are finished by recover; afterwards nothing is left over.
                    let recovered = try dir.run(["recover", "--json", "--store", url.text])
                    #expect(recovered.status == 0, "\(recovered)")
                    let audit = try dir.run(["audit", "--json", "--store", url.text])
                    #expect(audit.status == 0, "\(audit)")
                }
            }
        }
    }
}
