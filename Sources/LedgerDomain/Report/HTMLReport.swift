// MARK: - HTMLReport

/// Renders a `ReportModel` as one self-contained HTML page: inline CSS, inline SVG charts, no
/// script, no font or image fetched from anywhere. Every value from the log is HTML-escaped.
public enum HTMLReport {
    /// Rendering choices.
    public struct Options: Equatable, Sendable {
        /// Show emails in full (default: masked, `a***@example.com`).
        public var showEmails = false
        /// The log's full path (or the store), shown in the header (nil: not shown).
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
        html += signIns(model, options)
        html += accountChanges(model, options)
        html += anomalies(model, options)
        html += "<footer>ledger report · check it against the log later: <code>ledger verify --expect \(escape(model.head.anchor))</code> "
        html += "exits 0 only while the log still holds this head (seq \(model.head.seq), hash <code>\(escape(model.head.hash))</code>).</footer>\n"
        html += "</main>\n</body>\n</html>\n"
        return html
    }

    // MARK: - Sections

    /// One `<section>` of the page: its key, title, what comes before the body, and the body.
    static func section(_ key: String, _ title: String, _ before: String, _ body: String) -> String {
        "<section data-section=\"\(key)\">\n<h2>\(escape(title))</h2>\n\(before)\(body)</section>\n"
    }

    private static func digest(_ model: ReportModel) -> String {
        let verify = model.verifyOK
            ? "<span class=\"badge good\" data-verify=\"passed\">verify passed</span>"
            : "<span class=\"badge bad\" data-verify=\"failed\">verify FAILED</span>"
            + (model.verifyProblem.map { " <span class=\"problem\">\(withCodeSpans($0))</span>" } ?? "")
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
            rows += "<td>" + (row.startedAt.map(when) ?? "-") + "</td>"
            rows += "<td class=\"email\">\(emailHTML(email))</td>"
            rows += "<td class=\"outcome nowrap\">\(escape(row.outcome))\(row.anomalous ? " ⚠" : "")</td>"
            rows += "<td class=\"nowrap\">\(escape(row.step ?? "-"))</td>"
            rows += "<td>\(escape(row.reason ?? "-"))</td>"
            rows += "<td class=\"message\">\(withCodeSpans(row.message.map { masked($0, options, email: row.email) } ?? "-"))</td>"
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
                + "\(withCodeSpans(masked(anomaly.message, options)))</li>\n"
        }
        return section("anomalies", "Anomalies", "",
                       "<ul class=\"anomalies\" data-anomalies=\"\(model.anomalies.count)\">\n\(items)</ul>\n")
    }

    /// Free text from the log as shown: emails in it (and every occurrence of its row's `email`)
    /// masked unless `showEmails`.
    static func masked(_ text: String, _ options: Options, email: String? = nil) -> String {
        options.showEmails ? text : EmailMask.maskEmails(in: text, including: email)
    }
}
