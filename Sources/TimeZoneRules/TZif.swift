/// A TZif file (RFC 8536, versions 1 to 4): the format of the tz database's zone files under
/// `/usr/share/zoneinfo`.
///
/// Parsing is a pure function of the bytes (`ZoneFile.read(path:)` is one way to get them). From a
/// version 2+ file only the 64-bit data and the footer are kept; the version 1 block is checked
/// for size and skipped, as RFC 8536 asks of readers. Everything a reader relies on is checked,
/// and the parser is stricter than glibc or Python (trailing bytes, offsets beyond ±26 hours and
/// transition times beyond ±2^59 s are refused): a hostile or damaged file throws a `TZifError`
/// that names what is wrong; it never traps, and nothing is allocated for a count before the
/// bytes it claims are known to be there.
public struct TZif: Hashable, Sendable {
    /// A leap second record (only `right/` zones have them): from `occurrence` on, `correction`
    /// seconds have been inserted in total.
    public struct LeapSecond: Hashable, Sendable {
        public var occurrence: Int
        public var correction: Int
    }

    /// 1, 2, 3 or 4.
    public let version: Int
    /// Seconds since the epoch (UTC), strictly ascending.
    public let transitionTimes: [Int]
    /// For each transition, the index in `localTimeTypes` of the type that starts then.
    public let transitionTypes: [Int]
    /// Never empty. Type 0 applies before the first transition.
    public let localTimeTypes: [LocalTimeType]
    public let leapSeconds: [LeapSecond]
    /// The rule after the last transition (version 2+): nil for version 1 files and for an empty
    /// footer, which leaves the last transition's type in force.
    public let footer: POSIXTZString?

    /// Limits far above any real zone (the largest file in tzdata 2025b has under 400
    /// transitions and 20 types) that bound what a hostile header can ask for.
    public static let maximumTransitions = 100_000
    public static let maximumTypes = 256
    public static let maximumAbbreviationBytes = 65_536
    public static let maximumLeapSeconds = 10_000

    /// Parses a whole TZif file.
    public init(bytes: [UInt8]) throws(TZifError) {
        var reader = ByteReader(bytes: bytes)
        let first = try Header(&reader)
        guard first.version >= 2 else {
            let block = try Block(&reader, header: first, timeSize: 4)
            try reader.expectEnd()
            self.init(version: 1, block: block, footer: nil)
            return
        }
        // The version 1 block is there for old readers; RFC 8536 tells new ones to skip it.
        try reader.skip(first.blockSize(timeSize: 4), "the version 1 data")
        let second = try Header(&reader)
        guard second.version == first.version else {
            throw .versionMismatch(first: first.version, second: second.version)
        }
        let block = try Block(&reader, header: second, timeSize: 8)
        let footer = try reader.footer()
        try reader.expectEnd()
        self.init(version: first.version, block: block, footer: footer)
    }

    private init(version: Int, block: Block, footer: POSIXTZString?) {
        self.version = version
        transitionTimes = block.times
        transitionTypes = block.typeIndices
        localTimeTypes = block.types
        leapSeconds = block.leapSeconds
        self.footer = footer
    }
}

