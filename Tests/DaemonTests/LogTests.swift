import Glibc
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

    /// Each level goes to stderr with its syslog priority, one line per record.
    func testEachLevelWritesItsSyslogPriorityToStandardError() throws {
        let log = JournalLog()
        let written = try capturingStandardError {
            log.critical("c")
            log.error("e", metadata: ["reason": "no device"])
            log.warning("w")
            log.notice("n")
            log.info("i", metadata: ["b": "2", "a": "1"])
            log.log(level: .warning, "skipped", metadata: ["reason": "stale"])
        }
        XCTAssertEqual(
            written,
            "<2>c\n" + #"<3>e reason="no device""# + "\n<4>w\n<5>n\n<6>i a=1 b=2\n<4>skipped reason=stale\n")
    }

    /// What `body` writes to file descriptor 2, through a pipe put in its place for the call.
    private func capturingStandardError(_ body: () -> Void) throws -> String {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let saved = dup(2)
        XCTAssertGreaterThanOrEqual(saved, 0)
        dup2(fds[1], 2)
        body()
        dup2(saved, 2)
        close(saved)
        close(fds[1])
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        close(fds[0])
        return String(decoding: bytes, as: UTF8.self)
    }
}
