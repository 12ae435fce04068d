import Foundation
import TestSupport
import XCTest

/// libmosquitto is loaded (dlopen) when an MQTT client is first made, not linked: linked, it and the
/// libssl and libcrypto it needs would be loaded by every start of talking-clock, a bare `say` too.
final class LinkTests: XCTestCase {
    func testBinaryDoesNotLinkLibmosquitto() throws {
        let binary = BinaryRunner.binary
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw XCTSkip("no talking-clock at \(binary.path): run swift build --build-tests")
        }
        let ldd = Process()
        ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        ldd.arguments = [binary.path]
        let out = Pipe()
        ldd.standardOutput = out
        try ldd.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ldd.waitUntilExit()
        XCTAssertEqual(ldd.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("libc.so.6"), "ldd printed no libraries: \(text)")
        for library in ["libmosquitto.so", "libssl.so", "libcrypto.so"] {
            XCTAssertFalse(text.contains(library), "talking-clock loads \(library) at start:\n\(text)")
        }
    }
}
