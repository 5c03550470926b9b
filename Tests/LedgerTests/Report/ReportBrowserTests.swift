import Foundation
import Glibc
import Testing

/// The demo report opened in a real browser (headless Chromium, Debian's `chromium` package):
/// a screenshot that is not blank, and a DOM with the charts and the failed-registrations table.
/// Without Chromium these tests fail (they never skip into green): `.ci/run` installs it.
struct ReportBrowserTests {
    /// `chromium` (or `chromium-browser`) on `PATH`; when missing, installed once from Debian's
    /// packages (these machines run as root with apt), so `swift test` needs no other step. nil
    /// when it cannot be had, and then the tests fail saying so.
    static let chromium: String? = {
        func find() -> String? {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
            for name in ["chromium", "chromium-browser"] {
                for folder in path.split(separator: ":") where access("\(folder)/\(name)", X_OK) == 0 { return "\(folder)/\(name)" }
            }
            return nil
        }
        if let found = find() { return found }
        guard getuid() == 0 else { return nil }
        _ = try? run("/bin/sh", ["-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium"])
        return find()
    }()

    static let missing = "chromium is not installed: run `apt-get install -y chromium` (Debian's package; `.ci/run` installs it when missing)"

    /// Decodes a PNG's header and inflates its IDAT data (zlib, no PIL): size, distinct byte values, and
    /// the share (per mille) of bytes that are neither 0x00 nor 0xFF. A page of one flat color, whatever
    /// the row filters, inflates to almost nothing but 0x00 and 0xFF bytes and a handful of values.
    static let pngCheck = """
    import sys, zlib, struct, json
    data = open(sys.argv[1], 'rb').read()
    assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n', 'not a PNG'
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR': ihdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT': idat.append(body)
        pos += 12 + length
    raw = zlib.decompress(b''.join(idat))
    other = len(raw) - raw.count(0) - raw.count(255)
    print(json.dumps({"width": ihdr[0], "height": ihdr[1], "distinct": len(set(raw)), "otherPerMille": other * 1000 // max(1, len(raw))}))
    """

    /// What `pngCheck` says about a PNG.
    struct PNGSummary { let width: Int, height: Int, distinct: Int, otherPerMille: Int
        var looksBlank: Bool { distinct < 32 || otherPerMille < 5 }
    }

    static func summarize(_ png: String, in dir: String) throws -> PNGSummary {
        let script = dir + "/pngcheck.py"
        try writeBytes(Array(pngCheck.utf8), to: script)
        let result = try run(Paths.python3, [script, png])
        #expect(result.status == 0, "\(result)")
        let object = try parseObject(result.stdout)
        return PNGSummary(width: object["width"] as? Int ?? 0, height: object["height"] as? Int ?? 0,
                          distinct: object["distinct"] as? Int ?? 0, otherPerMille: object["otherPerMille"] as? Int ?? 0)
    }

    /// Runs headless Chromium with its own profile folder (so parallel runs do not share one).
    static func chromium(_ binary: String, _ arguments: [String], in dir: String) throws -> ProcessResult {
        try run(binary, ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(dir)/profile-\(UUID().uuidString)"] + arguments,
                env: ["HOME": dir], cwd: dir)
    }

    /// Writes the demo report into `dir` and returns its path.
    static func demoReport(in dir: String) throws -> String {
        let out = dir + "/report.html"
        let result = try ledger("report", "--log", Paths.demoLog, "--html", out)
        #expect(result.status == 0, "\(result)")
        return out
    }

    @Test func theScreenshotIsNotBlank() throws {
        guard let binary = Self.chromium else { Issue.record(Comment(rawValue: Self.missing)); return }
        try withTempDirectory("ledger-browser") { dir in
            let report = try Self.demoReport(in: dir)
            let png = dir + "/report.png"
            let shot = try Self.chromium(binary, ["--screenshot=\(png)", "--window-size=1200,2200", "file://\(report)"], in: dir)
            #expect(shot.status == 0, "\(shot)")
            #expect(FileManager.default.fileExists(atPath: png), "\(shot)")
            let summary = try Self.summarize(png, in: dir)
            #expect(summary.width == 1200 && summary.height == 2200, "\(summary)")
            #expect(!summary.looksBlank, "the screenshot looks blank: \(summary)")

            // The check itself: an empty page's screenshot does look blank.
            let empty = dir + "/empty.html"
            try writeBytes(Array("<!DOCTYPE html><html><body></body></html>".utf8), to: empty)
            let blankPNG = dir + "/blank.png"
            let blank = try Self.chromium(binary, ["--screenshot=\(blankPNG)", "--window-size=1200,2200", "file://\(empty)"], in: dir)
            #expect(blank.status == 0, "\(blank)")
            #expect(try Self.summarize(blankPNG, in: dir).looksBlank)

            // LEDGER_UPDATE_REPORT_PNG=1 keeps this screenshot as Docs/report.png (the README shows it).
            if ProcessInfo.processInfo.environment["LEDGER_UPDATE_REPORT_PNG"] == "1" {
                try writeBytes(try readBytes(png), to: Paths.repo("Docs/report.png"))
            }
        }
    }

    @Test func theDOMHasTheChartsAndTheTable() throws {
        guard let binary = Self.chromium else { Issue.record(Comment(rawValue: Self.missing)); return }
        try withTempDirectory("ledger-browser") { dir in
            let report = try Self.demoReport(in: dir)
            let dom = try Self.chromium(binary, ["--dump-dom", "file://\(report)"], in: dir)
            #expect(dom.status == 0, "\(dom)")
            let html = dom.stdout
            for key in ReportCLITests.sections { #expect(html.contains("data-section=\"\(key)\""), "\(key): \(dom)") }
            #expect(html.components(separatedBy: "<svg").count - 1 >= 3, "svg charts")
            #expect(html.components(separatedBy: "<rect").count - 1 >= 10, "bars")
            #expect(html.components(separatedBy: "<tr class=\"failed\" data-registration=").count - 1 == 3, "failed rows")
            #expect(html.contains(ReportCLITests.demoHash))
            #expect(!html.contains("<script"))
        }
    }

    @Test func theShippedScreenshotIsAPNGOfTheReport() throws {
        let png = Paths.repo("Docs/report.png")
        #expect(FileManager.default.fileExists(atPath: png), "Docs/report.png is missing")
        try withTempDirectory("ledger-browser") { dir in
            let summary = try Self.summarize(png, in: dir)
            #expect(!summary.looksBlank, "\(summary)")
        }
        #expect(try readText(Paths.repo("README.md")).contains("![audit report](Docs/report.png)"))
    }
}
