import LedgerDomain
import XCTest

/// The one XCTest case, so the XCTest runner's summary always counts at least one test.
final class XCTestSmoke: XCTestCase {
    func testCodecRoundTripsOneEvent() throws {
        let event = LedgerEvent.signInFailed(SignInFailed(email: "smoke@example.com", reason: .locked))
        let text = JSONWriter.string(.object(event.data))
        guard case .object(let data) = try JSONReader.parse(text) else { return XCTFail("not an object: \(text)") }
        XCTAssertEqual(try LedgerEvent.decode(type: .signInFailed, data: data), event)
    }
}
