import Foundation

// MARK: - Page text

/// The text of an HTML page as a reader sees it: the markup without its tags (entities kept), so an
/// email rendered in pieces (`<span>a***</span><wbr><span>@example</span>…`) reads whole.
func pageText(_ html: String) -> String {
    html.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
}

/// True when `text` is nowhere on the page: neither in its markup nor in the text a reader sees.
func pageLacks(_ html: String, _ text: String) -> Bool {
    !html.contains(text) && !pageText(html).contains(text)
}
