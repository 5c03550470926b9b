// MARK: - HTMLReport: charts

/// The report's inline SVG charts.
extension HTMLReport {
    /// Registrations over time, completed and not, as a stacked bar chart.
    static func timeline(_ model: ReportModel) -> String {
        let hours = model.bucketMillis / ReportModel.hour
        let title = hours == 1 ? "Registrations per hour" : "Registrations per \(hours) hours"
        guard !model.timeline.isEmpty else {
            return section("timeline", title, "<p class=\"none\">No registration.</p>\n", emptyChart("registrations over time"))
        }
        let totalCompleted = model.timeline.reduce(0) { $0 + $1.completed }
        let totalFailed = model.timeline.reduce(0) { $0 + $1.failed }
        let legend = "<p class=\"legend\"><span class=\"swatch good\"></span> completed (\(totalCompleted)) "
            + "<span class=\"swatch bad\"></span> not completed (\(totalFailed)) · by start time, UTC</p>\n"
        if model.timeline.count <= shortTimeline { return section("timeline", title, "", timelineRows(model) + legend) }
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
        return section("timeline", title, "", svg + legend)
    }

    /// A timeline of at most this many buckets is drawn as rows, one bar per bucket, like the other
    /// charts: a column chart of one or two bars is a lone bar in an empty plot.
    static let shortTimeline = 3

    /// A short timeline: a row per bucket, its time, a stacked bar (completed, then not) and the counts.
    static func timelineRows(_ model: ReportModel) -> String {
        let labelWidth = 230, barSpace = 380, rowHeight = 28
        let width = labelWidth + barSpace + 160
        let height = model.timeline.count * rowHeight + 8
        let maxTotal = max(1, model.timeline.map { $0.completed + $0.failed }.max() ?? 1)
        var svg = "<svg class=\"chart\" role=\"img\" aria-label=\"registrations over time, completed and failed\" "
            + "width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">\n"
        for (index, bucket) in model.timeline.enumerated() {
            let y = 4 + index * rowHeight
            let completed = bucket.completed * barSpace / maxTotal, failed = bucket.failed * barSpace / maxTotal
            let label = escape(hourLabel(bucket.start))
            svg += "<text class=\"label\" x=\"\(labelWidth - 8)\" y=\"\(y + 18)\" text-anchor=\"end\">\(label) UTC</text>\n"
            svg += "<rect class=\"track\" x=\"\(labelWidth)\" y=\"\(y + 4)\" width=\"\(barSpace)\" height=\"\(rowHeight - 8)\"/>\n"
            if completed > 0 {
                svg += "<rect class=\"good\" data-series=\"completed\" x=\"\(labelWidth)\" y=\"\(y + 4)\" width=\"\(completed)\" "
                    + "height=\"\(rowHeight - 8)\"><title>\(label): \(bucket.completed) completed</title></rect>\n"
            }
            if failed > 0 {
                svg += "<rect class=\"bad\" data-series=\"failed\" x=\"\(labelWidth + completed)\" y=\"\(y + 4)\" width=\"\(failed)\" "
                    + "height=\"\(rowHeight - 8)\"><title>\(label): \(bucket.failed) failed</title></rect>\n"
            }
            svg += "<text class=\"value\" x=\"\(labelWidth + completed + failed + 6)\" y=\"\(y + 18)\">"
                + "\(bucket.completed) completed, \(bucket.failed) not</text>\n"
        }
        return svg + "</svg>\n"
    }

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

    /// The chart of nothing, labelled for what it would show.
    static func emptyChart(_ label: String) -> String {
        "<svg class=\"chart\" role=\"img\" aria-label=\"\(escape(label)) (none)\" width=\"300\" height=\"30\" viewBox=\"0 0 300 30\">"
            + "<text class=\"label\" x=\"0\" y=\"20\">none</text></svg>\n"
    }
}
