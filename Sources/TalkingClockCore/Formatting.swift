#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Number and path text without full Foundation (no ICU): the C library's own printf, so the digits
/// are byte-identical to what `String(format:)` printed before (the process never calls
/// `setlocale`, so the decimal point is always "."), and the parent of a path as NSString's
/// `deletingLastPathComponent` gave it.
public enum Format {
    /// `value` with exactly `digits` decimals, printf's `%.Nf` (rounded to nearest, ties as the C
    /// library rounds the exact binary value); `sign` adds "+" to values that are not negative
    /// (`%+.Nf`).
    public static func fixed(_ value: Double, _ digits: Int, sign: Bool = false) -> String {
        c(sign ? "%+.*f" : "%.*f", Int32(digits), value)
    }

    /// A printf-style format of C arguments (`%d`, `%f`, `%04x`, …): the C library's vsnprintf.
    public static func c(_ format: String, _ arguments: CVarArg...) -> String {
        withVaList(arguments) { first in
            var small = [CChar](repeating: 0, count: 64)
            let needed = Int(vsnprintf(&small, small.count, format, first))
            if needed < small.count { return text(small) }
            return withVaList(arguments) { again in
                var big = [CChar](repeating: 0, count: needed + 1)
                _ = vsnprintf(&big, big.count, format, again)
                return text(big)
            }
        }
    }

    private static func text(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The directory part of `path`, as NSString's `deletingLastPathComponent`: "/a/b" → "/a",
    /// "/a/b/" → "/a", "//a//b" → "/a", "/a" → "/", "/" → "/", "a" → "", "a/b" → "a".
    public static func parentDirectory(of path: String) -> String {
        var collapsed = ""
        for c in path where !(c == "/" && collapsed.hasSuffix("/")) { collapsed.append(c) }
        var p = Substring(collapsed)
        if p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        if p == "/" { return "/" }
        guard let slash = p.lastIndex(of: "/") else { return "" }
        return slash == p.startIndex ? "/" : String(p[..<slash])
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs: `trimmingCharacters(in: .whitespaces)`
    /// (Unicode space separators and U+0009, not newlines) without full Foundation.
    public func trimmingWhitespace() -> String {
        func blank(_ c: Character) -> Bool {
            c.unicodeScalars.allSatisfy { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

extension Format {
    /// Text from elsewhere (a broker, another room) made safe to print on one terminal line:
    /// control characters (C0, DEL, C1: escape sequences, newlines that would forge a line) and
    /// the bidirectional overrides that reorder what is shown are written as `\u{1B}`, so what
    /// the user sees is what was sent.
    public static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            let v = scalar.value
            let control = v < 0x20 || (0x7F...0x9F).contains(v)
            let bidi = (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F
            if control || bidi {
                out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
