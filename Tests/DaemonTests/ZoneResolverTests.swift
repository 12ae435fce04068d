@testable import ConfigFiles
import Foundation
import TalkingClockCore
import XCTest

@testable import Daemon

/// The edge that reads the tz database: `/etc/localtime` as glibc reads it with `TZ` unset, and
/// `TZ`/`--tz` values under a private `TZDIR`.
final class ZoneResolverTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        guard FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Asia/Tokyo") else {
            throw XCTSkip("tzdata is not installed: run scripts/install-deps --test")
        }
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("zone-resolver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { if let dir { try? FileManager.default.removeItem(at: dir) } }

    func testTheSystemZoneIsTheFileAtLocaltimeNamedByItsLink() throws {
        let localtime = dir.appendingPathComponent("localtime").path
        let zones = ZoneResolver.lookup(environment: [:])
        // No file: UTC, as the C library has it.
        XCTAssertEqual(try ZoneResolver.systemZone(zones: zones, localtime: localtime), .utc)
        // A link into the zone directory: that zone, shown by its name.
        try FileManager.default.createSymbolicLink(atPath: localtime, withDestinationPath: "/usr/share/zoneinfo/Asia/Tokyo")
        let tokyo = try ZoneResolver.systemZone(zones: zones, localtime: localtime)
        XCTAssertEqual(tokyo.identifier, "Asia/Tokyo")
        XCTAssertEqual(tokyo.offset(at: 1_784_117_220), 9 * 3600)
        XCTAssertEqual(tokyo.file, localtime)
        XCTAssertEqual(ZoneResolver.realFile(of: tokyo), "/usr/share/zoneinfo/Asia/Tokyo")
        // Something that is no zone file is refused with the file and the fix.
        try FileManager.default.removeItem(atPath: localtime)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: localtime))
        XCTAssertThrowsError(try ZoneResolver.systemZone(zones: zones, localtime: localtime)) { error in
            XCTAssertTrue("\(error)".contains("The system zone file \(localtime) is not a usable zone file"), "\(error)")
            XCTAssertTrue("\(error)".contains("timedatectl set-timezone"), "\(error)")
        }
    }

    /// A named pipe or a directory at /etc/localtime is not UTC without a word (issue 22).
    func testALocaltimeThatIsNoFileIsRefusedByName() throws {
        let localtime = dir.appendingPathComponent("localtime").path
        let zones = ZoneResolver.lookup(environment: [:])
        XCTAssertEqual(mkfifo(localtime, 0o644), 0)
        XCTAssertThrowsError(try ZoneResolver.systemZone(zones: zones, localtime: localtime)) { error in
            XCTAssertEqual(
                "\(error)",
                "The system zone file \(localtime) is a named pipe, not a zone file. Fix it with 'timedatectl set-timezone NAME' (or link it to a file under /usr/share/zoneinfo), or set TZ.")
        }
        try FileManager.default.removeItem(atPath: localtime)
        try FileManager.default.createDirectory(atPath: localtime, withIntermediateDirectories: false)
        XCTAssertThrowsError(try ZoneResolver.systemZone(zones: zones, localtime: localtime)) { error in
            XCTAssertTrue("\(error)".contains("\(localtime) is a directory, not a zone file."), "\(error)")
        }
        // A link to nothing is what glibc reads as UTC too.
        try FileManager.default.removeItem(atPath: localtime)
        try FileManager.default.createSymbolicLink(atPath: localtime, withDestinationPath: "/nonexistent/zone")
        XCTAssertEqual(try ZoneResolver.systemZone(zones: zones, localtime: localtime), .utc)
    }

    func testTZAndTheTzOptionReadTheZoneDirectoryInTZDIR() throws {
        let tzdir = dir.appendingPathComponent("zoneinfo")
        try FileManager.default.createDirectory(at: tzdir.appendingPathComponent("Test"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: "/usr/share/zoneinfo/Asia/Kathmandu", toPath: tzdir.appendingPathComponent("Test/Zone").path)
        let environment = ["TZ": "Test/Zone", "TZDIR": tzdir.path]
        let zone = try ZoneResolver.resolve(explicit: nil, environment: environment)
        XCTAssertEqual(zone.identifier, "Test/Zone")
        XCTAssertEqual(zone.offset(at: 1_784_117_220), 5 * 3600 + 45 * 60)
        XCTAssertEqual(zone.file, tzdir.path + "/Test/Zone")
        XCTAssertEqual(try ZoneResolver.resolve(explicit: ":Test/Zone", environment: environment), zone)
        // The zone directory is TZDIR's: the system's Europe/London is not in it.
        XCTAssertThrowsError(try ZoneResolver.resolve(explicit: "Europe/London", environment: environment)) { error in
            XCTAssertTrue("\(error)".hasPrefix("--tz 'Europe/London' is not a time zone: there is no zone file \(tzdir.path)/Europe/London"), "\(error)")
        }
        // A POSIX string needs no file; + is west.
        let west = try ZoneResolver.resolve(explicit: "UTC+5", environment: environment)
        XCTAssertEqual(west.offset(at: 1_784_117_220), -5 * 3600)
        XCTAssertNil(west.file)
        // The file read again after an update.
        try FileManager.default.removeItem(at: tzdir.appendingPathComponent("Test/Zone"))
        try FileManager.default.copyItem(
            atPath: "/usr/share/zoneinfo/Asia/Tokyo", toPath: tzdir.appendingPathComponent("Test/Zone").path)
        let reread = try XCTUnwrap(ZoneResolver.lookup(environment: environment).reread(zone))
        XCTAssertEqual(reread.identifier, "Test/Zone")
        XCTAssertEqual(reread.offset(at: 1_784_117_220), 9 * 3600)
    }
}
