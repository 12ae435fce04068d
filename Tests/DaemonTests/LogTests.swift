import XCTest

@testable import Daemon

/// Every log record is one line: values are quoted and escaped.
final class LogTests: XCTestCase {
    func testValuesAreQuotedAndEscapedOnOneLine() {
        let cases: [(value: String, shown: String)] = [
            ("default", "default"),
            ("", "\"\""),
            ("one AM", "\"one AM\""),
            ("pulse\nfake: line", #""pulse\nfake: line""#),
            ("a\tb\rc", #""a\tb\rc""#),
            (
                #"Could not open ALSA device "hw:7,0": No such device"#,
                #""Could not open ALSA device \"hw:7,0\": No such device""#
            ),
            (#"C:\dir"#, #""C:\\dir""#),
            ("bell\u{07}\u{1B}[31m\u{7F}\u{85}", #""bell\x07\x1B[31m\x7F\x85""#),
            ("née", "née"),
        ]
        for c in cases {
            XCTAssertEqual(JournalLog.quoted(c.value), c.shown, c.value.debugDescription)
        }
        let line = JournalLog.line(priority: 6, message: "started", metadata: ["device": "x\ny", "zone": "UTC"])
        XCTAssertEqual(line, #"<6>started device="x\ny" zone=UTC"#)
    }
}
