import LedgerDomain
import LedgerKit

// MARK: - RecoverCommand

/// `ledger recover`: finishes registrations whose process died, removes orphan images, repairs a torn tail.
enum RecoverCommand {
    /// The definition.
    static let spec = CommandSpec(name: "recover", summary: "finish interrupted registrations, remove orphan images, repair a torn tail",
                                  options: [.flag("json", "print what was done as JSON")],
                                  details: "Registrations whose process is still running are left alone. Running it twice changes nothing the second time.")

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let report = try Services.coordinator(invocation, context).recover()
        if invocation.flag("json") {
            let list = { (items: [String]) -> JSONValue in .array(items.map(JSONValue.string)) }
            context.printJSON(.object(JSONObject([
                ("repairedTornTail", .bool(report.repairedTornTail)), ("interrupted", list(report.interrupted)),
                ("compensated", list(report.compensated)), ("stillPending", list(report.stillPending)),
                ("skippedRunning", list(report.skippedRunning)), ("removedImages", list(report.removedImages)),
                ("removedTemporaryFiles", list(report.removedTemporaryFiles)),
            ])))
        } else if report.changedNothing && report.stillPending.isEmpty {
            context.print("nothing to recover\(report.skippedRunning.isEmpty ? "" : " (\(report.skippedRunning.count) registrations still running)")")
        } else {
            if report.repairedTornTail { context.print("repaired a torn last line") }
            for id in report.interrupted { context.print("interrupted: \(id)") }
            for id in report.compensated { context.print("compensated: \(id)") }
            for id in report.stillPending { context.print("still compensation-pending: \(id)") }
            for name in report.removedImages { context.print("removed orphan image file: \(name)") }
            for name in report.removedTemporaryFiles { context.print("removed a temporary file left by a crash: \(name)") }
        }
        return report.stillPending.isEmpty ? 0 : CLIError.Status.failure.rawValue
    }
}
