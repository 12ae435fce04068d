import Foundation
import XCTest

@testable import TalkingClockCore

/// `Format` replaces Foundation's `String(format:)` and NSString path calls in Sources (which must
/// not need full Foundation): its output must be the same, byte for byte.
final class TextFormatTests: XCTestCase {
    func testFixedMatchesStringFormat() {
        let values: [Double] = [
            0, -0.0, 0.05, 0.15, 0.25, 0.35, 1.005, 2.5, 3.5, -2.5, 0.0005, 0.0015, 12.3456, -0.04, -0.4, 999.95,
            1e9 + 0.5, 123_456.789, .pi, -.pi, 1e-9, 0.1 + 0.2,
        ]
        for v in values {
            for digits in 0...3 {
                XCTAssertEqual(Format.fixed(v, digits), String(format: "%.\(digits)f", v), "\(v) with \(digits) digits")
                XCTAssertEqual(
                    Format.fixed(v, digits, sign: true), String(format: "%+.\(digits)f", v), "\(v) signed, \(digits) digits")
            }
        }
        XCTAssertEqual(Format.fixed(0.2904, 3, sign: true), "+0.290")
        XCTAssertEqual(Format.fixed(-0.266, 3, sign: true), "-0.266")
        XCTAssertEqual(Format.fixed(4.25, 1), "4.2")  // ties to even on the exact binary value, as printf
        XCTAssertEqual(Format.fixed(.infinity, 1), "inf")
    }

    func testCFormatAndLongOutput() {
        XCTAssertEqual(Format.c("\\u%04x", UInt32(0x1f)), "\\u001f")
        XCTAssertEqual(Format.c("%d-%05.1f", Int32(7), 3.14159), "7-003.1")
        let long = Format.fixed(1e200, 2)
        XCTAssertEqual(long, String(format: "%.2f", 1e200))
        XCTAssertGreaterThan(long.count, 64)  // longer than the first buffer
    }

    func testParentDirectoryMatchesNSString() {
        let paths = [
            "/a/b", "/a/b/", "/a", "/", "a/b", "a/b/", "", "//a//b//", "/a//b", "./x", "../x/y",
            "/run/user/1000/talking-clock/control.sock", "state/state.json",
        ]
        for p in paths {
            XCTAssertEqual(Format.parentDirectory(of: p), (p as NSString).deletingLastPathComponent, "parent of \"\(p)\"")
        }
        // swift-corelibs-foundation traps on these (and gives "" for "//"):
        XCTAssertEqual(Format.parentDirectory(of: "a"), "")
        XCTAssertEqual(Format.parentDirectory(of: "a//"), "")
        XCTAssertEqual(Format.parentDirectory(of: "//"), "/")
    }

    func testTrimmingWhitespaceMatchesFoundation() {
        let texts = ["", " ", "\t a b \t", "\u{00A0}x\u{2003}", "\nx\n", " 10% ", "é ", "\u{3000}全角\u{3000}", "a"]
        for t in texts {
            XCTAssertEqual(t.trimmingWhitespace(), t.trimmingCharacters(in: .whitespaces), t.debugDescription)
        }
    }
}
