// A TOML 1.0 parser, written here rather than taken as a dependency: the config is small, the only
// maintained parsers wrap C++ (toml++), and errors must carry an exact line and column.
//
// Supported: everything in TOML 1.0 (comments, bare/quoted/dotted keys, all four string kinds,
// decimal/hex/octal/binary integers, floats with inf/nan, booleans, offset/local date-times,
// local dates and times, arrays, inline tables, [tables] and [[arrays of tables]]), with the
// spec's rules on redefinition. One TOML 1.1 relaxation: seconds may be omitted in times
// (`from = 22:00`), because config files are written by people.

/// A place in TOML source text. Lines and columns start at 1; a column counts Unicode scalars, so a
/// tab or an "é" is one column.
public struct TOMLPosition: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (a: TOMLPosition, b: TOMLPosition) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }

    public var description: String { "line \(line), column \(column)" }
}

/// A syntax or structure error in a TOML document, at an exact place.
public struct TOMLError: Error, Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    /// A lowercase clause that names the problem and, where there is one, the fix.
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "line \(line), column \(column): \(message)" }
}

/// A TOML date, time or date-time, kept exactly as written (no zone or calendar is applied).
public struct TOMLDateTime: Hashable, Sendable, CustomStringConvertible {
    public struct LocalDate: Hashable, Sendable {
        public var year: Int
        public var month: Int
        public var day: Int

        public init(year: Int, month: Int, day: Int) {
            self.year = year
            self.month = month
            self.day = day
        }
    }

    public struct LocalTime: Hashable, Sendable {
        public var hour: Int
        public var minute: Int
        public var second: Int
        /// Fractional seconds, truncated to nanoseconds.
        public var nanosecond: Int

        public init(hour: Int, minute: Int, second: Int = 0, nanosecond: Int = 0) {
            self.hour = hour
            self.minute = minute
            self.second = second
            self.nanosecond = nanosecond
        }
    }

    public enum Kind: Hashable, Sendable {
        case offsetDateTime, localDateTime, localDate, localTime
    }

    public var date: LocalDate?
    public var time: LocalTime?
    /// Seconds east of UTC; only for offset date-times.
    public var offsetSeconds: Int?

    public init(date: LocalDate? = nil, time: LocalTime? = nil, offsetSeconds: Int? = nil) {
        self.date = date
        self.time = time
        self.offsetSeconds = offsetSeconds
    }

    public var kind: Kind {
        switch (date, time, offsetSeconds) {
        case (.some, .some, .some): .offsetDateTime
        case (.some, .some, .none): .localDateTime
        case (.some, .none, _): .localDate
        default: .localTime
        }
    }

    /// The value in TOML syntax, e.g. `1979-05-27T07:32:00-07:00`, `22:00:00`.
    public var description: String {
        var parts = ""
        if let d = date { parts += "\(pad(d.year, 4))-\(pad(d.month, 2))-\(pad(d.day, 2))" }
        if let t = time {
            if date != nil { parts += "T" }
            parts += "\(pad(t.hour, 2)):\(pad(t.minute, 2)):\(pad(t.second, 2))"
            if t.nanosecond != 0 {
                var fraction = pad(t.nanosecond, 9)
                while fraction.hasSuffix("0") { fraction.removeLast() }
                parts += "." + fraction
            }
        }
        if let offset = offsetSeconds {
            let sign = offset < 0 ? "-" : "+"
            let minutes = abs(offset) / 60
            parts += offset == 0 ? "Z" : "\(sign)\(pad(minutes / 60, 2)):\(pad(minutes % 60, 2))"
        }
        return parts
    }
}

/// A TOML value.
public enum TOMLValue: Hashable, Sendable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    case dateTime(TOMLDateTime)
    case array([TOMLValue])
    case table(TOMLTable)

    /// The TOML type name: "string", "integer", "float", "boolean", "offset date-time",
    /// "local date-time", "local date", "local time", "array", "table".
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .float: "float"
        case .boolean: "boolean"
        case .dateTime(let d):
            switch d.kind {
            case .offsetDateTime: "offset date-time"
            case .localDateTime: "local date-time"
            case .localDate: "local date"
            case .localTime: "local time"
            }
        case .array: "array"
        case .table: "table"
        }
    }

    /// The value as a user would recognise it in an error message: `the string "loud"`,
    /// `the integer 150`, `an array`, `a table`.
    public var userDescription: String {
        switch self {
        case .string(let s): "the string \(TOMLValue.quoted(s))"
        case .integer(let i): "the integer \(i)"
        case .float(let f): "the float \(TOMLValue.formatFloat(f))"
        case .boolean(let b): "the boolean \(b)"
        case .dateTime(let d): "the \(typeName) \(d)"
        case .array(let a): a.isEmpty ? "an empty array" : "an array"
        case .table: "a table"
        }
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var integerValue: Int64? {
        if case .integer(let i) = self { return i }
        return nil
    }

    public var boolValue: Bool? {
        if case .boolean(let b) = self { return b }
        return nil
    }

    public var arrayValue: [TOMLValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var tableValue: TOMLTable? {
        if case .table(let t) = self { return t }
        return nil
    }

    /// A string in TOML basic-string syntax, escaped so it is safe on one line.
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    public static func formatFloat(_ f: Double) -> String {
        if f.isNaN { return "nan" }
        if f.isInfinite { return f < 0 ? "-inf" : "inf" }
        return "\(f)"
    }
}

extension TOMLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .float(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(arrayLiteral elements: TOMLValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, TOMLValue)...) {
        var table = TOMLTable()
        for (key, value) in elements { table.set(key, value) }
        self = .table(table)
    }
}

