import Foundation
import TimeZoneRules
import XCTest

/// Every zone of the system's tz database against an independent reader of the same files:
/// Python's `zoneinfo` (scripts/tz-oracle), over 1970-2100.
final class SystemZonesTests: XCTestCase {
    static let tzdir =
        ProcessInfo.processInfo.environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 }
        ?? ZoneDirectory.defaultPath
    static let oracle = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/tz-oracle").standardized.path

    /// Files in the database that are not zones.
    static let notZones: Set<String> = [
        "iso3166.tab", "zone.tab", "zone1970.tab", "zonenow.tab", "tzdata.zi", "leapseconds",
        "leap-seconds.list", "SECURITY",
    ]

    struct Zone {
        var name: String
        var path: String
        var tzif: TZif
        var rules: ZoneRules
    }

    /// Every zone name under the database (symbolic links too: `UTC`, `US/Eastern`), except
    /// `posix/` (copies of the others), `right/` (the same zones counting leap seconds, which
    /// POSIX time does not: tested apart) and `localtime` (the system's setting, not a zone).
    static func systemZones() throws -> [Zone] {
        guard let names = FileManager.default.subpaths(atPath: tzdir) else {
            throw XCTSkip("No tz database at \(tzdir) (install tzdata)")
        }
        var zones: [Zone] = []
        for name in names.sorted() {
            let top = name.split(separator: "/").first.map(String.init) ?? name
            guard top != "posix", top != "right", name != "localtime" else { continue }
            let path = try ZoneDirectory.path(ofZone: name, tzdir: tzdir)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            let bytes = try ZoneFile.read(path: path)
            guard bytes.starts(with: Array("TZif".utf8)) else {
                XCTAssertTrue(notZones.contains(name), "\(name) is neither a TZif file nor a known data file")
                continue
            }
            do {
                let tzif = try TZif(bytes: bytes)
                zones.append(Zone(name: name, path: path, tzif: tzif, rules: try ZoneRules(tzif)))
            } catch {
                XCTFail("\(name): \(error)")
            }
        }
        return zones
    }

    static let start = 0  // 1970-01-01 00:00:00 UTC
    static let end = 4_102_444_800  // 2100-01-01 00:00:00 UTC
    static let year2038 = 2_147_483_648  // the first instant 32-bit time cannot hold

    /// A deterministic spread of instants: even steps, a pseudo-random sample, and more after
    /// the file's last transition, where the footer rule answers.
    static func spread(after lastTransition: Int?) -> [Int] {
        var instants = stride(from: start, to: end, by: (end - start) / 200).map { $0 + 7919 }
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        func random(_ range: Range<Int>) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return range.lowerBound + Int((seed >> 11) % UInt64(range.count))
        }
        instants += (0..<100).map { _ in random(start..<end) }
        let footerFrom = max(year2038, (lastTransition ?? start) + 1)
        if footerFrom < end { instants += (0..<100).map { _ in random(footerFrom..<end) } }
        return instants
    }

    func testEveryZoneAgreesWithPythonZoneinfo() throws {
        let clock = ContinuousClock()
        let began = clock.now
        let zones = try Self.systemZones()
        XCTAssertGreaterThan(zones.count, 300, "the whole database, not a few zones")

        enum Query {
            case utc(Int)
            case local(Int, LocalTimeResolution)
        }
        var request = ""
        var queries: [(zone: Int, query: Query)] = []
        var transitionCount = 0
        var zonesUsingFooter = 0
        for (z, zone) in zones.enumerated() {
            request += "zone \(zone.path)\n"
            var utc = Self.spread(after: zone.tzif.transitionTimes.last)
            var local = utc.map { $0 + 43_200 }
            var cursor = Self.start - 2
            while let t = zone.rules.nextTransition(after: cursor), t.instant < Self.end {
                utc += [t.instant - 1, t.instant, t.instant + 1]
                let (b, a) = (t.before.utcOffset, t.after.utcOffset)
                local += [t.instant + b - 1, t.instant + b, t.instant + a - 1, t.instant + a, t.instant + (a + b) / 2]
                transitionCount += 1
                cursor = t.instant
            }
            let footerFrom = max(Self.year2038, zone.tzif.transitionTimes.last ?? .min)
            if let t = zone.rules.nextTransition(after: footerFrom), t.instant < Self.end { zonesUsingFooter += 1 }
            for t in utc {
                request += "u \(t)\n"
                queries.append((z, .utc(t)))
            }
            for l in local {
                request += "l \(l)\n"
                queries.append((z, .local(l, zone.rules.instants(forLocalSeconds: l))))
            }
        }
        let askedAt = clock.now
        let answers = try runOracle(request)
        let oracleTime = clock.now - askedAt
        XCTAssertEqual(answers.count, queries.count, "one answer per query")

        var mismatches: [String] = []
        var localKinds = (unique: 0, repeated: 0, skipped: 0)
        for ((z, query), answer) in zip(queries, answers) {
            let zone = zones[z]
            let fields = answer.split(separator: " ").map(String.init)
            switch query {
            case .utc(let t):
                let mine = zone.rules.offset(at: t)
                let expected = "\(mine.utcOffset) \(mine.isDST ? 1 : 0) \(mine.abbreviation)"
                if answer != expected {
                    mismatches.append("\(zone.name) at \(t) (\(utc(t))): \(expected), zoneinfo \(answer)")
                }
            case .local(let l, let resolution):
                let instants = resolution.instants.map(String.init).joined(separator: ",")
                var ok = fields.count == 3 && fields[2] == (instants.isEmpty ? "-" : instants)
                switch resolution {
                case .unique: localKinds.unique += 1
                case .repeated: localKinds.repeated += 1
                case .skipped(let t):
                    localKinds.skipped += 1
                    // zoneinfo reads a skipped time with the offset before (fold=0) or after (fold=1).
                    ok = ok && fields[0] == "\(t.before.utcOffset)" && fields[1] == "\(t.after.utcOffset)"
                }
                if !ok {
                    mismatches.append(
                        "\(zone.name) local \(WallClockTime(localSeconds: l)): \(resolution), zoneinfo \(answer)")
                }
            }
        }
        XCTAssertEqual(mismatches.count, 0, "first mismatches:\n" + mismatches.prefix(20).joined(separator: "\n"))
        XCTAssertGreaterThan(localKinds.skipped, 1000, "the gaps are exercised")
        XCTAssertGreaterThan(localKinds.repeated, 1000, "the overlaps are exercised")
        XCTAssertGreaterThan(zonesUsingFooter, 50, "footer rules are exercised after 2038")
        print(
            "SystemZonesTests: \(zones.count) zones, \(transitionCount) transitions in 1970-2100, "
                + "\(queries.count) queries (\(localKinds.unique) unique, \(localKinds.repeated) repeated, "
                + "\(localKinds.skipped) skipped local times; \(zonesUsingFooter) zones with footer DST after 2038), "
                + "\(mismatches.count) mismatches with zoneinfo, in \(clock.now - began) (zoneinfo: \(oracleTime))")
    }

    /// Runs scripts/tz-oracle once for all queries; its answer lines.
    func runOracle(_ request: String) throws -> [Substring] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tz-oracle-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("queries")
        let output = dir.appendingPathComponent("answers")
        try request.write(to: input, atomically: false, encoding: .utf8)
        FileManager.default.createFile(atPath: output.path, contents: nil)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.oracle]
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "scripts/tz-oracle failed (needs python3 ≥ 3.9 with zoneinfo)")
        return try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
    }

    func utc(_ t: Int) -> String { "\(WallClockTime(localSeconds: t)) UTC" }

    /// The database's own consistency, which `ZoneRules` relies on: RFC 8536 3.3 asks that the
    /// footer rule agree with the last transition, so taking it over changes nothing.
    func testEveryFooterAgreesWithTheLastTransition() throws {
        for zone in try Self.systemZones() {
            guard let last = zone.tzif.transitionTimes.last, let footer = zone.tzif.footer else { continue }
            let lastType = zone.tzif.localTimeTypes[zone.tzif.transitionTypes.last!]
            XCTAssertEqual(footer.localTimeType(at: last), lastType, zone.name)
            XCTAssertEqual(footer.localTimeType(at: last + 1), lastType, zone.name)
        }
    }

    /// `right/` zones count leap seconds in their instants, which the system clock (POSIX time)
    /// does not: they parse, and `ZoneRules` refuses them by name.
    func testRightZonesParseAndAreRefused() throws {
        let berlin = "\(Self.tzdir)/right/Europe/Berlin"
        guard FileManager.default.fileExists(atPath: berlin) else { throw XCTSkip("no right/ zones at \(Self.tzdir)") }
        let tzif = try TZif(bytes: try ZoneFile.read(path: berlin))
        XCTAssertGreaterThanOrEqual(tzif.leapSeconds.count, 27)
        XCTAssertEqual(tzif.leapSeconds.last?.correction, 27, "27 leap seconds since 1972")
        XCTAssertThrowsError(try ZoneRules(tzif)) { error in
            XCTAssertEqual(error as? ZoneRulesError, .leapSeconds(count: tzif.leapSeconds.count))
            XCTAssertTrue("\(error)".contains("without \"right/\""), "\(error)")
        }
    }

    /// Every TZif file in the tree, `posix/` and `right/` included, parses.
    func testEveryFileInTheTreeParses() throws {
        guard let names = FileManager.default.subpaths(atPath: Self.tzdir) else { throw XCTSkip("no tz database") }
        var parsed = 0
        for name in names {
            let path = "\(Self.tzdir)/\(name)"
            guard let bytes = try? ZoneFile.read(path: path), bytes.starts(with: Array("TZif".utf8)) else { continue }
            XCTAssertNoThrow(try TZif(bytes: bytes), name)
            parsed += 1
        }
        XCTAssertGreaterThan(parsed, 1000)
    }
}
