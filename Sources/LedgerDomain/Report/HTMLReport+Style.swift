// MARK: - HTMLReport: style

extension HTMLReport {
    /// The page's one inline style sheet (no font or image fetched).
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
    table.failed td.email{min-width:135px}
    table.failed td.message{min-width:140px}
    table.failed td.nowrap,.nw{white-space:nowrap}
    table.failed code{white-space:nowrap;font-size:11.5px}
    table.failed td.message{color:var(--muted)}
    tr.failed td.outcome{color:var(--bad);font-weight:600}
    tr.anomaly td{background:#fdecea}
    tr.anomaly td.outcome{color:var(--bad);font-weight:700}
    table.signins,table.changes,table.revoked{font-size:12.5px}
    table.changes code,table.revoked code{white-space:nowrap;font-size:11.5px}
    table.changes td.reason{color:var(--muted)}
    table.revoked{margin-top:12px}
    tr.locked td{background:#fdecea}
    tr.disabled td.change{color:var(--bad);font-weight:600}
    ul.anomalies li{color:var(--bad);margin:3px 0}
    .good-text{color:var(--good);font-weight:600}
    .none{color:var(--muted)}
    footer{margin-top:28px;border-top:1px solid var(--line);padding-top:8px}
    @media print{body{background:#fff}main{padding:0}}
    """
}