/// Why bytes are not a usable TZif file. Each case's description is a sentence naming the fault.
public enum TZifError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The four bytes at `offset` are not "TZif".
    case badMagic(offset: Int)
    /// The version byte is not 0, '2', '3' or '4'.
    case unsupportedVersion(UInt8)
    /// A version 2+ file's second header gives another version than its first.
    case versionMismatch(first: Int, second: Int)
    /// `what` needs `needed` bytes at `offset`, but only `available` remain.
    case truncated(what: String, offset: Int, needed: Int, available: Int)
    /// A header count breaks RFC 8536 or a limit (`TZif.maximumTransitions`…); `expected` says
    /// what it should be.
    case badCount(field: String, count: Int, expected: String)
    /// Transition `transition` refers to local time type `type`, but there are only `typeCount`.
    case typeIndexOutOfRange(transition: Int, type: Int, typeCount: Int)
    /// Transition `index` is not later than the one before it.
    case transitionsNotAscending(index: Int)
    /// Transition `index` is beyond ±2^59 seconds.
    case transitionTimeOutOfRange(index: Int, time: Int)
    /// A local time type's offset is beyond -25:59:59…+25:59:59 (RFC 8536 3.2).
    case utcOffsetOutOfRange(type: Int, utcOffset: Int)
    /// A local time type's DST flag is neither 0 nor 1.
    case badDSTFlag(type: Int, value: UInt8)
    /// A local time type's abbreviation starts beyond the abbreviation bytes.
    case abbreviationIndexOutOfRange(type: Int, index: Int, charCount: Int)
    /// A local time type's abbreviation has no terminating NUL.
    case abbreviationNotTerminated(type: Int, index: Int)
    /// A standard/wall or UT/local indicator is neither 0 nor 1.
    case badIndicator(what: String, index: Int, value: UInt8)
    /// Leap second record `index` does not come after the one before it.
    case leapSecondsNotAscending(index: Int)
    /// The footer is not a newline, a POSIX TZ string and a newline.
    case badFooter(String)
    /// The footer's TZ string does not parse.
    case footerNotPOSIX(footer: String, error: POSIXTZError)
    /// Bytes follow the end of the data.
    case trailingData(offset: Int, count: Int)

    public var description: String {
        switch self {
        case .badMagic(let offset):
            return "Not a TZif file: the bytes at offset \(offset) are not \"TZif\"."
        case .unsupportedVersion(let v):
            return "Unsupported TZif version byte \(v) (expected 0, '2', '3' or '4')."
        case .versionMismatch(let first, let second):
            return "The TZif file's two headers disagree: version \(first), then version \(second)."
        case .truncated(let what, let offset, let needed, let available):
            return "The TZif file is truncated: \(what) needs \(needed) bytes at offset \(offset), "
                + "but only \(available) remain."
        case .badCount(let field, let count, let expected):
            return "The TZif header's \(field) is \(count); it must be \(expected)."
        case .typeIndexOutOfRange(let transition, let type, let typeCount):
            return "Transition \(transition) refers to local time type \(type), but the file has only \(typeCount)."
        case .transitionsNotAscending(let index):
            return "Transition \(index) is not later than the one before it."
        case .transitionTimeOutOfRange(let index, let time):
            return "Transition \(index) at \(time) s is beyond ±2^59 seconds."
        case .utcOffsetOutOfRange(let type, let utcOffset):
            return "Local time type \(type) has a UTC offset of \(utcOffset) s, beyond ±25:59:59."
        case .badDSTFlag(let type, let value):
            return "Local time type \(type) has a DST flag of \(value) (must be 0 or 1)."
        case .abbreviationIndexOutOfRange(let type, let index, let charCount):
            return "Local time type \(type)'s abbreviation starts at byte \(index) of \(charCount) abbreviation bytes."
        case .abbreviationNotTerminated(let type, let index):
            return "Local time type \(type)'s abbreviation at byte \(index) has no terminating NUL."
        case .badIndicator(let what, let index, let value):
            return "\(what) indicator \(index) is \(value) (must be 0 or 1)."
        case .leapSecondsNotAscending(let index):
            return "Leap second record \(index) does not come after the one before it."
        case .badFooter(let why):
            return "The TZif footer is malformed: \(why)."
        case .footerNotPOSIX(let footer, let error):
            return "The TZif footer \"\(footer)\" is not a POSIX TZ string: \(error)."
        case .trailingData(let offset, let count):
            return "The TZif file has \(count) unexpected bytes after its end, at offset \(offset)."
        }
    }
}

/// The 44-byte header: magic, version, 15 unused bytes, six big-endian 32-bit counts.
private struct Header {
    var version: Int
    var isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt: Int