/// A TOML table: keys in document order, each with the place its key was written.
///
/// Equality and hashing compare keys and values only: TOML tables are unordered, and two documents
/// that say the same thing should compare equal wherever they say it.
public struct TOMLTable: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    public struct Entry: Hashable, Sendable {
        public var key: String
        public var value: TOMLValue
        /// Where the key was written (for a [table] or [[table]], where its header is).
        public var position: TOMLPosition
    }

    /// The entries in the order they first appear in the document.
    public private(set) var entries: [Entry] = []
    private var index: [String: Int] = [:]
    /// Where the table starts: its header, its `{`, or the first dotted key that created it.
    public var position: TOMLPosition

    public init(position: TOMLPosition = TOMLPosition(line: 1, column: 1)) {
        self.position = position
    }

    public init(dictionaryLiteral elements: (String, TOMLValue)...) {
        self.init()
        for (key, value) in elements { set(key, value) }
    }

    public var keys: [String] { entries.map(\.key) }
    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    public subscript(key: String) -> TOMLValue? { entry(key)?.value }

    public func entry(_ key: String) -> Entry? { index[key].map { entries[$0] } }

    /// Adds or replaces `key`. Replacing keeps the original place in the order.
    public mutating func set(_ key: String, _ value: TOMLValue, position: TOMLPosition? = nil) {
        let at = position ?? self.position
        if let i = index[key] {
            entries[i] = Entry(key: key, value: value, position: at)
        } else {
            index[key] = entries.count
            entries.append(Entry(key: key, value: value, position: at))
        }
    }

    public static func == (a: TOMLTable, b: TOMLTable) -> Bool {
        guard a.entries.count == b.entries.count else { return false }
        return a.entries.allSatisfy { b[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent, like Set: combine per-entry hashes commutatively.
        var combined = 0
        for e in entries {
            var h = Hasher()
            h.combine(e.key)
            h.combine(e.value)
            combined ^= h.finalize()
        }
        hasher.combine(entries.count)
        hasher.combine(combined)
    }
}

/// Parses TOML documents.
public enum TOML {
    /// Arrays, inline tables and table names may nest this deep. Real configs need a handful of
    /// levels; the limit keeps a hostile file from exhausting the stack.
    public static let maximumDepth = 100

    /// Parses a whole document into its root table.
    public static func parse(_ text: String) throws(TOMLError) -> TOMLTable {
        var parser = TOMLParser(Array(text.utf8))
        return try parser.parseDocument()
    }
}

// MARK: - Parser

/// Tables while the document is being read. Reference types, because headers and dotted keys walk
/// back into tables created earlier and add to them; the result is frozen into `TOMLTable` values.
private final class TableNode {
    enum Origin {
        case root
        /// Created as the parent of a header (`a` in `[a.b]`); may still get its own header once.
        case implicit
        /// Defined by `[name]` or as an element of `[[name]]`.
        case header
        /// Created by a dotted key (`a.b = 1` creates `a`); can be extended only by dotted keys
        /// in the same section, and only sub-tables may be added with headers.
        case dotted
        case inline
    }

    enum Node {
        case value(TOMLValue)
        case table(TableNode)
        case tableArray(TableArrayNode)
    }

    struct Slot {
        var node: Node
        var keyOffset: Int
    }

    var origin: Origin
    var offset: Int
    var keys: [String] = []
    var slots: [String: Slot] = [:]

    init(origin: Origin, offset: Int) {
        self.origin = origin
        self.offset = offset
    }

    func insert(_ key: String, _ node: Node, at keyOffset: Int) {
        keys.append(key)
        slots[key] = Slot(node: node, keyOffset: keyOffset)
    }
}

private final class TableArrayNode {
    var tables: [TableNode]
    init(_ first: TableNode) { tables = [first] }
}

private struct KeyPart {
    var name: String
    var offset: Int
}

private enum Byte {
    static let tab: UInt8 = 0x09
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22  // "
    static let hash: UInt8 = 0x23  // #
    static let apostrophe: UInt8 = 0x27  // '
    static let plus: UInt8 = 0x2B
    static let comma: UInt8 = 0x2C
    static let minus: UInt8 = 0x2D
    static let dot: UInt8 = 0x2E
    static let colon: UInt8 = 0x3A
    static let equals: UInt8 = 0x3D
    static let openBracket: UInt8 = 0x5B
    static let backslash: UInt8 = 0x5C
    static let closeBracket: UInt8 = 0x5D
    static let underscore: UInt8 = 0x5F
    static let openBrace: UInt8 = 0x7B
    static let closeBrace: UInt8 = 0x7D
    static let del: UInt8 = 0x7F
}

@inline(__always) private func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

@inline(__always) private func isHexDigit(_ c: UInt8) -> Bool {
    isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
}

@inline(__always) private func isBareKeyByte(_ c: UInt8) -> Bool {
    isDigit(c) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == Byte.minus || c == Byte.underscore
}

/// Control characters that TOML forbids in comments and strings (everything but tab).
@inline(__always) private func isForbiddenControl(_ c: UInt8) -> Bool {
    (c < 0x20 && c != Byte.tab) || c == Byte.del
}

private struct TOMLParser {
    let b: [UInt8]
    var i = 0
    /// Byte offsets where each line starts, for turning offsets into line and column.
    let lineStarts: [Int]

    init(_ bytes: [UInt8]) {
        b = bytes
        var starts = [0]
        for (k, c) in bytes.enumerated() where c == Byte.lf { starts.append(k + 1) }
        lineStarts = starts
        // A byte-order mark is not part of the document.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    }

    // MARK: Positions and errors

    func position(_ offset: Int) -> TOMLPosition {
        // Last line start <= offset.
        var lo = 0
        var hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        var column = 1
        var k = lineStarts[lo]
        let end = min(offset, b.count)
        while k < end {
            if b[k] & 0xC0 != 0x80 { column += 1 }  // count scalars, not UTF-8 continuation bytes
            k += 1
        }
        return TOMLPosition(line: lo + 1, column: column)
    }

    func error(_ message: String, at offset: Int? = nil) -> TOMLError {
        let p = position(offset ?? i)
        return TOMLError(line: p.line, column: p.column, message: message)
    }

    /// What is at `offset`, for "found …" in messages.
    func found(at offset: Int? = nil) -> String {
        let k = offset ?? i
        guard k < b.count else { return "the end of the file" }
        let c = b[k]
        switch c {
        case Byte.lf: return "the end of the line"
        case Byte.cr: return k + 1 < b.count && b[k + 1] == Byte.lf ? "the end of the line" : "a carriage return"
        case Byte.tab: return "a tab"
        case Byte.apostrophe: return "\"'\""
        case 0x21...0x7E: return "'\(Character(Unicode.Scalar(c)))'"
        default:
            if c < 0x80 { return "the control character \(hexScalar(UInt32(c)))" }
            let scalar = decodeScalar(at: k)
            return "'\(Character(scalar))' (\(hexScalar(scalar.value)))"
        }
    }

    func decodeScalar(at k: Int) -> Unicode.Scalar {
        var end = k + 1
        while end < b.count && b[end] & 0xC0 == 0x80 { end += 1 }
        return String(decoding: b[k..<end], as: UTF8.self).unicodeScalars.first ?? "\u{FFFD}"
    }

    func hexScalar(_ v: UInt32) -> String {
        let hex = String(v, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    func text(_ range: Range<Int>) -> String { String(decoding: b[range], as: UTF8.self) }

    func peek(_ k: Int = 0) -> UInt8? { i + k < b.count ? b[i + k] : nil }

    func lineOf(_ offset: Int) -> Int { position(offset).line }

    // MARK: Whitespace, comments, newlines

    mutating func skipWhitespace() {
        while i < b.count && (b[i] == Byte.space || b[i] == Byte.tab) { i += 1 }
    }

    /// At `#`: skips to (not past) the end of the line, rejecting control characters.
    mutating func skipComment() throws(TOMLError) {
        i += 1
        while i < b.count && b[i] != Byte.lf {
            let c = b[i]
            if c == Byte.cr {
                if i + 1 < b.count && b[i + 1] == Byte.lf { return }
                throw error("a carriage return must be followed by a line feed (use LF or CRLF line endings)")
            }
            if isForbiddenControl(c) {
                throw error("comments cannot contain the control character \(hexScalar(UInt32(c))); remove it")
            }
            i += 1
        }
    }

    /// Consumes LF or CRLF; returns false if not at a newline.
    mutating func consumeNewline() throws(TOMLError) -> Bool {
        guard i < b.count else { return false }
        if b[i] == Byte.lf {
            i += 1
            return true
        }
        if b[i] == Byte.cr {
            guard i + 1 < b.count && b[i + 1] == Byte.lf else {
                throw error("a carriage return must be followed by a line feed (use LF or CRLF line endings)")
            }
            i += 2
            return true
        }
        return false
    }

    /// After a key/value pair or a header: only whitespace and a comment may follow on the line.
    mutating func expectEndOfLine(after what: String) throws(TOMLError) {
        skipWhitespace()
        if i < b.count && b[i] == Byte.hash { try skipComment() }
        if i >= b.count { return }
        if try consumeNewline() { return }
        throw error(
            "expected the end of the line after \(what), found \(found()); put each key = value on its own line")
    }

    /// Inside arrays, where newlines and comments may appear between elements.
    mutating func skipWhitespaceCommentsAndNewlines() throws(TOMLError) {
        while true {
            skipWhitespace()
            if i < b.count && b[i] == Byte.hash {
                try skipComment()
            } else if try !consumeNewline() {
                return
            }
        }
    }

    // MARK: Document

    mutating func parseDocument() throws(TOMLError) -> TOMLTable {
        let root = TableNode(origin: .root, offset: i)
        var current = root
        var currentPath: [KeyPart] = []
        while true {
            skipWhitespace()
            guard i < b.count else { break }
            switch b[i] {
            case Byte.hash:
                try skipComment()
            case Byte.lf, Byte.cr:
                _ = try consumeNewline()
            case Byte.openBracket:
                (current, currentPath) = try parseHeader(root: root)
                try expectEndOfLine(after: "the table header")
            default:
                try parseKeyValue(into: current, path: currentPath, depth: currentPath.count)
                try expectEndOfLine(after: "the value")
            }
        }
        return freeze(root)
    }

    // MARK: Keys

    /// A key: simple keys joined by dots, with optional whitespace around the dots.
    mutating func parseKey() throws(TOMLError) -> [KeyPart] {
        var parts: [KeyPart] = []
        while true {
            skipWhitespace()
            parts.append(try parseSimpleKey())
            skipWhitespace()
            guard i < b.count && b[i] == Byte.dot else { return parts }
            i += 1
        }
    }

    mutating func parseSimpleKey() throws(TOMLError) -> KeyPart {
        let start = i
        guard i < b.count else { throw error("expected a key, found the end of the file") }
        let c = b[i]
        if c == Byte.quote || c == Byte.apostrophe {
            if i + 2 < b.count && b[i + 1] == c && b[i + 2] == c {
                throw error("a key cannot be a multi-line string; use a \"quoted key\" on one line")
            }
            let name = c == Byte.quote ? try parseBasicString() : try parseLiteralString()
            return KeyPart(name: name, offset: start)
        }
        guard isBareKeyByte(c) else {
            throw error("expected a key, found \(found()); keys are letters, digits, '-' and '_', or a quoted string")
        }
        while i < b.count && isBareKeyByte(b[i]) { i += 1 }
        return KeyPart(name: text(start..<i), offset: start)
    }

    func displayKey(_ parts: some Collection<KeyPart>) -> String {
        parts.map { part in
            !part.name.isEmpty && part.name.utf8.allSatisfy(isBareKeyByte) ? part.name : TOMLValue.quoted(part.name)
        }.joined(separator: ".")
    }

    // MARK: Key/value pairs

    /// `path` is the key of `table` (its header), so that messages name keys in full.
    mutating func parseKeyValue(into table: TableNode, path: [KeyPart], depth: Int) throws(TOMLError) {
        let keyStart = i
        let parts = try parseKey()
        guard i < b.count && b[i] == Byte.equals else {
            throw error("expected '=' after the key \(displayKey(path + parts)), found \(found())")
        }
        i += 1
        skipWhitespace()
        let valueDepth = depth + parts.count
        guard valueDepth <= TOML.maximumDepth else {
            throw error(
                "the key \(displayKey(path + parts)) nests tables more than \(TOML.maximumDepth) levels deep",
                at: keyStart)
        }
        let value = try parseValue(depth: valueDepth)
        try assign(parts, value, in: table, path: path)
    }

    /// Stores `value` under a possibly dotted key, creating the tables the dots imply.
    func assign(_ parts: [KeyPart], _ value: TOMLValue, in table: TableNode, path prefix: [KeyPart]) throws(TOMLError) {
        var t = table
        for (n, part) in parts.dropLast().enumerated() {
            let path = displayKey(prefix + parts[...n])
            if let slot = t.slots[part.name] {
                let line = lineOf(slot.keyOffset)
                switch slot.node {
                case .table(let sub) where sub.origin == .dotted:
                    t = sub
                case .table(let sub) where sub.origin == .implicit:
                    throw error(
                        "cannot add to the table \(path) with a dotted key, because a header at line \(line) created "
                            + "it; give it its own [\(path)] header instead", at: part.offset)
                case .table:
                    throw error(
                        "cannot add to the table \(path) with a dotted key, because its [\(path)] header at line "
                            + "\(line) defines it; put the key under that header instead", at: part.offset)
                case .tableArray:
                    throw error(
                        "cannot add to \(path) with a dotted key: it is an array of tables ([[\(path)]], line \(line))",
                        at: part.offset)
                case .value(let v):
                    throw error(
                        "\(path) is already \(v.userDescription) (line \(line)), so it cannot hold other keys",
                        at: part.offset)
                }
            } else {
                let sub = TableNode(origin: .dotted, offset: part.offset)
                t.insert(part.name, .table(sub), at: part.offset)
                t = sub
            }
        }
        let last = parts[parts.count - 1]
        if let slot = t.slots[last.name] {
            throw error(
                "duplicate key \(displayKey(prefix + parts)): it is already defined at line \(lineOf(slot.keyOffset)); "
                    + "remove one of them", at: last.offset)
        }
        t.insert(last.name, .value(value), at: last.offset)
    }

    // MARK: Headers

    /// Returns the table the header opens and its full key.
    mutating func parseHeader(root: TableNode) throws(TOMLError) -> (TableNode, [KeyPart]) {
        let start = i
        let isArray = peek(1) == Byte.openBracket
        i += isArray ? 2 : 1
        let parts = try parseKey()
        let name = displayKey(parts)
        let header = isArray ? "[[\(name)]]" : "[\(name)]"
        if isArray {
            guard peek() == Byte.closeBracket && peek(1) == Byte.closeBracket else {
                throw error("expected ']]' to close the array-of-tables header [[\(name)]], found \(found())")
            }
            i += 2
        } else {
            guard peek() == Byte.closeBracket else {
                throw error("expected ']' to close the table header [\(name)], found \(found())")
            }
            i += 1
        }
        guard parts.count <= TOML.maximumDepth else {
            throw error("the table name \(header) has more than \(TOML.maximumDepth) parts", at: start)
        }

        var t = root
        for (n, part) in parts.dropLast().enumerated() {
            let path = displayKey(parts[...n])
            if let slot = t.slots[part.name] {
                let line = lineOf(slot.keyOffset)
                switch slot.node {
                case .table(let sub): t = sub
                case .tableArray(let array): t = array.tables[array.tables.count - 1]
                case .value(.table):
                    throw error(
                        "\(path) is an inline table (line \(line)); inline tables cannot be extended by \(header)",
                        at: part.offset)
                case .value(let v):
                    throw error(
                        "\(path) is already \(v.userDescription) (line \(line)), so \(header) cannot be a table "
                            + "inside it",
                        at: part.offset)
                }
            } else {
                let sub = TableNode(origin: .implicit, offset: start)
                t.insert(part.name, .table(sub), at: part.offset)
                t = sub
            }
        }

        let last = parts[parts.count - 1]
        if let slot = t.slots[last.name] {
            let line = lineOf(slot.keyOffset)
            switch slot.node {
            case .tableArray(let array) where isArray:
                let table = TableNode(origin: .header, offset: start)
                array.tables.append(table)
                return (table, parts)
            case .table(let sub) where !isArray && sub.origin == .implicit:
                sub.origin = .header
                sub.offset = start
                return (sub, parts)
            case .table(let sub) where !isArray && sub.origin == .dotted:
                throw error(
                    "the table \(header) is already defined by dotted keys at line \(line); add its keys there",
                    at: start)
            case .table where !isArray:
                throw error("the table \(header) is defined twice; the first is at line \(line): merge them", at: start)
            case .table:
                throw error(
                    "\(header) cannot add to \(name): it is a table (line \(line)), not an array of tables",
                    at: start)
            case .tableArray:
                throw error(
                    "\(name) is an array of tables (line \(line)); write [[\(name)]] to add an element",
                    at: start)
            case .value(let v):
                let kind = if case .array = v { "a static array" } else { v.userDescription }
                throw error("\(name) is already \(kind) (line \(line)), so \(header) cannot define it", at: start)
            }
        }
        let table = TableNode(origin: .header, offset: start)
        t.insert(last.name, isArray ? .tableArray(TableArrayNode(table)) : .table(table), at: last.offset)
        return (table, parts)
    }

    // MARK: Values

    mutating func parseValue(depth: Int) throws(TOMLError) -> TOMLValue {
        guard i < b.count else { throw error("expected a value, found the end of the file") }
        let c = b[i]
        switch c {
        case Byte.quote:
            if peek(1) == Byte.quote && peek(2) == Byte.quote { return .string(try parseMultilineBasicString()) }
            return .string(try parseBasicString())
        case Byte.apostrophe:
            if peek(1) == Byte.apostrophe && peek(2) == Byte.apostrophe {
                return .string(try parseMultilineLiteralString())
            }
            return .string(try parseLiteralString())
        case Byte.openBracket:
            return try parseArray(depth: depth + 1)
        case Byte.openBrace:
            return try parseInlineTable(depth: depth + 1)
        case Byte.lf, Byte.cr, Byte.hash:
            throw error("expected a value after '=', found \(c == Byte.hash ? "a comment" : found())")
        case Byte.dot:
            throw error("a float needs a digit before the decimal point (write 0.5, not .5)")
        case _ where isDigit(c) || c == Byte.plus || c == Byte.minus:
            return try parseNumberOrDateTime()
        case _ where isBareKeyByte(c):
            if let word = bareWord(), let value = ["true": TOMLValue.boolean(true), "false": .boolean(false)][word] {
                i += word.utf8.count
                return value
            }
            if let word = bareWord(), ["inf", "nan"].contains(word) { return try parseNumberOrDateTime() }
            let word = bareWord() ?? ""
            throw error("expected a value, found \(word); strings must be quoted, like \"\(word)\"")
        default:
            throw error("expected a value (a string, number, boolean, date, array or inline table), found \(found())")
        }
    }

    /// The run of bare-key bytes at the cursor, if any.
    func bareWord() -> String? {
        var end = i
        while end < b.count && isBareKeyByte(b[end]) { end += 1 }
        return end > i ? text(i..<end) : nil
    }

    // MARK: Strings

    /// `"…"` with escapes, on one line.
    mutating func parseBasicString() throws(TOMLError) -> String {
        let start = i
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < b.count, b[i] != Byte.lf, b[i] != Byte.cr else {
                throw error(
                    "the string that starts here is not closed on its line; add the closing '\"' "
                        + "(or use \"\"\" for a multi-line string)", at: start)
            }
            let c = b[i]
            if c == Byte.quote {
                i += 1
                return String(decoding: out, as: UTF8.self)
            } else if c == Byte.backslash {
                try parseEscape(into: &out)
            } else if isForbiddenControl(c) {
                throw error(
                    "strings cannot contain the control character \(hexScalar(UInt32(c))); write it as "
                        + "\\u\(hexScalar(UInt32(c)).dropFirst(2))")
            } else {
                out.append(c)
                i += 1
            }
        }
    }

    /// At `\`: appends the escaped character.
    mutating func parseEscape(into out: inout [UInt8]) throws(TOMLError) {
        let start = i
        guard i + 1 < b.count else { throw error("a string cannot end with a lone backslash") }
        let c = b[i + 1]
        i += 2
        switch c {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(Byte.tab)
        case UInt8(ascii: "n"): out.append(Byte.lf)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(Byte.cr)
        case Byte.quote: out.append(Byte.quote)
        case Byte.backslash: out.append(Byte.backslash)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = c == UInt8(ascii: "u") ? 4 : 8
            var value: UInt32 = 0
            for _ in 0..<count {
                guard i < b.count, isHexDigit(b[i]) else {
                    throw error(
                        "\\\(Character(Unicode.Scalar(c))) must be followed by \(count) hexadecimal digits",
                        at: start)
                }
                value = value * 16 + UInt32(Character(Unicode.Scalar(b[i])).hexDigitValue!)
                i += 1
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw error(
                    "\(text(start..<i)) is not a Unicode scalar value (surrogates and values above "
                        + "10FFFF are not characters)", at: start)
            }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            let shown =
                c < 0x80 && c >= 0x20
                ? "\\\(Character(Unicode.Scalar(c)))" : "a backslash before \(found(at: start + 1))"
            throw error(
                "\(shown) is not a valid escape; use \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX or \\UXXXXXXXX "
                    + "(write \\\\ for a backslash)", at: start)
        }
    }

    /// `"""…"""`: newlines allowed, a newline right after the opening quotes is dropped, and a
    /// backslash at the end of a line joins it to the next non-blank text.
    mutating func parseMultilineBasicString() throws(TOMLError) -> String {
        let start = i
        i += 3
        _ = try consumeNewline()
        var out: [UInt8] = []
        while true {
            guard i < b.count else {
                throw error("the multi-line string that starts here is never closed; add '\"\"\"'", at: start)
            }
            let c = b[i]
            if c == Byte.quote {
                var run = 0
                while i + run < b.count && b[i + run] == Byte.quote { run += 1 }
                if run < 3 {
                    out.append(contentsOf: repeatElement(Byte.quote, count: run))
                    i += run
                    continue
                }
                guard run <= 5 else {
                    throw error(
                        "too many quotes: a multi-line string may end with at most two '\"' before the "
                            + "closing '\"\"\"'; escape the others as \\\"")
                }
                // Up to two quotes just before the closing three belong to the content.
                out.append(contentsOf: repeatElement(Byte.quote, count: run - 3))
                i += run
                return String(decoding: out, as: UTF8.self)
            } else if c == Byte.backslash {
                var j = i + 1
                while j < b.count && (b[j] == Byte.space || b[j] == Byte.tab) { j += 1 }
                if j < b.count && (b[j] == Byte.lf || b[j] == Byte.cr) {
                    // Line-ending backslash: drop the newline and all whitespace up to the next text.
                    i = j
                    while true {
                        skipWhitespace()
                        if try !consumeNewline() { break }
                    }
                } else {
                    try parseEscape(into: &out)
                }
            } else if c == Byte.lf || c == Byte.cr {
                _ = try consumeNewline()
                out.append(Byte.lf)
            } else if isForbiddenControl(c) {
                throw error(
                    "strings cannot contain the control character \(hexScalar(UInt32(c))); write it as "
                        + "\\u\(hexScalar(UInt32(c)).dropFirst(2))")
            } else {
                out.append(c)
                i += 1
            }
        }
    }

    /// `'…'`: no escapes, on one line.
    mutating func parseLiteralString() throws(TOMLError) -> String {
        let start = i
        i += 1
        let contentStart = i
        while true {
            guard i < b.count, b[i] != Byte.lf, b[i] != Byte.cr else {
                throw error(
                    "the literal string that starts here is not closed on its line; add the closing \"'\"",
                    at: start)
            }
            let c = b[i]
            if c == Byte.apostrophe {
                i += 1
                return text(contentStart..<(i - 1))
            }
            if isForbiddenControl(c) {
                throw error(
                    "literal strings cannot contain the control character \(hexScalar(UInt32(c))); "
                        + "use a \"basic string\" with an escape instead")
            }
            i += 1
        }
    }

    /// `'''…'''`: newlines allowed, no escapes.
    mutating func parseMultilineLiteralString() throws(TOMLError) -> String {
        let start = i
        i += 3
        _ = try consumeNewline()
        var out: [UInt8] = []
        while true {
            guard i < b.count else {
                throw error("the multi-line literal string that starts here is never closed; add \"'''\"", at: start)
            }
            let c = b[i]
            if c == Byte.apostrophe {
                var run = 0
                while i + run < b.count && b[i + run] == Byte.apostrophe { run += 1 }
                if run < 3 {
                    out.append(contentsOf: repeatElement(Byte.apostrophe, count: run))
                    i += run
                    continue
                }
                guard run <= 5 else {
                    throw error(
                        "too many quotes: a multi-line literal string may end with at most two \"'\" "
                            + "before the closing \"'''\"")
                }
                out.append(contentsOf: repeatElement(Byte.apostrophe, count: run - 3))
                i += run
                return String(decoding: out, as: UTF8.self)
            } else if c == Byte.lf || c == Byte.cr {
                _ = try consumeNewline()
                out.append(Byte.lf)
            } else if isForbiddenControl(c) {
                throw error(
                    "literal strings cannot contain the control character \(hexScalar(UInt32(c))); "
                        + "use a \"basic string\" with an escape instead")
            } else {
                out.append(c)
                i += 1
            }
        }
    }

    // MARK: Arrays and inline tables

    mutating func parseArray(depth: Int) throws(TOMLError) -> TOMLValue {
        let start = i
        guard depth <= TOML.maximumDepth else {
            throw error("arrays and inline tables are nested more than \(TOML.maximumDepth) levels deep")
        }
        i += 1
        var items: [TOMLValue] = []
        while true {
            try skipWhitespaceCommentsAndNewlines()
            guard i < b.count else { throw error("the array that starts here is never closed; add ']'", at: start) }
            if b[i] == Byte.closeBracket {
                i += 1
                return .array(items)
            }
            items.append(try parseValue(depth: depth))
            try skipWhitespaceCommentsAndNewlines()
            guard i < b.count else { throw error("the array that starts here is never closed; add ']'", at: start) }
            if b[i] == Byte.comma {
                i += 1
            } else if b[i] == Byte.closeBracket {
                i += 1
                return .array(items)
            } else {
                throw error("expected ',' or ']' after an array element, found \(found())")
            }
        }
    }

    mutating func parseInlineTable(depth: Int) throws(TOMLError) -> TOMLValue {
        let start = i
        guard depth <= TOML.maximumDepth else {
            throw error("arrays and inline tables are nested more than \(TOML.maximumDepth) levels deep")
        }
        i += 1
        let node = TableNode(origin: .inline, offset: start)
        skipWhitespace()
        if peek() == Byte.closeBrace {
            i += 1
            return .table(freeze(node))
        }
        while true {
            skipWhitespace()
            try checkInlineTableContinues(start: start)
            try parseKeyValue(into: node, path: [], depth: depth)
            skipWhitespace()
            try checkInlineTableContinues(start: start)
            if b[i] == Byte.comma {
                i += 1
                skipWhitespace()
                if peek() == Byte.closeBrace {
                    throw error("an inline table cannot have a trailing comma; remove the ',' before '}'")
                }
            } else if b[i] == Byte.closeBrace {
                i += 1
                return .table(freeze(node))
            } else {
                throw error("expected ',' or '}' in the inline table, found \(found())")
            }
        }
    }

    /// Inline tables must close on the line they open (TOML 1.0).
    func checkInlineTableContinues(start: Int) throws(TOMLError) {
        guard i < b.count else { throw error("the inline table that starts here is never closed; add '}'", at: start) }
        if b[i] == Byte.lf || b[i] == Byte.cr {
            throw error(
                "an inline table must be on one line: close it with '}' on this line, or use a [table] "
                    + "section for longer tables")
        }
        if b[i] == Byte.hash {
            throw error("comments are not allowed inside an inline table; close it with '}' first")
        }
    }

    // MARK: Numbers, dates and times

    mutating func parseNumberOrDateTime() throws(TOMLError) -> TOMLValue {
        func digits(_ from: Int, _ n: Int) -> Bool {
            from + n <= b.count && b[from..<(from + n)].allSatisfy(isDigit)
        }
        if digits(i, 4) && peek(4) == Byte.minus { return try parseDateTime() }
        if digits(i, 2) && peek(2) == Byte.colon { return .dateTime(TOMLDateTime(time: try parseTime(start: i))) }
        return try parseNumber()
    }

    mutating func parseNumber() throws(TOMLError) -> TOMLValue {
        let start = i
        while i < b.count && (isBareKeyByte(b[i]) || b[i] == Byte.plus || b[i] == Byte.dot) { i += 1 }
        let token = Array(b[start..<i])
        let shown = text(start..<i)
        func invalid(_ why: String) -> TOMLError {
            error("\(shown) is not a valid number: \(why)", at: start)
        }

        var body = token[...]
        var negative = false
        if let first = body.first, first == Byte.plus || first == Byte.minus {
            negative = first == Byte.minus
            body = body.dropFirst()
        }
        let word = String(decoding: body, as: UTF8.self)
        if word == "inf" { return .float(negative ? -.infinity : .infinity) }
        if word == "nan" { return .float(negative ? -.nan : .nan) }

        // Prefixed integers: 0x, 0o, 0b (no sign allowed).
        if body.count >= 2 && body.first == UInt8(ascii: "0"),
            let radix = [UInt8(ascii: "x"): 16, UInt8(ascii: "o"): 8, UInt8(ascii: "b"): 2][body[body.startIndex + 1]]
        {
            guard token.first != Byte.plus && token.first != Byte.minus else {
                throw invalid("hexadecimal, octal and binary integers cannot have a sign")
            }
            let digits = body.dropFirst(2)
            if let why = underscoreProblem(digits) { throw invalid(why) }
            var value: UInt64 = 0
            for c in digits where c != Byte.underscore {
                guard let d = Character(Unicode.Scalar(c)).hexDigitValue, d < radix else {
                    throw invalid("'\(Character(Unicode.Scalar(c)))' is not a base-\(radix) digit")
                }
                let (m, o1) = value.multipliedReportingOverflow(by: UInt64(radix))
                let (s, o2) = m.addingReportingOverflow(UInt64(d))
                guard !o1 && !o2 && s <= UInt64(Int64.max) else { throw invalid("it does not fit in 64 bits") }
                value = s
            }
            return .integer(Int64(value))
        }

        // Decimal: integer part, then optional fraction and exponent.
        var k = body.startIndex
        while k < body.endIndex && (isDigit(body[k]) || body[k] == Byte.underscore) { k += 1 }
        let integerPart = body[body.startIndex..<k]
        if let why = underscoreProblem(integerPart) { throw invalid(why) }
        if integerPart.count > 1 && integerPart.first == UInt8(ascii: "0") {
            throw invalid("leading zeros are not allowed")
        }
        var isFloat = false
        if k < body.endIndex && body[k] == Byte.dot {
            isFloat = true
            k += 1
            let fStart = k
            while k < body.endIndex && (isDigit(body[k]) || body[k] == Byte.underscore) { k += 1 }
            if fStart == k { throw invalid("a decimal point must be followed by digits (write 1.0, not 1.)") }
            if let why = underscoreProblem(body[fStart..<k]) { throw invalid(why) }
        }
        if k < body.endIndex && (body[k] == UInt8(ascii: "e") || body[k] == UInt8(ascii: "E")) {
            isFloat = true
            k += 1
            if k < body.endIndex && (body[k] == Byte.plus || body[k] == Byte.minus) { k += 1 }
            let eStart = k
            while k < body.endIndex && (isDigit(body[k]) || body[k] == Byte.underscore) { k += 1 }
            if eStart == k { throw invalid("an exponent needs digits (such as 1e6 or 2.5E-3)") }
            if let why = underscoreProblem(body[eStart..<k]) { throw invalid(why) }
        }
        guard k == body.endIndex else {
            if body.allSatisfy({ isBareKeyByte($0) || $0 == Byte.dot })
                && !body.allSatisfy({ isDigit($0) || $0 == Byte.underscore || $0 == Byte.dot })
            {
                throw error("expected a value, found \(shown); strings must be quoted, like \"\(shown)\"", at: start)
            }
            throw invalid("unexpected '\(Character(Unicode.Scalar(body[k])))'")
        }
        let cleaned = String(decoding: token.filter { $0 != Byte.underscore }, as: UTF8.self)
        if isFloat {
            guard let value = Double(cleaned) else { throw invalid("it cannot be read as a float") }
            return .float(value)
        }
        guard let value = Int64(cleaned) else { throw invalid("it does not fit in 64 bits") }
        return .integer(value)
    }

    /// Digits with underscores only between digits.
    func underscoreProblem(_ digits: ArraySlice<UInt8>) -> String? {
        guard let first = digits.first, let last = digits.last else { return "digits are missing" }
        if first == Byte.underscore || last == Byte.underscore {
            return "an underscore must be between two digits"
        }
        var previous: UInt8 = 0
        for c in digits {
            if c == Byte.underscore && previous == Byte.underscore { return "an underscore must be between two digits" }
            previous = c
        }
        return nil
    }

    /// Reads exactly `n` ASCII digits.
    mutating func number(_ n: Int) -> Int? {
        guard i + n <= b.count else { return nil }
        var v = 0
        for k in 0..<n {
            guard isDigit(b[i + k]) else { return nil }
            v = v * 10 + Int(b[i + k] - 0x30)
        }
        i += n
        return v
    }

    mutating func parseDateTime() throws(TOMLError) -> TOMLValue {
        let start = i
        func bad(_ why: String) -> TOMLError {
            var end = i
            while end < b.count
                && (isBareKeyByte(b[end]) || b[end] == Byte.colon || b[end] == Byte.plus
                    || b[end] == Byte.dot)
            { end += 1 }
            return error("\(text(start..<end)) is not a valid date: \(why)", at: start)
        }
        guard let year = number(4), peek() == Byte.minus else { throw bad("dates are written YYYY-MM-DD") }
        i += 1
        guard let month = number(2), peek() == Byte.minus else { throw bad("dates are written YYYY-MM-DD") }
        i += 1
        guard let day = number(2) else { throw bad("dates are written YYYY-MM-DD") }
        guard (1...12).contains(month) else { throw bad("month \(month) is outside 1…12") }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...monthDays).contains(day) else { throw bad("\(pad(year, 4))-\(pad(month, 2)) has \(monthDays) days") }
        let date = TOMLDateTime.LocalDate(year: year, month: month, day: day)

        // A time follows after 'T', 't' or a single space (only if a time really follows the space).
        let delimiter = peek()
        let hasTime: Bool
        if delimiter == UInt8(ascii: "T") || delimiter == UInt8(ascii: "t") {
            hasTime = true
        } else if delimiter == Byte.space, let h1 = peek(1), let h2 = peek(2), isDigit(h1), isDigit(h2),
            peek(3) == Byte.colon
        {
            hasTime = true
        } else {
            hasTime = false
        }
        guard hasTime else { return .dateTime(TOMLDateTime(date: date)) }
        i += 1
        let time = try parseTime(start: start)

        var offset: Int?
        if let c = peek(), c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
            i += 1
            offset = 0
        } else if let c = peek(), c == Byte.plus || c == Byte.minus {
            i += 1
            guard let oh = number(2), peek() == Byte.colon else { throw bad("offsets are written Z, +HH:MM or -HH:MM") }
            i += 1
            guard let om = number(2) else { throw bad("offsets are written Z, +HH:MM or -HH:MM") }
            guard oh < 24 && om < 60 else { throw bad("the offset is out of range") }
            offset = (c == Byte.minus ? -1 : 1) * (oh * 3600 + om * 60)
        }
        return .dateTime(TOMLDateTime(date: date, time: time, offsetSeconds: offset))
    }

    /// `HH:MM[:SS[.fraction]]`; `start` is where the whole value began, for messages.
    mutating func parseTime(start: Int) throws(TOMLError) -> TOMLDateTime.LocalTime {
        func bad(_ why: String) -> TOMLError {
            var end = i
            while end < b.count && (isBareKeyByte(b[end]) || b[end] == Byte.colon || b[end] == Byte.dot) { end += 1 }
            return error("\(text(start..<end)) is not a valid time: \(why)", at: start)
        }
        guard let hour = number(2), peek() == Byte.colon else { throw bad("times are written HH:MM:SS") }
        i += 1
        guard let minute = number(2) else { throw bad("times are written HH:MM:SS") }
        var second = 0
        var nanosecond = 0
        if peek() == Byte.colon {
            i += 1
            guard let s = number(2) else { throw bad("times are written HH:MM:SS") }
            second = s
            if peek() == Byte.dot {
                i += 1
                var scale = 100_000_000
                let fStart = i
                while let c = peek(), isDigit(c) {
                    nanosecond += Int(c - 0x30) * scale
                    scale /= 10
                    i += 1
                }
                if fStart == i { throw bad("a decimal point in the seconds must be followed by digits") }
            }
        }
        guard hour < 24 else { throw bad("hour \(hour) is outside 0…23") }
        guard minute < 60 else { throw bad("minute \(minute) is outside 0…59") }
        guard second <= 60 else { throw bad("second \(second) is outside 0…60") }
        return TOMLDateTime.LocalTime(hour: hour, minute: minute, second: second, nanosecond: nanosecond)
    }

    // MARK: Freezing

    func freeze(_ node: TableNode) -> TOMLTable {
        var table = TOMLTable(position: position(node.offset))
        for key in node.keys {
            guard let slot = node.slots[key] else { continue }
            let value: TOMLValue =
                switch slot.node {
                case .value(let v): v
                case .table(let sub): .table(freeze(sub))
                case .tableArray(let array): .array(array.tables.map { .table(freeze($0)) })
                }
            table.set(key, value, position: position(slot.keyOffset))
        }
        return table
    }
}

/// `value` in decimal, zero-padded to `width` digits (a minus sign before them).
@inline(__always) func pad(_ value: Int, _ width: Int) -> String {
    let s = String(abs(value))
    let padded = s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    return value < 0 ? "-" + padded : padded
}
