/// JSON (RFC 8259, plus trailing commas, which JSONSerialization and JSONDecoder accept on Linux too) parsed into the untyped tree JSONSerialization gave: `[String: Any]`,
/// `[Any]`, `String`, `Int` (an integer that fits) or `Double`, `Bool`, and `JSONTree.null`.
/// JSONSerialization is full Foundation only; FoundationEssentials' JSONDecoder accepts leading
/// zeros and does not say where a document breaks, so the files people edit
/// (language files, pack manifests, the state file) are checked here, with the place of the first
/// error: "Invalid value around character 12." (a byte offset from 0).
public enum JSONTree {
    /// JSON `null`.
    public struct Null: Hashable, Sendable {}
    public static let null = Null()

    public struct SyntaxError: Error, CustomStringConvertible, Sendable {
        /// "Invalid value around character 12." (a byte offset from 0), or "Unexpected end of file
        /// during JSON parse."
        public let description: String
        /// The byte offset of the problem (the end of the data for an unexpected end).
        public let offset: Int
    }

    /// Which value of a key an object holds when the key is written twice.
    public enum DuplicateKeys: Sendable {
        /// The last, as JSONSerialization.
        case keepLast
        /// The first, as FoundationEssentials' `JSONDecoder` (pack manifests keep what it read).
        case keepFirst
    }

    /// Parses one JSON value (any value at the top level, as with `.fragmentsAllowed`).
    public static func parse(
        _ bytes: some Collection<UInt8>, duplicateKeys: DuplicateKeys = .keepLast
    ) throws(SyntaxError) -> Any {
        let array = Array(bytes)
        var parser = Parser(bytes: array, keepFirst: duplicateKeys == .keepFirst)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.at == array.count else { throw parser.fail("Garbage at end") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        let keepFirst: Bool
        var at = 0

        func fail(_ what: String) -> SyntaxError {
            at >= bytes.count
                ? SyntaxError(description: "Unexpected end of file during JSON parse.", offset: bytes.count)
                : SyntaxError(description: "\(what) around character \(at).", offset: at)
        }

        mutating func skipSpace() {
            while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x09 {
                at += 1
            }
        }

        mutating func expect(_ word: String, _ result: Any) throws(SyntaxError) -> Any {
            let start = at
            for b in word.utf8 {
                guard at < bytes.count, bytes[at] == b else {
                    at = start
                    throw fail("Invalid value")
                }
                at += 1
            }
            return result
        }

        mutating func value(depth: Int) throws(SyntaxError) -> Any {
            guard at < bytes.count else { throw fail("") }
            switch bytes[at] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return try string()
            case UInt8(ascii: "t"): return try expect("true", true)
            case UInt8(ascii: "f"): return try expect("false", false)
            case UInt8(ascii: "n"): return try expect("null", JSONTree.null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw fail("Invalid value")
            }
        }

        mutating func object(depth: Int) throws(SyntaxError) -> [String: Any] {
            guard depth <= 512 else { throw fail("Too many nested arrays or dictionaries") }
            at += 1
            var result: [String: Any] = [:]
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
                at += 1
                return result
            }
            while true {
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "}"), !result.isEmpty {  // a trailing comma
                    at += 1
                    return result
                }
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw fail("Invalid value") }
                let key = try string()
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw fail("Invalid value") }
                at += 1
                skipSpace()
                let item = try value(depth: depth)
                if !keepFirst || result[key] == nil { result[key] = item }
                skipSpace()
                guard at < bytes.count else { throw fail("") }
                if bytes[at] == UInt8(ascii: ",") {
                    at += 1
                } else if bytes[at] == UInt8(ascii: "}") {
                    at += 1
                    return result
                } else {
                    throw fail("Badly formed object")
                }
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) -> [Any] {
            guard depth <= 512 else { throw fail("Too many nested arrays or dictionaries") }
            at += 1
            var result: [Any] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
                at += 1
                return result
            }
            while true {
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "]"), !result.isEmpty {  // a trailing comma
                    at += 1
                    return result
                }
                result.append(try value(depth: depth))
                skipSpace()
                guard at < bytes.count else { throw fail("") }
                if bytes[at] == UInt8(ascii: ",") {
                    at += 1
                } else if bytes[at] == UInt8(ascii: "]") {
                    at += 1
                    return result
                } else {
                    throw fail("Badly formed array")
                }
            }
        }

        mutating func hex4() throws(SyntaxError) -> UInt32 {
            var v: UInt32 = 0
            for _ in 0..<4 {
                guard at < bytes.count else { throw fail("") }
                let b = bytes[at]
                let d: UInt8
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
                default: throw fail("Invalid hex encoded sequence")
                }
                v = v << 4 | UInt32(d)
                at += 1
            }
            return v
        }

        mutating func string() throws(SyntaxError) -> String {
            let start = at
            at += 1
            var out: [UInt8] = []
            var runStart = at
            while true {
                guard at < bytes.count else { throw fail("") }
                let b = bytes[at]
                if b == UInt8(ascii: "\"") {
                    out.append(contentsOf: bytes[runStart..<at])
                    at += 1
                    break
                }
                if b < 0x20 { throw fail("Unescaped control character") }
                if b != UInt8(ascii: "\\") {
                    at += 1
                    continue
                }
                out.append(contentsOf: bytes[runStart..<at])
                at += 1
                guard at < bytes.count else { throw fail("") }
                let e = bytes[at]
                at += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u")
                        else { throw fail("Unpaired surrogate") }
                        at += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("Unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("Unpaired surrogate") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    at -= 2
                    throw fail("Invalid escape sequence")
                }
                runStart = at
            }
            guard let text = String(validating: out, as: UTF8.self) else {
                at = start
                throw fail("Invalid UTF-8 in string")
            }
            return text
        }

        mutating func number() throws(SyntaxError) -> Any {
            let start = at
            if bytes[at] == UInt8(ascii: "-") { at += 1 }
            func digits(_ p: inout Parser) -> Int {
                let s = p.at
                while p.at < p.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.at]) { p.at += 1 }
                return p.at - s
            }
            guard at < bytes.count else { throw fail("") }
            let intStart = at
            let intDigits = digits(&self)
            guard intDigits > 0 else { throw fail("Invalid value") }
            if intDigits > 1, bytes[intStart] == UInt8(ascii: "0") {
                at = intStart
                throw fail("Number with leading zero")
            }
            var integral = true
            if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
                integral = false
                at += 1
                guard digits(&self) > 0 else { throw fail("Invalid number") }
            }
            if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
                integral = false
                at += 1
                if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
                guard digits(&self) > 0 else { throw fail("Invalid number") }
            }
            let text = String(decoding: bytes[start..<at], as: UTF8.self)
            if integral, let n = Int(text) { return n }
            guard let d = Double(text), d.isFinite else {
                at = start
                throw fail("Number not representable")
            }
            return d
        }
    }
}