    init(_ reader: inout ByteReader) throws(TZifError) {
        let start = reader.offset
        // Whatever is there of the magic must match, so that a short text file is "not TZif"
        // rather than "truncated".
        guard reader.bytes[start...].prefix(4).elementsEqual("TZif".utf8.prefix(reader.bytes.count - start)) else {
            throw .badMagic(offset: start)
        }
        let bytes = try reader.take(44, "the header")
        switch bytes[bytes.startIndex + 4] {
        case 0: version = 1
        case UInt8(ascii: "2"): version = 2
        case UInt8(ascii: "3"): version = 3
        case UInt8(ascii: "4"): version = 4
        case let v: throw .unsupportedVersion(v)
        }
        func count(_ i: Int) -> Int { Int(readUInt32(bytes, at: bytes.startIndex + 20 + 4 * i)) }
        (isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt) = (
            count(0), count(1), count(2), count(3), count(4), count(5)
        )

        guard (1...TZif.maximumTypes).contains(typecnt) else {
            throw .badCount(field: "typecnt", count: typecnt, expected: "1…\(TZif.maximumTypes)")
        }
        guard (1...TZif.maximumAbbreviationBytes).contains(charcnt) else {
            throw .badCount(field: "charcnt", count: charcnt, expected: "1…\(TZif.maximumAbbreviationBytes)")
        }
        guard timecnt <= TZif.maximumTransitions else {
            throw .badCount(field: "timecnt", count: timecnt, expected: "at most \(TZif.maximumTransitions)")
        }
        guard leapcnt <= TZif.maximumLeapSeconds else {
            throw .badCount(field: "leapcnt", count: leapcnt, expected: "at most \(TZif.maximumLeapSeconds)")
        }
        for (field, n) in [("isutcnt", isutcnt), ("isstdcnt", isstdcnt)] where n != 0 && n != typecnt {
            throw .badCount(field: field, count: n, expected: "0 or typecnt (\(typecnt))")
        }
    }

    /// The data block's sections in order, with their sizes.
    func sections(timeSize: Int) -> [(what: String, size: Int)] {
        [
            ("the transition times", timecnt * timeSize), ("the transition types", timecnt),
            ("the local time types", typecnt * 6), ("the abbreviations", charcnt),
            ("the leap second records", leapcnt * (timeSize + 4)), ("the standard/wall indicators", isstdcnt),
            ("the UT/local indicators", isutcnt),
        ]
    }

    func blockSize(timeSize: Int) -> Int { sections(timeSize: timeSize).reduce(0) { $0 + $1.size } }
}

/// The data block that follows a header.
private struct Block {
    var times: [Int] = []
    var typeIndices: [Int] = []
    var types: [LocalTimeType] = []
    var leapSeconds: [TZif.LeapSecond] = []

