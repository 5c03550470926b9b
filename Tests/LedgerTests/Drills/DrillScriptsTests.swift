import Testing

/// The fast part of the long drills in `Tests/Drills/`: the same scripts, small numbers.
struct DrillScriptsTests {
    private func drill(_ script: String, _ arguments: [String]) throws -> ProcessResult {
        try run("/bin/bash", [Paths.repo("Tests/Drills/\(script)"), Paths.ledger] + arguments)
    }

    @Test func concurrencyDrillSmallRun() throws {
        let result = try drill("concurrency.sh", ["4", "12"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("events lost: 0"))
    }

    @Test func crashDrillSmallRun() throws {
        let result = try drill("crash-kills.sh", ["24", "4", "8"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("0 failed checks"))
    }

    @Test func crashDrillWithSignInsSmallRun() throws {
        let result = try drill("crash-kills.sh", ["24", "4", "8", "2"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("0 failed checks"), "\(result)")
        #expect(result.stdout.contains("2 login loops"), "\(result)")
    }

    @Test func secretsDrillOutputs() throws {
        // Timing is not asserted in `swift test` (it is measured by the long run); a wide 100% bound
        // keeps this from flaking on a loaded machine while still checking output and exit parity.
        let result = try drill("secrets.sh", ["3"])
        #expect(result.stdout.contains("canary in no file or output"), "\(result)")
    }
}
