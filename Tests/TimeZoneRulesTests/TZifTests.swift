import TimeZoneRules
import XCTest

/// Builds TZif bytes field by field, so that each test breaks exactly one thing.
struct TZifBuilder {
    var version: UInt8 = UInt8(ascii: "2")
    var times: [Int64] = [0, 1_000_000]
    var typeIndices: [UInt8] = [1, 0]
    /// (utoff, isdst, abbreviation index)
    var types: [(Int32, UInt8, UInt8)] = [(0, 0, 0), (3600, 1, 4)]
    var chars: [UInt8] = Array("UTC\0UTC1\0".utf8)
    var isstd: [UInt8] = []
    var isut: [UInt8] = []
    var footer: [UInt8] = Array("\nUTC0\n".utf8)
    /// Header counts to claim instead of the real ones: (isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt).
    var claimedCounts: [UInt32]?

    func header() -> [UInt8] {
        let counts =
            claimedCounts ?? [isut.count, isstd.count, 0, times.count, types.count, chars.count].map { UInt32($0) }
        return Array("TZif".utf8) + [version] + [UInt8](repeating: 0, count: 15) + counts.flatMap(bigEndian)
    }

    func block(timeSize: Int) -> [UInt8] {
        var bytes = times.flatMap {
            timeSize == 8 ? bigEndian(UInt64(bitPattern: $0)) : bigEndian(UInt32(truncatingIfNeeded: $0))
        }
        bytes += typeIndices
        for (utoff, isdst, index) in types { bytes += bigEndian(UInt32(bitPattern: utoff)) + [isdst, index] }
        return bytes + chars + isstd + isut
    }

    var bytes: [UInt8] {
        let v1 = header() + block(timeSize: 4)
        return version == 0 ? v1 : v1 + header() + block(timeSize: 8) + footer
    }
}

func bigEndian<T: FixedWidthInteger>(_ n: T) -> [UInt8] {
    (0..<(T.bitWidth / 8)).reversed().map { UInt8(truncatingIfNeeded: n >> ($0 * 8)) }
}

final class TZifTests: XCTestCase {
    func systemFile(_ name: String) throws -> [UInt8] {
        let path = try ZoneDirectory.path(ofZone: name)
        guard let bytes = try? ZoneFile.read(path: path) else { throw XCTSkip("no zone file \(path) (install tzdata)") }
        return bytes
    }

    /// Size of the version 1 part of a file: header and data.
    func version1Size(_ bytes: [UInt8]) -> Int {
        func count(_ i: Int) -> Int { bytes[(20 + 4 * i)..<(24 + 4 * i)].reduce(0) { $0 << 8 | Int($1) } }
        return 44 + count(3) * 5 + count(4) * 6 + count(5) + count(2) * 8 + count(1) + count(0)
    }

    func testBerlin() throws {
        let tzif = try TZif(bytes: try systemFile("Europe/Berlin"))
        XCTAssertGreaterThanOrEqual(tzif.version, 2)
        XCTAssertEqual(tzif.footer, try POSIXTZString("CET-1CEST,M3.5.0,M10.5.0/3"))
        XCTAssertTrue(tzif.transitionTimes.contains(1_711_846_800), "2024-03-31 01:00 UTC")
        XCTAssertEqual(Set(tzif.localTimeTypes.map(\.abbreviation)), ["LMT", "CET", "CEST", "CEMT"])
        XCTAssertTrue(tzif.leapSeconds.isEmpty)
    }

    func testBuilderFileParses() throws {
        let tzif = try TZif(bytes: TZifBuilder().bytes)
        XCTAssertEqual(tzif.transitionTimes, [0, 1_000_000])
        XCTAssertEqual(tzif.transitionTypes, [1, 0])
        XCTAssertEqual(tzif.localTimeTypes.map(\.abbreviation), ["UTC", "UTC1"])
        XCTAssertEqual(tzif.footer, try POSIXTZString("UTC0"))
        var empty = TZifBuilder()
        empty.footer = Array("\n\n".utf8)
        XCTAssertNil(try TZif(bytes: empty.bytes).footer, "an empty footer: the last type stays")
        XCTAssertEqual(try ZoneRules(TZif(bytes: empty.bytes)).offset(at: 2_000_000).abbreviation, "UTC")
    }