    init(_ reader: inout ByteReader, header h: Header, timeSize: Int) throws(TZifError) {
        // Every byte the counts claim must be there before anything is allocated for them.
        var end = reader.offset
        for section in h.sections(timeSize: timeSize) {
            guard section.size <= reader.bytes.count - end else {
                throw .truncated(
                    what: section.what, offset: end, needed: section.size, available: reader.bytes.count - end)
            }
            end += section.size
        }

        func time(_ bytes: ArraySlice<UInt8>, _ i: Int) -> Int {
            let at = bytes.startIndex + i * timeSize
            return timeSize == 8
                ? Int(Int64(bitPattern: readUInt64(bytes, at: at))) : Int(Int32(bitPattern: readUInt32(bytes, at: at)))
        }

        let timeBytes = try reader.take(h.timecnt * timeSize, "the transition times")
        times.reserveCapacity(h.timecnt)
        for i in 0..<h.timecnt {
            let t = time(timeBytes, i)
            guard t >= -instantLimit && t <= instantLimit else { throw .transitionTimeOutOfRange(index: i, time: t) }
            if let previous = times.last, t <= previous { throw .transitionsNotAscending(index: i) }
            times.append(t)
        }
        let typeBytes = try reader.take(h.timecnt, "the transition types")
        typeIndices = typeBytes.map { Int($0) }
        for (i, type) in typeIndices.enumerated() where type >= h.typecnt {
            throw .typeIndexOutOfRange(transition: i, type: type, typeCount: h.typecnt)
        }

        let typeRecords = try reader.take(h.typecnt * 6, "the local time types")
        let abbreviations = try reader.take(h.charcnt, "the abbreviations")
        for i in 0..<h.typecnt {
            let at = typeRecords.startIndex + i * 6
            let utcOffset = Int(Int32(bitPattern: readUInt32(typeRecords, at: at)))
            guard (-89_999...93_599).contains(utcOffset) else {
                throw .utcOffsetOutOfRange(type: i, utcOffset: utcOffset)
            }
            let isDST = typeRecords[at + 4]
            guard isDST <= 1 else { throw .badDSTFlag(type: i, value: isDST) }
            let index = Int(typeRecords[at + 5])
            guard index < h.charcnt else {
                throw .abbreviationIndexOutOfRange(type: i, index: index, charCount: h.charcnt)
            }
            let from = abbreviations.startIndex + index
            guard let nul = abbreviations[from...].firstIndex(of: 0) else {
                throw .abbreviationNotTerminated(type: i, index: index)
            }
            types.append(
                LocalTimeType(
                    utcOffset: utcOffset, isDST: isDST == 1,
                    abbreviation: String(decoding: abbreviations[from..<nul], as: UTF8.self)))
        }

        let leapBytes = try reader.take(h.leapcnt * (timeSize + 4), "the leap second records")
        for i in 0..<h.leapcnt {
            let record = leapBytes[(leapBytes.startIndex + i * (timeSize + 4))...]
            let occurrence = time(record, 0)
            let correction = Int(Int32(bitPattern: readUInt32(record, at: record.startIndex + timeSize)))
            if let previous = leapSeconds.last, occurrence <= previous.occurrence {
                throw .leapSecondsNotAscending(index: i)
            }
            leapSeconds.append(TZif.LeapSecond(occurrence: occurrence, correction: correction))
        }

        for (what, count) in [("Standard/wall", h.isstdcnt), ("UT/local", h.isutcnt)] {
            for (i, value) in try reader.take(count, "the \(what) indicators").enumerated() where value > 1 {
                throw .badIndicator(what: what, index: i, value: value)
            }
        }
    }
}

private struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    mutating func take(_ count: Int, _ what: String) throws(TZifError) -> ArraySlice<UInt8> {
        guard count <= bytes.count - offset else {
            throw .truncated(what: what, offset: offset, needed: count, available: bytes.count - offset)
        }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func skip(_ count: Int, _ what: String) throws(TZifError) {
        _ = try take(count, what)
    }

    /// `\n` TZ string `\n`; nil for an empty string.
    mutating func footer() throws(TZifError) -> POSIXTZString? {
        let start = offset
        guard try take(1, "the footer").first == UInt8(ascii: "\n") else {
            throw .badFooter("it does not start with a newline (offset \(start))")
        }
        guard let end = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) else {
            // At least one more byte, the newline that ends the footer.
            throw .truncated(
                what: "the footer's final newline", offset: offset, needed: bytes.count - offset + 1,
                available: bytes.count - offset)
        }
        let text = bytes[offset..<end]
        offset = end + 1
        if text.isEmpty { return nil }
        guard text.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw .badFooter("the TZ string has bytes that are not printable ASCII")
        }
        let string = String(decoding: text, as: UTF8.self)
        do {
            // zic writes names shorter than POSIX's 3 when the zone's source has them (see
            // POSIXTZString.init): read them, as glibc reads such a file.
            return try POSIXTZString(string, minimumNameLength: 1)
        } catch {
            throw .footerNotPOSIX(footer: string, error: error)
        }
    }

    func expectEnd() throws(TZifError) {
        guard offset == bytes.count else { throw .trailingData(offset: offset, count: bytes.count - offset) }
    }
}

private func readUInt32(_ bytes: ArraySlice<UInt8>, at i: Int) -> UInt32 {
    UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
}

private func readUInt64(_ bytes: ArraySlice<UInt8>, at i: Int) -> UInt64 {
    UInt64(readUInt32(bytes, at: i)) << 32 | UInt64(readUInt32(bytes, at: i + 4))
}
