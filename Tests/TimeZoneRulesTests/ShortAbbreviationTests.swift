import Foundation
import TimeZoneRules
import XCTest

/// TZif footers with abbreviations shorter than POSIX's three characters (issue 29, item 10):
/// zic writes them when a zone's source uses them, and glibc reads such files; they were refused
/// ("the standard time name 'X' is shorter than 3 letters"). `TZ` strings keep glibc's minimum.
final class ShortAbbreviationTests: XCTestCase {
    /// A zone source with one-letter and two-letter abbreviations, as zic compiles it.
    static let source = """
        Rule\tSh\t2000\tmax\t-\tMar\tlastSun\t2:00\t1:00\tS
        Rule\tSh\t2000\tmax\t-\tOct\tlastSun\t3:00\t0\t-
        Zone\tTest/Short\t1:00\t-\tXX\t1990
        \t\t\t2:00\tSh\tX%s
        Zone\tTest/Two\t-2:00\t-\tAB
        Zone\tTest/Quoted\t-1:00\t-\t-1
        """

    func testTheFooterGrammarTakesShortNamesOnlyWhenAsked() throws {
        XCTAssertThrowsError(try POSIXTZString("AB2")) { error in
            XCTAssertEqual("\(error)", "the standard time name 'AB' is shorter than 3 letters (at character 3)")
        }
        XCTAssertThrowsError(try POSIXTZString("<X>-1"))
        XCTAssertEqual(try POSIXTZString("AB2", minimumNameLength: 1).standard, .init(name: "AB", utcOffset: -7200))
        XCTAssertEqual(try POSIXTZString("<-1>1", minimumNameLength: 1).standard, .init(name: "-1", utcOffset: -3600))
        let short = try POSIXTZString("X-2XS,M3.5.0,M10.5.0/3", minimumNameLength: 1)
        XCTAssertEqual(short.standard, .init(name: "X", utcOffset: 7200))
        XCTAssertEqual(short.daylight, .init(name: "XS", utcOffset: 10800))
        XCTAssertThrowsError(try POSIXTZString("<>1", minimumNameLength: 1), "a name is never empty")
    }

    /// The files zic writes from `source`: read, and the same offsets as glibc's `date` within
    /// their transitions; after the last one, the footer's rule (glibc falls back to UTC there).
    func testZicFilesWithShortNamesAreRead() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/zic") else { throw XCTSkip("zic is not installed (libc-bin)") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tc-zic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = dir.appendingPathComponent("short.zi")
        try (Self.source + "\n").write(to: src, atomically: true, encoding: .utf8)  // zic needs the last newline
        let zic = try run("/usr/sbin/zic", ["-d", dir.path, src.path])
        XCTAssertEqual(zic.status, 0, zic.err)

        let winter2026 = 1_768_478_400  // 2026-01-15 12:00 UTC
        let summer2026 = 1_784_116_800  // 2026-07-15 12:00 UTC
        let summer2100 = 4_119_336_000  // 2100-07-15 12:00 UTC
        let winter2100 = 4_103_697_600  // 2100-01-15 12:00 UTC
        for (zone, footer) in [("Test/Short", "X-2XS,M3.5.0,M10.5.0/3"), ("Test/Two", "AB2"), ("Test/Quoted", "<-1>1")] {
            let path = dir.appendingPathComponent(zone).path
            let tzif = try TZif(bytes: try ZoneFile.read(path: path))
            XCTAssertEqual(tzif.footer, try POSIXTZString(footer, minimumNameLength: 1), zone)
            let rules = try ZoneRules(tzif)
            for t in [winter2026, summer2026] {
                let glibc = try run("/bin/date", ["-u", "-d", "@\(t)", "+%s"], tz: path)  // sanity: date runs
                XCTAssertEqual(glibc.status, 0)
                let local = try run("/bin/date", ["-d", "@\(t)", "+%z %Z"], tz: path).out
                let type = rules.offset(at: t)
                XCTAssertEqual(local, "\(Self.numeric(type.utcOffset)) \(type.abbreviation)", "\(zone) at \(t)")
            }
        }
        let short = try ZoneRules(TZif(bytes: try ZoneFile.read(path: dir.appendingPathComponent("Test/Short").path)))
        XCTAssertEqual(short.offset(at: summer2100), LocalTimeType(utcOffset: 10800, isDST: true, abbreviation: "XS"))
        XCTAssertEqual(short.offset(at: winter2100), LocalTimeType(utcOffset: 7200, isDST: false, abbreviation: "X"))
    }

    static func numeric(_ offset: Int) -> String {
        let a = abs(offset)
        return (offset < 0 ? "-" : "+") + String(format: "%02d%02d", a / 3600, a % 3600 / 60)
    }

    func run(_ tool: String, _ arguments: [String], tz: String? = nil) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        if let tz { env["TZ"] = tz }
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        let err = Pipe()
        p.standardError = err
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (
            p.terminationStatus, String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines),
            String(decoding: errors, as: UTF8.self)
        )
    }
}
