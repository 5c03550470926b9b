// MARK: - HTMLReport

/// Renders a `ReportModel` as one self-contained HTML page: inline CSS, inline SVG charts, no
/// script, no font or image fetched from anywhere. Every value from the log is HTML-escaped.
public enum HTMLReport {
    /// Rendering choices.
    public struct Options: Equatable, Sendable {
        /// Show emails in full (default: masked, `a***@example.com`).
        public var showEmails = false
        /// The log's path or name, shown in the header (nil: not shown).
        public var source: String?

        /// The defaults.
        public init(showEmails: Bool = false, source: String? = nil) { self.showEmails = showEmails; self.source = source }
    }

    /// The page.
    public static func render(_ model: ReportModel, options: Options = Options()) -> String {
        var html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>ledger audit report</title>
        <style>\(css)</style>
        </head>
        <body>
        <main>
        <header data-section="header">
        <h1>Registration audit report</h1>
        <p class="meta">Generated \(escape(model.generatedAt.rfc3339)) · views as of \(escape(model.asOf.rfc3339))
        """
        if let since = model.since { html += " · registrations since \(escape(since.rfc3339))" }
        if let source = options.source { html += " · log <code>\(escape(source))</code>" }
        html += " · emails \(options.showEmails ? "shown" : "masked")</p>\n</header>\n"
        html += digest(model)
        html += funnel(model)
        html += section("failures", "Failures by step and reason",
                        model.failures.isEmpty ? "<p class=\"none\">No failed registration.</p>\n" : "",
                        barChart(model.failures, tone: "bad", label: "failures by step and reason"))
        html += section("compensations", "Compensations performed", "",
                        barChart(model.compensations, tone: "warn", label: "compensations by event type"))
        html += timeline(model)
        html += failedTable(model, options)
        html += anomalies(model, options)
        html += "<footer>ledger report · check it against the log later: <code>ledger verify --expect \(escape(model.head.anchor))</code> "
        html += "exits 0 only while the log still holds this head (seq \(model.head.seq), hash <code>\(escape(model.head.hash))</code>).</footer>\n"
        html += "</main>\n</body>\n</html>\n"
        return html
    }

    // MARK: - Sections

    private static func section(_ key: String, _ title: String, _ before: String, _ body: String) -> String {
        "<section data-section=\"\(key)\">\n<h2>\(escape(title))</h2>\n\(before)\(body)</section>\n"
    }

    private static func digest(_ model: ReportModel) -> String {
        let verify = model.verifyOK
            ? "<span class=\"badge good\" data-verify=\"passed\">verify passed</span>"
            : "<span class=\"badge bad\" data-verify=\"failed\">verify FAILED</span>"
            + (model.verifyProblem.map { " <span class=\"problem\">\(escape($0))</span>" } ?? "")
        return """
        <section data-section="digest">
        <h2>Ledger digest</h2>
        <dl class="digest">
        <dt>head seq</dt><dd data-head-seq="\(model.head.seq)">\(model.head.seq)</dd>
        <dt>head hash</dt><dd><code data-head-hash="\(escape(model.head.hash))">\(escape(model.head.hash))</code></dd>
        <dt>head</dt><dd><code data-head-anchor="\(escape(model.head.anchor))">\(escape(model.head.anchor))</code></dd>
        <dt>events</dt><dd>\(model.events)</dd>
        <dt>log</dt><dd>\(verify)</dd>
        </dl>
        </section>

        """
    }

    private static func funnel(_ model: ReportModel) -> String {
        let bars = model.funnel.map { ReportModel.Bar(label: $0.label, count: $0.count) }
        var rows = ""
        for step in model.funnel {
            let lost = step.key == "attempts" ? "–" : "\(step.lost) (\(percent(step.lostPerMille)))"
            var label = escape(step.label)
            if step.key == "image" { label += " <span class=\"sub\">(\(model.imagesStored) stored, \(model.imagesSkipped) skipped)</span>" }
            rows += "<tr data-step=\"\(escape(step.key))\"><td>\(label)</td><td class=\"num\">\(step.count)</td><td class=\"num\">\(lost)</td></tr>\n"
        }
        let table = """
        <table class="funnel">
        <thead><tr><th>Step</th><th class="num">Registrations</th><th class="num">Lost (share of step before)</th></tr></thead>
        <tbody>
        \(rows)</tbody>
        </table>

        """
        return section("funnel", "Sign-up funnel", "", barChart(bars, tone: "good", label: "sign-up funnel") + table)
    }

    private static func timeline(_ model: ReportModel) -> String {
        let hours = model.bucketMillis / ReportModel.hour
        let title = hours == 1 ? "Registrations per hour" : "Registrations per \(hours) hours"
        guard !model.timeline.isEmpty else {
            return section("timeline", title, "<p class=\"none\">No registration.</p>\n", emptyChart("registrations over time"))
        }
        let barWidth = max(8, min(48, 900 / model.timeline.count))
        let left = 40, top = 16, plotHeight = 180, bottom = 46
        let width = left + barWidth * model.timeline.count + 16
        let height = top + plotHeight + bottom
        let maxTotal = max(1, model.timeline.map { $0.completed + $0.failed }.max() ?? 1)
        var svg = "<svg class=\"chart\" role=\"img\" aria-label=\"registrations over time, completed and failed\" "
            + "width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">\n"
        svg += "<line class=\"axis\" x1=\"\(left)\" y1=\"\(top + plotHeight)\" x2=\"\(width - 8)\" y2=\"\(top + plotHeight)\"/>\n"
        svg += "<text class=\"tick\" x=\"\(left - 6)\" y=\"\(top + 4)\" text-anchor=\"end\">\(maxTotal)</text>\n"
        svg += "<text class=\"tick\" x=\"\(left - 6)\" y=\"\(top + plotHeight)\" text-anchor=\"end\">0</text>\n"
        let labelEvery = max(1, (model.timeline.count + 11) / 12)
        for (index, bucket) in model.timeline.enumerated() {
            let x = left + index * barWidth + 1
            let completedHeight = bucket.completed * plotHeight / maxTotal
            let failedHeight = bucket.failed * plotHeight / maxTotal
            let label = escape(hourLabel(bucket.start))
            if bucket.completed > 0 {
                svg += "<rect class=\"good\" data-series=\"completed\" x=\"\(x)\" y=\"\(top + plotHeight - completedHeight)\" "
                    + "width=\"\(barWidth - 2)\" height=\"\(completedHeight)\"><title>\(label): \(bucket.completed) completed</title></rect>\n"
            }
            if bucket.failed > 0 {
                svg += "<rect class=\"bad\" data-series=\"failed\" x=\"\(x)\" y=\"\(top + plotHeight - completedHeight - failedHeight)\" "
                    + "width=\"\(barWidth - 2)\" height=\"\(failedHeight)\"><title>\(label): \(bucket.failed) failed</title></rect>\n"
            }
            if index % labelEvery == 0 {
                svg += "<text class=\"tick\" x=\"\(x)\" y=\"\(top + plotHeight + 14)\">\(escape(clockLabel(bucket.start)))</text>\n"
                if index == 0 || clockLabel(bucket.start) == "00:00" {
                    svg += "<text class=\"tick\" x=\"\(x)\" y=\"\(top + plotHeight + 28)\">\(escape(dateLabel(bucket.start)))</text>\n"
                }
            }
        }
        svg += "</svg>\n"
        let totalCompleted = model.timeline.reduce(0) { $0 + $1.completed }
        let totalFailed = model.timeline.reduce(0) { $0 + $1.failed }
        let legend = "<p class=\"legend\"><span class=\"swatch good\"></span> completed (\(totalCompleted)) "
            + "<span class=\"swatch bad\"></span> not completed (\(totalFailed)) · by start time, UTC</p>\n"
        return section("timeline", title, "", svg + legend)
    }

    private static func failedTable(_ model: ReportModel, _ options: Options) -> String {
        guard !model.failedRows.isEmpty else {
            return section("failed-registrations", "Failed registrations", "<p class=\"none\">No failed registration.</p>\n", "")
        }
        var rows = ""
        for row in model.failedRows {
            let email = row.email.map { options.showEmails ? $0 : EmailMask.mask($0) } ?? "-"
            let compensations = row.compensations.isEmpty ? "-" : row.compensations.joined(separator: ", ")
            rows += "<tr class=\"\(row.anomalous ? "anomaly" : "failed")\" data-registration=\"\(escape(row.registration))\">"
            rows += "<td><code>\(escape(row.registration))</code></td>"
            rows += "<td>" + (row.startedAt.map { "<span class=\"nw\">\(escape(dateLabel($0)))</span> <span class=\"nw\">\(escape(timeLabel($0)))</span>" } ?? "-") + "</td>"
            rows += "<td class=\"email\">\(escape(email))</td>"
            rows += "<td class=\"outcome nowrap\">\(escape(row.outcome))\(row.anomalous ? " ⚠" : "")</td>"
            rows += "<td class=\"nowrap\">\(escape(row.step ?? "-"))</td>"
            rows += "<td>\(escape(row.reason ?? "-"))</td>"
            rows += "<td class=\"message\">\(escape(row.message.map { masked($0, options, email: row.email) } ?? "-"))</td>"
            rows += "<td>\(escape(compensations))</td></tr>\n"
        }
        let table = """
        <table class="failed">
        <thead><tr><th>Registration</th><th>Started (UTC)</th><th>Email</th><th>Outcome</th><th>Step</th><th>Reason</th><th>Message</th><th>Compensations</th></tr></thead>
        <tbody>
        \(rows)</tbody>
        </table>
        <p class="legend">\(model.failedRows.count) registration\(model.failedRows.count == 1 ? "" : "s") not completed; rows with an anomaly are highlighted.</p>

        """
        return section("failed-registrations", "Failed registrations", "", table)
    }

    private static func anomalies(_ model: ReportModel, _ options: Options) -> String {
        guard !model.anomalies.isEmpty else {
            return section("anomalies", "Anomalies", "<p class=\"good-text\" data-anomalies=\"0\">No anomalies.</p>\n", "")
        }
        var items = ""
        for anomaly in model.anomalies {
            items += "<li><strong>\(escape(anomaly.kind))</strong> \(escape(anomaly.key))=<code>\(escape(masked(anomaly.value, options)))</code>: "
                + "\(escape(masked(anomaly.message, options)))</li>\n"
        }
        return section("anomalies", "Anomalies", "",
                       "<ul class=\"anomalies\" data-anomalies=\"\(model.anomalies.count)\">\n\(items)</ul>\n")
    }

    /// Free text from the log as shown: emails in it (and every occurrence of its row's `email`)
    /// masked unless `showEmails`.
    private static func masked(_ text: String, _ options: Options, email: String? = nil) -> String {
        options.showEmails ? text : EmailMask.maskEmails(in: text, including: email)
    }

    // MARK: - Charts

    /// A horizontal bar chart.
    static func barChart(_ bars: [ReportModel.Bar], tone: String, label: String) -> String {
        guard !bars.isEmpty else { return emptyChart(label) }
        let labelWidth = 230, barSpace = 380, rowHeight = 28
        let width = labelWidth + barSpace + 60
        let height = bars.count * rowHeight + 8
        let maxCount = max(1, bars.map(\.count).max() ?? 1)
        var svg = "<svg class=\"chart\" role=\"img\" aria-label=\"\(escape(label))\" width=\"\(width)\" height=\"\(height)\" "
            + "viewBox=\"0 0 \(width) \(height)\">\n"
        for (index, bar) in bars.enumerated() {
            let y = 4 + index * rowHeight
            let length = bar.count * barSpace / maxCount
            svg += "<text class=\"label\" x=\"\(labelWidth - 8)\" y=\"\(y + 18)\" text-anchor=\"end\">\(escape(bar.label))</text>\n"
            svg += "<rect class=\"track\" x=\"\(labelWidth)\" y=\"\(y + 4)\" width=\"\(barSpace)\" height=\"\(rowHeight - 8)\"/>\n"
            if length > 0 {
                svg += "<rect class=\"\(tone)\" x=\"\(labelWidth)\" y=\"\(y + 4)\" width=\"\(length)\" height=\"\(rowHeight - 8)\">"
                    + "<title>\(escape(bar.label)): \(bar.count)</title></rect>\n"
            }
            svg += "<text class=\"value\" x=\"\(labelWidth + length + 6)\" y=\"\(y + 18)\">\(bar.count)</text>\n"
        }
        return svg + "</svg>\n"
    }

    private static func emptyChart(_ label: String) -> String {
        "<svg class=\"chart\" role=\"img\" aria-label=\"\(escape(label)) (none)\" width=\"300\" height=\"30\" viewBox=\"0 0 300 30\">"
            + "<text class=\"label\" x=\"0\" y=\"20\">none</text></svg>\n"
    }

    // MARK: - Text

    /// `text` safe in HTML text and in double- or single-quoted attributes.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                // Control characters other than tab and newline are shown as U+FFFD.
                if scalar.value < 0x20 && scalar != "\t" && scalar != "\n" || scalar.value == 0x7F {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// `40.0%` from 400 per mille.
    static func percent(_ perMille: Int) -> String { "\(perMille / 10).\(perMille % 10)%" }

    /// `2026-11-29 09:00` (UTC).
    static func hourLabel(_ time: Timestamp) -> String { dateLabel(time) + " " + clockLabel(time) }

    /// `2026-11-29`.
    static func dateLabel(_ time: Timestamp) -> String { String(time.rfc3339.prefix(10)) }

    /// `09:25:00`.
    static func timeLabel(_ time: Timestamp) -> String { String(time.rfc3339.dropFirst(11).prefix(8)) }

    /// `09:00`.
    static func clockLabel(_ time: Timestamp) -> String { String(time.rfc3339.dropFirst(11).prefix(5)) }

    // MARK: - Style

    static let css = """
    :root{--good:#2e7d4f;--bad:#c0392b;--warn:#d68910;--ink:#1f2933;--muted:#616e7c;--line:#d9dee3;--track:#eef1f4}
    *{box-sizing:border-box}
    body{margin:0;background:#f6f7f9;color:var(--ink);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
    main{max-width:1100px;margin:0 auto;padding:24px 28px 40px;background:#fff;min-height:100vh}
    h1{font-size:26px;margin:0 0 4px}
    h2{font-size:18px;margin:0 0 10px;padding-bottom:4px;border-bottom:2px solid var(--line)}
    section{margin:22px 0 0;break-inside:avoid}
    .meta,.legend,.sub,footer{color:var(--muted);font-size:13px}
    code{font-family:"DejaVu Sans Mono",ui-monospace,monospace;font-size:12.5px}
    dl.digest{display:grid;grid-template-columns:110px 1fr;gap:4px 12px;margin:0}
    dl.digest dt{color:var(--muted)}
    dl.digest dd{margin:0;word-break:break-all}
    .badge{display:inline-block;padding:1px 10px;border-radius:10px;color:#fff;font-weight:600}
    .badge.good{background:var(--good)}
    .badge.bad{background:var(--bad)}
    .problem{color:var(--bad)}
    svg.chart{display:block;max-width:100%;height:auto;margin:4px 0 8px}
    svg .label{font-size:13px;fill:var(--ink)}
    svg .value{font-size:13px;font-weight:600;fill:var(--ink)}
    svg .tick{font-size:11px;fill:var(--muted)}
    svg .axis{stroke:var(--line);stroke-width:1}
    svg .track{fill:var(--track)}
    svg .good,.swatch.good{fill:var(--good);background:var(--good)}
    svg .bad,.swatch.bad{fill:var(--bad);background:var(--bad)}
    svg .warn{fill:var(--warn)}
    .swatch{display:inline-block;width:11px;height:11px;border-radius:2px;vertical-align:-1px}
    table{border-collapse:collapse;width:100%;font-size:13px}
    th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
    th{background:#f0f2f5;font-weight:600}
    td.num,th.num{text-align:right}
    table.funnel{max-width:680px}
    table.failed{font-size:12.5px}
    table.failed th,table.failed td{padding:5px 6px}
    table.failed td.email{overflow-wrap:anywhere;min-width:135px}
    table.failed td.message{min-width:140px}
    table.failed td.nowrap,.nw{white-space:nowrap}
    table.failed code{white-space:nowrap;font-size:11.5px}
    table.failed td.message{color:var(--muted)}
    tr.failed td.outcome{color:var(--bad);font-weight:600}
    tr.anomaly td{background:#fdecea}
    tr.anomaly td.outcome{color:var(--bad);font-weight:700}
    ul.anomalies li{color:var(--bad);margin:3px 0}
    .good-text{color:var(--good);font-weight:600}
    .none{color:var(--muted)}
    footer{margin-top:28px;border-top:1px solid var(--line);padding-top:8px}
    @media print{body{background:#fff}main{padding:0}}
    """
}