    /// Every proper prefix of real files (version 2+, and its version 1 part alone) is refused
    /// as truncated, naming the part that is cut.
    func testEveryTruncationIsRefused() throws {
        let berlin = try systemFile("Europe/Berlin")
        var version1 = Array(berlin[0..<version1Size(berlin)])
        version1[4] = 0
        for file in [berlin, version1, try systemFile("America/New_York")] {
            XCTAssertNoThrow(try TZif(bytes: file))
            for n in 0..<file.count {
                XCTAssertThrowsError(try TZif(bytes: Array(file[0..<n])), "prefix of \(n) bytes") { error in
                    guard case .truncated = error as? TZifError else {
                        return XCTFail("prefix of \(n) bytes: \(error)")
                    }
                }
            }
        }
        XCTAssertThrowsError(try TZif(bytes: Array(berlin[0..<100]))) { error in
            XCTAssertEqual(
                "\(error)",
                "The TZif file is truncated: the version 1 data needs 805 bytes at offset 44, but only 56 remain.")
        }
        let second = version1Size(berlin)
        XCTAssertThrowsError(try TZif(bytes: Array(berlin[0..<(second + 54)]))) { error in
            XCTAssertEqual(
                "\(error)",
                "The TZif file is truncated: the transition times needs 1144 bytes at offset \(second + 44), but only 10 remain."
            )
        }
    }

    /// A version 1 file: 32-bit times, no footer. Until its last transition (2037) it gives the
    /// same local time as the 64-bit data; after it, the last type stays (no rule).
    func testVersion1Only() throws {
        let berlin = try systemFile("Europe/Berlin")
        var bytes = Array(berlin[0..<version1Size(berlin)])
        bytes[4] = 0
        let v1 = try TZif(bytes: bytes)
        XCTAssertEqual(v1.version, 1)
        XCTAssertNil(v1.footer)
        let (old, new) = (try ZoneRules(v1), try ZoneRules(TZif(bytes: berlin)))
        let last = try XCTUnwrap(v1.transitionTimes.last)
        XCTAssertGreaterThan(last, 2_000_000_000, "Debian's files are 'fat': version 1 data up to 2037")
        for t in stride(from: Int(Int32.min), through: last, by: 86_400 * 3 + 17) {
            XCTAssertEqual(old.offset(at: t), new.offset(at: t), "at \(t)")
        }
        XCTAssertEqual(old.offset(at: 3_794_173_200).abbreviation, "CET", "2090 summer: no rule in version 1")
        XCTAssertEqual(new.offset(at: 3_794_173_200).abbreviation, "CEST")
    }

    func testHostileHeaders() throws {
        let berlin = try systemFile("Europe/Berlin")
        let second = version1Size(berlin)
        func patched(_ edits: [(Int, [UInt8])]) -> [UInt8] {
            var bytes = berlin
            for (at, new) in edits { bytes.replaceSubrange(at..<(at + new.count), with: new) }
            return bytes
        }
        let timecnt = 32
        let typecnt = 36
        let charcnt = 40
        let cases: [(why: String, bytes: [UInt8], expected: TZifError)] = [
            ("wrong magic", patched([(0, Array("TZiF".utf8))]), .badMagic(offset: 0)),
            ("not TZif at all", Array("# tzdb data for zone.tab\n".utf8), .badMagic(offset: 0)),
            ("wrong magic in the second header", patched([(second, Array("XZif".utf8))]), .badMagic(offset: second)),
            ("an unknown version", patched([(4, [UInt8(ascii: "5")])]), .unsupportedVersion(UInt8(ascii: "5"))),
            (
                "the headers disagree", patched([(second + 4, [UInt8(ascii: "3")])]),
                .versionMismatch(first: 2, second: 3)
            ),
            (
                "a huge transition count", patched([(timecnt, bigEndian(UInt32.max))]),
                .badCount(field: "timecnt", count: Int(UInt32.max), expected: "at most 100000")
            ),
            (
                "a huge count in the second header", patched([(second + timecnt, bigEndian(UInt32.max))]),
                .badCount(field: "timecnt", count: Int(UInt32.max), expected: "at most 100000")
            ),
            (
                "a count within limits but beyond the bytes", patched([(second + timecnt, bigEndian(UInt32(100_000)))]),
                .truncated(
                    what: "the transition times", offset: second + 44, needed: 800_000,
                    available: berlin.count - second - 44)
            ),
            (
                "no local time types", patched([(typecnt, bigEndian(UInt32(0)))]),
                .badCount(field: "typecnt", count: 0, expected: "1…256")
            ),
            (
                "more types than a byte can index", patched([(typecnt, bigEndian(UInt32(257)))]),
                .badCount(field: "typecnt", count: 257, expected: "1…256")
            ),
            (
                "a huge abbreviation count", patched([(charcnt, bigEndian(UInt32.max))]),
                .badCount(field: "charcnt", count: Int(UInt32.max), expected: "1…65536")
            ),
            (
                "indicators for some types only", patched([(20, bigEndian(UInt32(3)))]),
                .badCount(field: "isutcnt", count: 3, expected: "0 or typecnt (9)")
            ),
            (
                "a huge leap second count", patched([(28, bigEndian(UInt32.max))]),
                .badCount(field: "leapcnt", count: Int(UInt32.max), expected: "at most 10000")
            ),
            ("bytes after the footer", berlin + [0], .trailingData(offset: berlin.count, count: 1)),
        ]
        for c in cases {
            XCTAssertThrowsError(try TZif(bytes: c.bytes), c.why) { error in
                XCTAssertEqual(error as? TZifError, c.expected, c.why)
            }
        }
    }

