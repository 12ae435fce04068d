import XCTest

@testable import TOML

final class TOMLTests: XCTestCase {
    private func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> TOMLTable? {
        do {
            return try TOML.parse(text)
        } catch {
            XCTFail("unexpected error: \(error)\n--- input ---\n\(text)", file: file, line: line)
            return nil
        }
    }

    private func parseError(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> TOMLError? {
        do {
            let table = try TOML.parse(text)
            XCTFail("expected an error, parsed \(table)\n--- input ---\n\(text)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Valid documents, value by value

    func testValidDocuments() {
        let cases: [(why: String, text: String, expected: TOMLTable)] = [
            ("empty document", "", [:]),
            ("only comments and blank lines", "# a\n\n   # b\n\t\n", [:]),
            ("bare keys with digits, dash, underscore", "a-b_1 = 1\n1234 = 2", ["a-b_1": 1, "1234": 2]),
            (
                "quoted keys, including dots and the empty key", #""a.b" = 1"# + "\n'x y' = 2\n\"\" = 3",
                ["a.b": 1, "x y": 2, "": 3]
            ),
            (
                "dotted keys with whitespace around the dots", "a . b.\"c\" = 1\na.d = 2",
                ["a": ["b": ["c": 1], "d": 2]]
            ),
            ("true is a valid bare key", "true = false", ["true": false]),
            (
                "basic string escapes", #"s = "tab\there \"q\" back\\slash\nnl \u00E9 \U0001F600 \b\f\r""#,
                ["s": .string("tab\there \"q\" back\\slash\nnl é 😀 \u{08}\u{0C}\r")]
            ),
            ("literal string keeps backslashes", #"s = 'C:\Users\x'"#, ["s": #"C:\Users\x"#]),
            ("multi-line basic: first newline trimmed", "s = \"\"\"\nline 1\nline 2\"\"\"", ["s": "line 1\nline 2"]),
            (
                "multi-line basic: line-ending backslash joins lines",
                "s = \"\"\"\\\n    The quick \\\n\n    fox.\\\n    \"\"\"", ["s": "The quick fox."]
            ),
            (
                "multi-line basic: one or two quotes before the closing three",
                "a = \"\"\"x\"\"\"\"\nb = \"\"\"x\"\"\"\"\"\nc = \"\"\"\"x\"\" \"\"\"",
                ["a": "x\"", "b": "x\"\"", "c": "\"x\"\" "]
            ),
            ("multi-line basic: CRLF becomes LF", "s = \"\"\"\r\na\r\nb\"\"\"\r\n", ["s": "a\nb"]),
            (
                "multi-line literal", "s = '''\nno \\escapes\n  here'''\nt = ''''x'''''",
                ["s": "no \\escapes\n  here", "t": "'x''"]
            ),
            (
                "decimal integers", "a = +99\nb = 42\nc = 0\nd = -17\ne = 1_000\nf = 5_349_221\ng = -0\nh = +0",
                ["a": 99, "b": 42, "c": 0, "d": -17, "e": 1000, "f": 5_349_221, "g": 0, "h": 0]
            ),
            (
                "64-bit limits", "a = 9223372036854775807\nb = -9223372036854775808",
                ["a": .integer(.max), "b": .integer(.min)]
            ),
            (
                "hex, octal, binary",
                "a = 0xDEADBEEF\nb = 0xdead_beef\nc = 0o01234567\nd = 0o755\ne = 0b11010110\nf = 0x00",
                ["a": 0xDEAD_BEEF, "b": 0xDEAD_BEEF, "c": 0o1234567, "d": 0o755, "e": 0b1101_0110, "f": 0]
            ),
            (
                "floats",
                "a = +1.0\nb = 3.1415\nc = -0.01\nd = 5e+22\ne = 1e06\nf = -2E-2\ng = 6.626e-34\nh = "
                    + "224_617.445_991_228",
                [
                    "a": 1.0, "b": 3.1415, "c": -0.01, "d": 5e22, "e": 1e6, "f": -0.02, "g": 6.626e-34,
                    "h": 224_617.445_991_228,
                ]
            ),
            (
                "infinities", "a = inf\nb = +inf\nc = -inf",
                ["a": .float(.infinity), "b": .float(.infinity), "c": .float(-.infinity)]
            ),
            ("booleans", "a = true\nb = false", ["a": true, "b": false]),
            (
                "offset date-times, T, t or space",
                "a = 1979-05-27T07:32:00Z\nb = 1979-05-27T00:32:00.999999-07:00\nc = 1979-05-27 07:32:00+05:30\nd = "
                    + "1979-05-27t07:32:00z",
                [
                    "a": .dateTime(
                        .init(
                            date: .init(year: 1979, month: 5, day: 27), time: .init(hour: 7, minute: 32),
                            offsetSeconds: 0)),
                    "b": .dateTime(
                        .init(
                            date: .init(year: 1979, month: 5, day: 27),
                            time: .init(hour: 0, minute: 32, second: 0, nanosecond: 999_999_000),
                            offsetSeconds: -7 * 3600)),
                    "c": .dateTime(
                        .init(
                            date: .init(year: 1979, month: 5, day: 27), time: .init(hour: 7, minute: 32),
                            offsetSeconds: 5 * 3600 + 1800)),
                    "d": .dateTime(
                        .init(
                            date: .init(year: 1979, month: 5, day: 27), time: .init(hour: 7, minute: 32),
                            offsetSeconds: 0)),
                ]
            ),
            (
                "local date-time, date, time; a leap day",
                "a = 1979-05-27T07:32:00\nb = 2024-02-29\nc = 07:32:00\nd = 00:32:00.5",
                [
                    "a": .dateTime(.init(date: .init(year: 1979, month: 5, day: 27), time: .init(hour: 7, minute: 32))),
                    "b": .dateTime(.init(date: .init(year: 2024, month: 2, day: 29))),
                    "c": .dateTime(.init(time: .init(hour: 7, minute: 32))),
                    "d": .dateTime(.init(time: .init(hour: 0, minute: 32, second: 0, nanosecond: 500_000_000))),
                ]
            ),
            (
                "a local time without seconds (TOML 1.1 relaxation)", "from = 22:00",
                ["from": .dateTime(.init(time: .init(hour: 22, minute: 0)))]
            ),
            (
                "a date followed by a comment is just a date", "d = 2024-01-02 # note",
                ["d": .dateTime(.init(date: .init(year: 2024, month: 1, day: 2)))]
            ),
            (
                "arrays: empty, nested, mixed types", "a = []\nb = [ [1, 2], [\"x\"] ]\nc = [1, \"two\", 3.0, {x = 1}]",
                ["a": [], "b": [[1, 2], ["x"]], "c": [1, "two", 3.0, ["x": 1]]]
            ),
            (
                "multi-line array with comments and a trailing comma",
                "days = [\n  \"sat\", # weekend\n  # more\n  \"sun\",\n]",
                ["days": ["sat", "sun"]]
            ),
            (
                "inline tables, nested and with dotted keys", "p = { x = 1, y.z = 2, q = { r = \"s\" } }\ne = {}",
                ["p": ["x": 1, "y": ["z": 2], "q": ["r": "s"]], "e": [:]]
            ),
            ("tables and sub-tables", "[a]\nx = 1\n[a.b]\ny = 2\n[c]", ["a": ["x": 1, "b": ["y": 2]], "c": [:]]),
            (
                "super-table defined after its sub-table", "[x.y.z]\na = 1\n[x]\nb = 2",
                ["x": ["y": ["z": ["a": 1]], "b": 2]]
            ),
            ("whitespace inside headers", "[ a . \"b c\" ]\nk = 1", ["a": ["b c": ["k": 1]]]),
            (
                "arrays of tables with sub-tables",
                "[[fruit]]\nname = \"apple\"\n[fruit.physical]\ncolor = \"red\"\n[[fruit.variety]]\nname = "
                    + "\"fuji\"\n[[fruit]]\nname = \"banana\"",
                [
                    "fruit": [
                        ["name": "apple", "physical": ["color": "red"], "variety": [["name": "fuji"]]],
                        ["name": "banana"],
                    ]
                ]
            ),
            (
                "a header may add a sub-table to a table made by dotted keys",
                "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = true",
                ["fruit": ["apple": ["color": "red", "taste": ["sweet": true], "texture": ["smooth": true]]]]
            ),
            ("CRLF line endings", "a = 1\r\n[t]\r\nb = 2\r\n", ["a": 1, "t": ["b": 2]]),
            ("a byte-order mark is ignored", "\u{FEFF}a = 1", ["a": 1]),
            ("tabs as whitespace and comments after values", "a\t=\t1\t# one\n[t] # table\n", ["a": 1, "t": [:]]),
            ("non-ASCII in strings and comments", "# café ☕\ns = \"grüß 日本\"", ["s": "grüß 日本"]),
        ]
        for c in cases {
            guard let table = parse(c.text) else { continue }
            XCTAssertEqual(table, c.expected, c.why)
        }
    }

    func testNaNIsAFloat() throws {
        for text in ["a = nan", "a = +nan", "a = -nan"] {
            guard case .float(let f) = try TOML.parse(text)["a"] else { return XCTFail(text) }
            XCTAssertTrue(f.isNaN, text)
        }
    }

    func testKeepsDocumentOrderAndPositions() throws {
        let text = """
            # header comment
            zeta = 1
              alpha = "x"
            "é" = 2   # 'é' is one column
            [[quiet]]
            from = "22:00"
            [[quiet]]
            \tto = "07:00"
            """
        let doc = try TOML.parse(text)
        XCTAssertEqual(doc.keys, ["zeta", "alpha", "é", "quiet"])
        XCTAssertEqual(doc.entry("zeta")?.position, TOMLPosition(line: 2, column: 1))
        XCTAssertEqual(doc.entry("alpha")?.position, TOMLPosition(line: 3, column: 3))
        XCTAssertEqual(doc.entry("é")?.position, TOMLPosition(line: 4, column: 1))
        XCTAssertEqual(doc.entry("quiet")?.position.line, 5)
        guard case .array(let windows) = doc["quiet"], windows.count == 2,
            case .table(let first) = windows[0], case .table(let second) = windows[1]
        else { return XCTFail("quiet should be an array of two tables") }
        XCTAssertEqual(first.position, TOMLPosition(line: 5, column: 1))
        XCTAssertEqual(second.position, TOMLPosition(line: 7, column: 1))
        XCTAssertEqual(first.entry("from")?.position, TOMLPosition(line: 6, column: 1))
        XCTAssertEqual(second.entry("to")?.position, TOMLPosition(line: 8, column: 2), "a tab is one column")
    }

    func testTableEqualityIgnoresOrderAndPosition() throws {
        XCTAssertEqual(try TOML.parse("a = 1\nb = 2"), try TOML.parse("\n\nb = 2\na = 1"))
        XCTAssertNotEqual(try TOML.parse("a = 1"), try TOML.parse("a = 2"))
        XCTAssertNotEqual(try TOML.parse("a = 1"), try TOML.parse("a = 1\nb = 1"))
        XCTAssertEqual(Set([try TOML.parse("a = 1\nb = 2"), try TOML.parse("b = 2\na = 1")]).count, 1)
    }

    // MARK: Errors: exact place and a useful message

    func testErrors() {
        let cases: [(why: String, text: String, line: Int, column: Int, message: String)] = [
            // Keys and structure
            ("duplicate key", "a = 1\nb = 2\na = 3", 3, 1, "duplicate key a: it is already defined at line 1"),
            (
                "duplicate via dotted key", "a.b = 1\na.b = 2", 2, 3,
                "duplicate key a.b: it is already defined at line 1"
            ),
            ("a value cannot become a table", "a = 1\na.b = 2", 2, 1, "a is already the integer 1 (line 1)"),
            ("table defined twice", "[a]\nx = 1\n[a]", 3, 1, "the table [a] is defined twice; the first is at line 1"),
            ("header over a key", "a = 1\n[a]", 2, 1, "a is already the integer 1 (line 1)"),
            (
                "header over a dotted-key table", "[fruit]\napple.color = \"red\"\n[fruit.apple]", 3, 1,
                "the table [fruit.apple] is already defined by dotted keys at line 2"
            ),
            (
                "dotted key into a table a header created", "[a.b.c]\nz = 9\n[a]\nb.c.t = 1", 4, 1,
                "cannot add to the table a.b with a dotted key, because a header at line 1 created it"
            ),
            (
                "dotted key into a table a header defined", "[a.b]\nz = 9\n[a]\nb.t = 1", 4, 1,
                "cannot add to the table a.b with a dotted key, because its [a.b] header at line 1 defines it"
            ),
            (
                "duplicate key names the table", "[t]\nk = 1\nk = 2", 3, 1,
                "duplicate key t.k: it is already defined at line 2"
            ),
            ("inline tables are closed", "a = {b = 1}\na.c = 2", 2, 1, "a is already a table (line 1)"),
            ("inline tables cannot get sub-tables", "a = {b = 1}\n[a.c]", 2, 2, "a is an inline table (line 1)"),
            ("static array vs [[ ]]", "a = [1]\n[[a]]", 2, 1, "a is already a static array (line 1)"),
            ("[[ ]] then [ ]", "[[a]]\n[a]", 2, 1, "a is an array of tables (line 1); write [[a]] to add an element"),
            ("[ ] then [[ ]]", "[a]\n[[a]]", 2, 1, "[[a]] cannot add to a: it is a table (line 1)"),
            (
                "dotted key into an array of tables", "[[t.arr]]\n[t]\narr.val = 1", 3, 1,
                "cannot add to t.arr with a dotted key: it is an array of tables"
            ),
            ("missing =", "volume 80", 1, 8, "expected '=' after the key volume, found '8'"),
            ("missing key", "= 1", 1, 1, "expected a key, found '='"),
            ("two pairs on a line", "a = 1 b = 2", 1, 7, "expected the end of the line after the value, found 'b'"),
            ("missing value at end of file", "a =", 1, 4, "expected a value, found the end of the file"),
            (
                "missing value at end of line", "a = \nb = 1", 1, 5,
                "expected a value after '=', found the end of the line"
            ),
            (
                "unquoted string", "mode = silent", 1, 8,
                "expected a value, found silent; strings must be quoted, like \"silent\""
            ),
            ("almost a boolean", "voice = tru", 1, 9, "strings must be quoted, like \"tru\""),
            ("multi-line string as key", "\"\"\"a\"\"\" = 1", 1, 1, "a key cannot be a multi-line string"),
            (
                "header not closed", "[a\nb = 1", 1, 3,
                "expected ']' to close the table header [a], found the end of the line"
            ),
            ("array header not closed", "[[a]\n", 1, 4, "expected ']]' to close the array-of-tables header [[a]]"),
            ("empty header", "[]", 1, 2, "expected a key, found ']'"),
            ("text after a header", "[a] b", 1, 5, "expected the end of the line after the table header, found 'b'"),
            // Strings
            (
                "unterminated basic string", "a = \"abc\nb = 1", 1, 5,
                "the string that starts here is not closed on its line"
            ),
            ("unterminated literal string", "a = 'abc", 1, 5, "the literal string that starts here is not closed"),
            (
                "unterminated multi-line string", "a = \"\"\"abc\n", 1, 5,
                "the multi-line string that starts here is never closed"
            ),
            (
                "unterminated multi-line literal", "a = '''abc", 1, 5,
                "the multi-line literal string that starts here is never closed"
            ),
            ("invalid escape", "a = \"x\\qy\"", 1, 7, "\\q is not a valid escape"),
            ("\\x is TOML 1.1, not 1.0", "a = \"\\x41\"", 1, 6, "\\x is not a valid escape"),
            ("short \\u", "a = \"\\u12\"", 1, 6, "\\u must be followed by 4 hexadecimal digits"),
            ("surrogate", "a = \"\\uD800\"", 1, 6, "\\uD800 is not a Unicode scalar value"),
            ("too many closing quotes", "a = \"\"\"x\"\"\"\"\"\"", 1, 9, "too many quotes"),
            (
                "control character in a string", "a = \"x\u{01}y\"", 1, 7,
                "strings cannot contain the control character U+0001"
            ),
            (
                "control character in a comment", "a = 1 # x\u{7F}", 1, 10,
                "comments cannot contain the control character U+007F"
            ),
            ("bare carriage return", "a = 1\rb = 2", 1, 6, "a carriage return must be followed by a line feed"),
            // Numbers
            ("leading zero", "a = 01", 1, 5, "01 is not a valid number: leading zeros are not allowed"),
            (
                "double underscore", "a = 1__0", 1, 5,
                "1__0 is not a valid number: an underscore must be between two digits"
            ),
            ("trailing underscore", "a = 1_", 1, 5, "an underscore must be between two digits"),
            ("integer overflow", "a = 9223372036854775808", 1, 5, "it does not fit in 64 bits"),
            ("hex overflow", "a = 0xFFFFFFFFFFFFFFFF", 1, 5, "it does not fit in 64 bits"),
            ("signed hex", "a = +0x10", 1, 5, "hexadecimal, octal and binary integers cannot have a sign"),
            ("bad octal digit", "a = 0o78", 1, 5, "'8' is not a base-8 digit"),
            ("empty hex", "a = 0x", 1, 5, "digits are missing"),
            ("point without fraction", "a = 1.", 1, 5, "a decimal point must be followed by digits"),
            ("point without integer", "a = .5", 1, 5, "a float needs a digit before the decimal point"),
            ("exponent without digits", "a = 1e", 1, 5, "an exponent needs digits"),
            ("number with a unit", "late-limit = 5s", 1, 14, "strings must be quoted, like \"5s\""),
            // Dates and times
            ("month 13", "a = 1979-13-01", 1, 5, "1979-13-01 is not a valid date: month 13 is outside 1…12"),
            ("not a leap year", "a = 2023-02-29", 1, 5, "2023-02 has 28 days"),
            ("hour 25", "a = 25:00:00", 1, 5, "hour 25 is outside 0…23"),
            ("minute 60", "a = 07:60", 1, 5, "minute 60 is outside 0…59"),
            ("bad offset", "a = 1979-05-27T07:32:00+7", 1, 5, "offsets are written Z, +HH:MM or -HH:MM"),
            // Arrays and inline tables
            ("array not closed", "a = [1, 2\n", 1, 5, "the array that starts here is never closed"),
            ("array without commas", "a = [1 2]", 1, 8, "expected ',' or ']' after an array element, found '2'"),
            (
                "empty array element", "a = [1,,2]", 1, 8,
                "expected a value (a string, number, boolean, date, array or inline table), found ','"
            ),
            ("inline table trailing comma", "a = {b = 1,}", 1, 12, "an inline table cannot have a trailing comma"),
            ("inline table over two lines", "a = {b = 1,\nc = 2}", 1, 12, "an inline table must be on one line"),
            ("duplicate key in inline table", "a = {b = 1, b = 2}", 1, 13, "duplicate key b"),
            ("comment in inline table", "a = {b = 1 # x\n}", 1, 12, "comments are not allowed inside an inline table"),
            (
                "columns count characters, not bytes", "\"é\" = 1 x", 1, 9,
                "expected the end of the line after the value, found 'x'"
            ),
        ]
        for c in cases {
            guard let error = parseError(c.text) else { continue }
            XCTAssertEqual(error.line, c.line, "\(c.why): line of \(error)")
            XCTAssertEqual(error.column, c.column, "\(c.why): column of \(error)")
            XCTAssertTrue(error.message.contains(c.message), "\(c.why): message was \"\(error.message)\"")
            XCTAssertEqual(error.description, "line \(error.line), column \(error.column): \(error.message)")
        }
    }

    /// Redefinitions that TOML 1.0 forbids (the cases toml-lang/toml#846 and the spec's examples settle).
    func testRedefinitionsAreRejected() {
        let cases: [(why: String, text: String, line: Int)] = [
            ("dotted keys cannot reach into a table a header defined", "[a.b.c.d]\nz = 9\n[a]\nb.c.d.k.t = 1", 4),
            (
                "inline tables are sealed, even by dotted keys inside another inline table",
                "tbl = { fruit = { apple.color = \"red\" }, fruit.apple.texture = { smooth = true } }", 1
            ),
            (
                "a key made a table by dotted keys cannot then be an inline table",
                "[product]\ntype.name = \"Nail\"\ntype = { edible = false }", 3
            ),
            (
                "a header cannot define a table dotted keys made",
                "[fruit]\napple.taste.sweet = true\n[fruit.apple.taste]", 3
            ),
            ("tables inside a static array cannot be extended", "a = [{ b = 1 }]\n[a.c]\nfoo = 1", 2),
            ("an array of tables cannot be redefined as a value", "[[a]]\n[b]\n[a.c]\nx = 1\n[a]", 5),
        ]
        for c in cases {
            XCTAssertEqual(parseError(c.text)?.line, c.line, c.why)
        }
        // …while these, close to them, are fine.
        XCTAssertNotNil(parse("[a.b.c]\nz = 9\n[a]\nd.e = 1"), "dotted keys may create new tables under [a]")
        XCTAssertNotNil(parse("[[a]]\n[a.b]\n[[a]]\n[a.b]"), "each element of an array of tables gets its own [a.b]")
        XCTAssertNotNil(parse("key= \"no space before =\"\nk =\"none after\""), "whitespace around = is optional")
    }

    func testInvalidNumbers() {
        let invalid = [
            "00", "0_0", "-01", "+01", "+0_1", "++99", "--99", "-0xff", "-0b1", "-0o7", "+0xff", "123_", "_123",
            "1__23", "0x_1", "0o_1", "0b_1", "0x1_", "0o1_", "0b1_", "0xaafz", "0o778", "0b0012", "0X1", "0O0", "0B0",
            "1.", ".1", "1.e5", "1e", "1e+", "1e_5", "1e5_", "1_.5", "1._5", "01.5", "1.5.5", "infinity", "NaN", "Inf",
        ]
        for text in invalid {
            XCTAssertNotNil(parseError("x = \(text)"), text)
        }
        let valid: [(String, TOMLValue)] = [
            ("3e01", 30.0), ("1e-05", 1e-5), ("0.0", 0.0), ("-0.0", -0.0), ("0e0", 0.0), ("1_0.0_1e1_0", 10.01e10),
            ("0x0", 0), ("0o0", 0), ("0b0", 0), ("0x7FFFFFFFFFFFFFFF", .integer(.max)),
        ]
        for (text, value) in valid {
            XCTAssertEqual(parse("x = \(text)")?["x"], value, text)
        }
    }

    func testDateRange() {
        XCTAssertEqual(parse("d = 0000-01-01")?["d"], .dateTime(.init(date: .init(year: 0, month: 1, day: 1))))
        XCTAssertEqual(
            parse("d = 9999-12-31 23:59:59Z")?["d"],
            .dateTime(
                .init(
                    date: .init(year: 9999, month: 12, day: 31), time: .init(hour: 23, minute: 59, second: 59),
                    offsetSeconds: 0)))
        XCTAssertNotNil(parse("d = 2000-02-29"), "2000 is a leap year")
        XCTAssertNotNil(parseError("d = 1900-02-29"), "1900 is not")
        XCTAssertNotNil(parseError("d = 2024-04-31"))
        XCTAssertNotNil(parseError("d = 2024-1-01"))
        XCTAssertNotNil(parseError("t = 12:00:00Z"), "a local time cannot have an offset")
    }

    func testNestingIsLimitedInsteadOfExhaustingTheStack() {
        let deepArray = "a = " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        XCTAssertTrue(parseError(deepArray)?.message.contains("nested more than 100 levels") ?? false)
        let deepTable = "a = " + String(repeating: "{b = ", count: 5_000) + "1" + String(repeating: "}", count: 5_000)
        XCTAssertTrue(parseError(deepTable)?.message.contains("100 levels") ?? false)
        let longHeader = "[" + Array(repeating: "k", count: 500).joined(separator: ".") + "]"
        XCTAssertTrue(parseError(longHeader)?.message.contains("more than 100 parts") ?? false)
        // Within the limit, deep structures still parse.
        let ok = "a = " + String(repeating: "[", count: 50) + String(repeating: "]", count: 50)
        XCTAssertNotNil(parse(ok))
    }

    func testValueDescriptions() {
        XCTAssertEqual(TOMLValue.string("lo\"ud\n").userDescription, #"the string "lo\"ud\n""#)
        XCTAssertEqual(TOMLValue.integer(150).userDescription, "the integer 150")
        XCTAssertEqual(TOMLValue.float(2.5).userDescription, "the float 2.5")
        XCTAssertEqual(TOMLValue.float(-.infinity).userDescription, "the float -inf")
        XCTAssertEqual(TOMLValue.boolean(true).userDescription, "the boolean true")
        XCTAssertEqual(TOMLValue.array([]).userDescription, "an empty array")
        XCTAssertEqual(TOMLValue.table([:]).userDescription, "a table")
        let time = TOMLValue.dateTime(.init(time: .init(hour: 22, minute: 0)))
        XCTAssertEqual(time.userDescription, "the local time 22:00:00")
        let offset = TOMLDateTime(
            date: .init(year: 1979, month: 5, day: 27),
            time: .init(hour: 0, minute: 32, second: 0, nanosecond: 999_000_000), offsetSeconds: -25200)
        XCTAssertEqual(offset.description, "1979-05-27T00:32:00.999-07:00")
        XCTAssertEqual(offset.kind, .offsetDateTime)
    }
}
