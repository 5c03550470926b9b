import LedgerKit
import Testing

// The stores' settings come from the edge as values: parsed by the rules of `LedgerEnvironment`,
// defaults when a variable is unset or empty, and nothing below the edge reads the environment.

@Suite struct StoreTuningTests {
    @Test func unsetOrEmptyVariablesGiveTheDefaults() throws {
        #expect(try StoreTuning.fromEnvironment([:]) == StoreTuning())
        let empty = ["LEDGER_CHECKPOINT_EVERY": "", "LEDGER_STORE_INDEX": "", "LEDGER_IO_FAULTS": ""]
        #expect(try StoreTuning.fromEnvironment(empty) == StoreTuning())
        #expect(StoreTuning().checkpointInterval == 10_000 && StoreTuning().writersIndex && StoreTuning().ioFaults.isEmpty)
    }

    @Test func eachVariableSetsItsSetting() throws {
        let tuning = try StoreTuning.fromEnvironment(["LEDGER_CHECKPOINT_EVERY": "0", "LEDGER_STORE_INDEX": "0",
                                                      "LEDGER_IO_FAULTS": "fsync=3,rename=1"])
        #expect(tuning.checkpointInterval == 0)
        #expect(!tuning.writersIndex)
        #expect(tuning.ioFaults == [.fsync: 3, .rename: 1])
    }

    @Test(arguments: [("LEDGER_CHECKPOINT_EVERY", "-1"), ("LEDGER_STORE_INDEX", "yes"), ("LEDGER_IO_FAULTS", "fsync=0")])
    func aBadValueNamesItsVariable(name: String, value: String) {
        #expect(throws: EnvironmentError.self) { try StoreTuning.fromEnvironment([name: value]) }
        do {
            _ = try StoreTuning.fromEnvironment([name: value])
        } catch {
            #expect("\(error)".contains(name))
        }
    }

    /// The library reads no environment: what is in force is what an edge installed (nothing, in
    /// this test process, whose environment the test runner may set).
    @Test func theSettingsInForceAreTheInstalledOnes() {
        #expect(StoreTuning.current == StoreTuning())
    }
}