    func posixError(_ text: String) -> POSIXTZError {
        do { _ = try POSIXTZString(text) } catch { return error }
        preconditionFailure("\(text) parses")
    }

    func testHostileData() throws {
        func variant(_ change: (inout TZifBuilder) -> Void) -> [UInt8] {
            var builder = TZifBuilder()
            change(&builder)
            return builder.bytes
        }
        let cases: [(why: String, bytes: [UInt8], expected: TZifError)] = [
            (
                "a transition refers to a type that does not exist", variant { $0.typeIndices = [1, 2] },
                .typeIndexOutOfRange(transition: 1, type: 2, typeCount: 2)
            ),
            ("transitions out of order", variant { $0.times = [1_000_000, 0] }, .transitionsNotAscending(index: 1)),
            ("two transitions at once", variant { $0.times = [5, 5] }, .transitionsNotAscending(index: 1)),
            (
                "a transition beyond 2^59 s", variant { $0.times = [0, 1 << 60] },
                .transitionTimeOutOfRange(index: 1, time: 1 << 60)
            ),
            (
                "the most negative time", variant { $0.times = [Int64.min, 0] },
                .transitionTimeOutOfRange(index: 0, time: Int.min)
            ),
            (
                "an abbreviation index past the abbreviations", variant { $0.types[1].2 = 9 },
                .abbreviationIndexOutOfRange(type: 1, index: 9, charCount: 9)
            ),
            (
                "an abbreviation without its NUL", variant { $0.chars = Array("UTC\0UTC1".utf8) },
                .abbreviationNotTerminated(type: 1, index: 4)
            ),
            ("a DST flag of 2", variant { $0.types[0].1 = 2 }, .badDSTFlag(type: 0, value: 2)),
            (
                "an offset of -2^31 s", variant { $0.types[1].0 = Int32.min },
                .utcOffsetOutOfRange(type: 1, utcOffset: Int(Int32.min))
            ),
            (
                "an offset of 26 hours", variant { $0.types[1].0 = 93_600 },
                .utcOffsetOutOfRange(type: 1, utcOffset: 93_600)
            ),
            (
                "an indicator of 7", variant { $0.isstd = [0, 7] },
                .badIndicator(what: "Standard/wall", index: 1, value: 7)
            ),
            (
                "a footer without its newlines", variant { $0.footer = Array("UTC0".utf8) },
                .badFooter("it does not start with a newline (offset 158)")
            ),
            (
                "a footer that is not POSIX", variant { $0.footer = Array("\nEurope/Berlin\n".utf8) },
                .footerNotPOSIX(
                    footer: "Europe/Berlin",
                    error: posixError("Europe/Berlin"))
            ),
            (
                "a footer with a control byte", variant { $0.footer = Array("\nUTC0\u{7}\n".utf8) },
                .badFooter("the TZ string has bytes that are not printable ASCII")
            ),
            (
                "a footer without its final newline", variant { $0.footer = Array("\nUTC0".utf8) },
                .truncated(what: "the footer's final newline", offset: 159, needed: 5, available: 4)
            ),
        ]
        for c in cases {
            XCTAssertThrowsError(try TZif(bytes: c.bytes), c.why) { error in
                XCTAssertEqual(error as? TZifError, c.expected, c.why)
                XCTAssertTrue("\(error)".hasSuffix("."), "a sentence: \(error)")
            }
        }
    }

    /// Random damage to a real file: every result is either a typed error or a file whose
    /// rules answer every question without trapping.
    func testRandomDamageNeverTraps() throws {
        let original = try systemFile("Europe/Berlin")
        var seed: UInt64 = 42
        func random(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        var (refused, parsed) = (0, 0)
        for _ in 0..<20_000 {
            var bytes = original
            for _ in 0...random(4) {
                bytes[random(bytes.count)] = UInt8(truncatingIfNeeded: random(256))
            }
            if random(8) == 0 { bytes.removeLast(random(bytes.count)) }
            guard let tzif = try? TZif(bytes: bytes), let rules = try? ZoneRules(tzif) else {
                refused += 1
                continue
            }
            parsed += 1
            for t in [Int.min, -1 << 59, -1, 0, 1_711_846_800, 4_000_000_000, 1 << 59, Int.max] {
                _ = rules.offset(at: t)
                _ = rules.nextTransition(after: t)
                _ = rules.instants(forLocalSeconds: t)
            }
        }
        XCTAssertGreaterThan(refused, 1000, "damage is noticed")
        XCTAssertGreaterThan(parsed, 1000, "damage to values that are still valid is accepted")
    }
}
