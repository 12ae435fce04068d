import ConfigFiles
import Foundation
import TalkingClockCore
import TimeZoneRules

extension Zone {
    /// A zone of the system's tz database (`/usr/share/zoneinfo`), or anything `TZ` takes, for
    /// tests: `Zone(identifier: "America/New_York")!`. Nil if it cannot be resolved.
    public init?(identifier: String) {
        guard let zone = try? TestZones.lookup.zone(identifier, label: identifier, fix: "") else { return nil }
        self = zone
    }
}

public enum TestZones {
    /// Reads `/usr/share/zoneinfo` (tests pass it where the daemon passes `ZoneResolver.lookup()`).
    public static let lookup = ZoneLookup(tzdir: nil) { path in
        do { return .bytes(try ZoneFile.read(path: path)) } catch { return .missing }
    }

    /// `TZ=value date -f - +%Y-%m-%dT%H:%M:%S%:z` for each instant: the local readings glibc
    /// gives, the oracle for what the clock makes of a `TZ` value.
    public static func glibcReadings(tz: String, at instants: [Int]) throws -> [String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/date")
        p.arguments = ["-f", "-", "+%Y-%m-%dT%H:%M:%S%:z"]
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = tz
        env.removeValue(forKey: "TZDIR")
        p.environment = env
        let out = Pipe()
        let input = Pipe()
        p.standardOutput = out
        p.standardInput = input
        try p.run()
        input.fileHandleForWriting.write(Data(instants.map { "@\($0)\n" }.joined().utf8))
        try input.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
