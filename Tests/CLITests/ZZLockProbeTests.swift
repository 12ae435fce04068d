import XCTest
final class ZZLockProbeTests: XCTestCase {
    func testProbe() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["swift", "build", "--product", "talking-clock"]
        p.currentDirectoryURL = URL(fileURLWithPath: "/work/wt-deb")
        try p.run()
        let deadline = Date().addingTimeInterval(60)
        while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.5) }
        if p.isRunning { p.terminate(); XCTFail("swift build inside swift test waited 60 s: the lock is held") }
        print("nested swift build exit \(p.terminationStatus)")
    }
}
