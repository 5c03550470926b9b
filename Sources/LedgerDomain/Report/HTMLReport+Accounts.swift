// MARK: - Sign-ins and account changes

extension HTMLReport {
    /// The refused sign-ins per email, lockouts highlighted.
    static func signIns(_ model: ReportModel, _ options: Options) -> String {
        guard !model.signIns.isEmpty else {
            return section("sign-ins", "Sign-in failures and lockouts", "<p class=\"none\">No refused sign-in.</p>\n", "")
        }
        var rows = ""
        for row in model.signIns {
            rows += "<tr class=\"\(row.locked ? "locked" : "refused")\" data-signin-locked=\"\(row.locked)\">"
            rows += "<td class=\"email\">\(emailHTML(shownEmail(row.email, options)))</td><td class=\"num\">\(row.failures)</td>"
            rows += "<td>\(row.locked ? "locked ⚠" : "no")</td></tr>\n"
        }
        let locked = model.signIns.filter(\.locked).count
        let table = """
        <table class="signins">
        <thead><tr><th>Email</th><th class="num">Refused sign-ins</th><th>Locked out</th></tr></thead>
        <tbody>
        \(rows)</tbody>
        </table>
        <p class="legend">\(model.signIns.count) email\(model.signIns.count == 1 ? "" : "s") refused at least once; \(locked) locked out now.</p>

        """
        return section("sign-ins", "Sign-in failures and lockouts", "", table)
    }

    /// The account changes and revoked sessions, each in log order.
    static func accountChanges(_ model: ReportModel, _ options: Options) -> String {
        guard !model.accountChanges.isEmpty || !model.revokedSessions.isEmpty else {
            return section("account-changes", "Account changes", "<p class=\"none\">No account changed, deleted or signed out after sign-up.</p>\n", "")
        }
        var changes = ""
        for row in model.accountChanges {
            changes += "<tr class=\"\(escape(row.change.rawValue))\" data-change=\"\(escape(row.change.rawValue))\">"
            changes += "<td class=\"num\">\(row.seq)</td><td>\(when(row.at))</td><td><code>\(escape(row.uid.uuidString))</code></td>"
            changes += "<td class=\"email\">\(emailHTML(shownEmail(row.email, options)))</td><td class=\"change\">\(escape(row.change.rawValue))</td>"
            let detail = row.newEmail != nil ? row.detail(showing: { shownEmail($0, options) }) : masked(row.detail(), options, email: row.email)
            changes += "<td class=\"reason\">\(escape(detail))</td></tr>\n"
        }
        var revoked = ""
        for row in model.revokedSessions {
            revoked += "<tr class=\"revoked\" data-revoked=\"\(escape(row.session.uuidString))\">"
            revoked += "<td class=\"num\">\(row.seq)</td><td>\(when(row.at))</td><td><code>\(escape(row.uid.uuidString))</code></td>"
            revoked += "<td><code>\(escape(row.session.uuidString))</code></td><td>\(escape(row.reason))</td></tr>\n"
        }
        let body = """
        <table class="changes">
        <thead><tr><th>Seq</th><th>At (UTC)</th><th>Account</th><th>Email</th><th>Change</th><th>Detail</th></tr></thead>
        <tbody>
        \(changes)</tbody>
        </table>
        <p class="legend">\(model.accountChanges.count) account change\(model.accountChanges.count == 1 ? "" : "s").</p>
        <table class="revoked">
        <thead><tr><th>Seq</th><th>At (UTC)</th><th>Account</th><th>Session</th><th>Reason</th></tr></thead>
        <tbody>
        \(revoked)</tbody>
        </table>
        <p class="legend">\(model.revokedSessions.count) session\(model.revokedSessions.count == 1 ? "" : "s") revoked.</p>

        """
        return section("account-changes", "Account changes", "", body)
    }

    /// An email as shown: masked unless `showEmails`; `-` when empty.
    private static func shownEmail(_ email: String, _ options: Options) -> String {
        email.isEmpty ? "-" : options.showEmails ? email : EmailMask.mask(email)
    }

    /// An instant as the tables show it: date and time, each kept on one line.
    static func when(_ time: Timestamp) -> String {
        "<span class=\"nw\">\(escape(dateLabel(time)))</span> <span class=\"nw\">\(escape(timeLabel(time)))</span>"
    }
}
