import EventLoop
import Foundation
import Glibc
import XCTest

final class DirectoryWatchTests: XCTestCase {
    func testReportsOnlyTheWatchedNamesBeingReplaced() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zone-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let watcher = try DirectoryWatch(directory: dir.path, names: ["localtime", "timezone"])
        XCTAssertFalse(watcher.read(), "nothing happened yet")
        try "nameserver 192.0.2.1\n".write(
            to: dir.appendingPathComponent("resolv.conf"), atomically: true, encoding: .utf8)
        XCTAssertFalse(watcher.read(), "another file in the directory")
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent(".new").path, withDestinationPath: "/usr/share/zoneinfo/Asia/Tokyo")
        XCTAssertEqual(rename(dir.appendingPathComponent(".new").path, dir.appendingPathComponent("localtime").path), 0)
        XCTAssertTrue(watcher.read(), "localtime replaced by rename (timedatectl)")
        XCTAssertFalse(watcher.read(), "events are drained")
        try "Asia/Tokyo\n".write(to: dir.appendingPathComponent("timezone"), atomically: false, encoding: .utf8)
        XCTAssertTrue(watcher.read(), "timezone rewritten in place")
        XCTAssertThrowsError(try DirectoryWatch(directory: dir.appendingPathComponent("missing").path, names: ["localtime"])) { error in
            XCTAssertTrue(
                "\(error)".contains(
                    "watching \(dir.path)/missing: inotify_add_watch failed: No such file or directory"
                ), "\(error)")
        }
    }
}
