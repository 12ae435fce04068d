import XCTest

@testable import PhraseGrammar

/// The file format: a regional variant is just a file, the embedded copies match the files, and
/// a mistake in a file or a request is refused with a message that names it.
final class PhraseGrammarFormatTests: XCTestCase {
    func fixture(_ name: String) throws -> Grammar {
        let url = fixturesDirectory.appendingPathComponent(name)
        return try Grammar(json: try Data(contentsOf: url), origin: name)
    }

    /// Austrian German is shipped as a file of differences: only the casual rules differ from de.
    func testAustrianGermanIsAFileOfDifferences() throws {
        let data = try Data(contentsOf: languagesDirectory.appendingPathComponent("de-AT.json"))
        let file = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(file["base"] as? String, "de")
        let tables = try XCTUnwrap(file["tables"] as? [String: Any])
        XCTAssertEqual(Set(tables.keys), ["monat"], "de's tables, inherited, but for the months: 'Jänner'")
        let grammar = try Languages.grammar("de-AT")
        XCTAssertEqual(grammar.tag, "de-AT")
        XCTAssertEqual(grammar.problems(), [])
        XCTAssertEqual(grammar.phrasings, ["casual", "24h"])
        let rows: [Row] = [
            row("15:15", "casual", "viertel vier", "tingroom: a quarter of the next hour"),
            row("15:45", "casual", "dreiviertel vier", "tingroom: three quarters of the next hour"),
            row("15:15", "24h", "fünfzehn Uhr fünfzehn", "de's 24h, inherited"),
            row("15:15", "casual", "es ist viertel vier", "de's lead-in, inherited", leadIn: "its"),
        ]
        for row in rows {
            XCTAssertEqual(
                try grammar.phrase(hour: row.hour, minute: row.minute, phrasing: row.phrasing, leadIn: row.leadIn).text,
                row.text, "\(row.hour):\(row.minute) \(row.why)")
        }
        // The quarter names the next hour: the property the shipped languages are held to.
        for h in 0..<24 {
            let (_, _, hours) = try grammar.explain(hour: h, minute: 15, phrasing: "casual")
            XCTAssertEqual(hours.map(\.hourOfDay), [(h + 1) % 24])
        }
    }

    /// A variant that is not shipped is a file too, and may be based on a variant: it inherits
    /// de-AT's casual and de's tables.
    func testAVariantOfAVariantLoadsFromAFile() throws {
        XCTAssertThrowsError(try Languages.grammar("de-AT-x-wien")) { error in
            XCTAssertEqual((error as? GrammarError)?.kind, .unknown)
        }
        let grammar = try fixture("de-AT-x-wien.json")
        XCTAssertEqual(grammar.problems(), [])
        XCTAssertEqual(try grammar.phrase(hour: 15, minute: 45).text, "dreiviertel vier")
        XCTAssertEqual(try grammar.phrase(hour: 1, minute: 0).text, "ein UHR")
    }

    /// Latin American Spanish: "cuarto para las cuatro" (RAE), not Spain's "las cuatro menos cuarto".
    func testLatinAmericanSpanishIsAFileOfDifferences() throws {
        let grammar = try Languages.grammar("es-419")
        XCTAssertEqual(grammar.problems(), [])
        XCTAssertEqual(try grammar.phrase(hour: 15, minute: 45).text, "un cuarto para las cuatro")
        XCTAssertEqual(
            try grammar.phrase(hour: 15, minute: 45, phrasing: "24h").text, "son las quince cuarenta y cinco",
            "es's 24h, inherited")
    }

    func testEmbeddedCopiesMatchTheLanguageFiles() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: languagesDirectory.path)
            .filter { $0.hasSuffix(".json") }
        XCTAssertEqual(Set(files.map { String($0.dropLast(5)) }), Set(Languages.shipped))
        for file in files {
            let text = try String(contentsOf: languagesDirectory.appendingPathComponent(file), encoding: .utf8)
            XCTAssertEqual(
                ShippedGrammars.json(String(file.dropLast(5))).map { $0 + "\n" }, text,
                "\(file) differs from its embedded copy: run scripts/embed-grammars")
        }
    }

    func testLanguageTagsAreMatchedWithoutCase() throws {
        XCTAssertEqual(try Languages.grammar("en-gb").tag, "en-GB")
        XCTAssertEqual(try Languages.grammar("DE").tag, "de")
    }

    func testUnknownRequestsNameWhatExists() throws {
        let cases: [(() throws -> Any, String)] = [
            (
                { try Languages.grammar("xx") },
                "Unknown language \"xx\"; the clock speaks: en-US, en-GB, de, de-AT, fr, es, es-419, it, nl, pl, ru."
            ),
            (
                { try Languages.grammar("de").words(hour: 1, minute: 0, phrasing: "12h") },
                "Language de has no phrasing \"12h\"; it has: casual, 24h."
            ),
            (
                { try Languages.grammar("es").words(hour: 1, minute: 0, leadIn: "its") },
                "Language es has no lead-in \"its\" (it has none)."
            ),
            (
                { try Languages.grammar("en-US").words(hour: 1, minute: 0, leadIn: "hello") },
                "Language en-US has no lead-in \"hello\" (it has: its, the-time-is)."
            ),
            (
                { try Languages.grammar("en-US").words(hour: 1, minute: 0, phrasing: "24h", options: ["noon"]) },
                "Phrasing 24h of en-US has no option \"noon\" (it has: midnight)."
            ),
        ]
        for (call, message) in cases {
            XCTAssertThrowsError(try call()) { error in
                XCTAssertEqual((error as? GrammarError)?.message, message)
                XCTAssertEqual((error as? GrammarError)?.kind, .unknown)
            }
        }
    }

    /// A minimal valid file, to break one thing at a time.
    static func file(
        tables: String = #""card": {"0-60": "n"}"#, rules: String = #"{"say": "{minute.card}"}"#, extra: String = ""
    ) -> Data {
        Data(
            #"{"tag": "xx", \#(extra) "tables": {\#(tables)}, "phrasings": [{"name": "p", "clock": 24, "rules": [\#(rules)]}]}"#
                .utf8)
    }

    func testBadFilesAreRefusedByName() throws {
        XCTAssertNoThrow(try Grammar(json: Self.file()))
        let cases: [(Data, String)] = [
            (Data("{".utf8), "is not valid JSON"),
            (Self.file(extra: #""phrasing": 1,"#), "unknown key \"phrasing\""),
            (Self.file(rules: #"{"minute": "0", "say": "x"}"#), "unknown key \"minute\""),
            (
                Self.file(rules: #"{"say": "{minute.cardinal}"}"#),
                "names table \"cardinal\", which the file does not define"
            ),
            (Self.file(rules: #"{"say": "{hours.card}"}"#), "is not {quantity.table}"),
            (Self.file(rules: #"{"say": "a{b"}"#), "has a brace"),
            (
                Self.file(rules: #"{"minutes": "0-60", "say": "x"}"#),
                "is not a list of numbers and ranges within 0...59"
            ),
            (Self.file(tables: #""card": {"1-5": "a", "3-7": "b"}"#), "keys \"1-5\" and \"3-7\" both give 3"),
            (Self.file(tables: #""card": {"noo": "a"}"#), "has key \"noo\""),
            (Self.file(tables: #""card": {"else": "other"}, "other": {"else": "card"}"#), "fall back in a loop"),
            (
                Self.file(tables: #""card": {"by": "count", "one": "a"}"#),
                "is by \"count\", which is not in \"classes\""
            ),
            (
                Self.file(extra: #""classes": {"count": [{"mod10": "1", "is": "one"}]},"#),
                "the last rule of a classifier must have no condition"
            ),
            (Self.file(extra: #""base": "zz","#), "based on \"zz\", which is not a known language"),
            (
                Self.file(extra: #""default": "casual","#),
                "the default phrasing \"casual\" is not one of its phrasings (p)"
            ),
            (
                Data(#"{"tag": "xx", "phrasings": [{"name": "p", "clock": 13, "rules": [{"say": "x"}]}]}"#.utf8),
                "\"clock\" must be 12 or 24"
            ),
        ]
        for (data, fragment) in cases {
            XCTAssertThrowsError(try Grammar(json: data, origin: "xx.json"), fragment) { error in
                let message = (error as? GrammarError)?.message ?? "\(error)"
                XCTAssertTrue(message.contains(fragment), "\(message) should contain \(fragment)")
                XCTAssertTrue(message.contains("xx.json") || message.contains("xx"), message)
            }
        }
    }

    /// Compiling succeeds for these; `problems()` says what the clock could not say.
    func testProblemsNameTheMinuteAndTheRule() throws {
        let gap = try Grammar(json: Self.file(rules: #"{"minutes": "0-58", "say": "{minute.card}"}"#))
        XCTAssertEqual(gap.problems().count, 24)
        XCTAssertEqual(gap.problems().first, "xx p has no rule for 00:59 (minute 59).")
        XCTAssertThrowsError(try gap.words(hour: 0, minute: 59)) {
            XCTAssertEqual(($0 as? GrammarError)?.kind, .noPhrase)
        }

        let shortTable = try Grammar(json: Self.file(tables: #""card": {"0-30": "n"}"#))
        XCTAssertEqual(shortTable.problems().count, 24 * 29)
        XCTAssertTrue(
            shortTable.problems()[0].contains("table \"card\" has no form for minute = 31"), shortTable.problems()[0])

        let dead = try Grammar(json: Self.file(rules: #"{"say": "a"}, {"minutes": "5", "say": "b"}"#))
        XCTAssertEqual(dead.problems(), ["xx p: rule 1 (\"b\") never applies"])
    }

    /// An empty form says nothing; the narrowest key wins; classes and fall-backs apply in order.
    func testTableLookupOrder() throws {
        let grammar = try Grammar(
            json: Self.file(
                tables:
                    #""card": {"*": "many", "1": "one", "1-9": "small", "5": ""}, "ru": {"by": "c", "one": "o", "few": "f", "many": "m", "12": "twelve"}"#,
                rules: #"{"minutes": "0-20", "say": "{minute.card} x"}, {"say": "{minute.ru}"}"#,
                extra:
                    #""classes": {"c": [{"mod100": "11-14", "is": "many"}, {"mod10": "1", "is": "one"}, {"mod10": "2-4", "is": "few"}, {"is": "many"}]},"#
            ))
        let said = { (m: Int) in try grammar.words(hour: 0, minute: m).joined(separator: " ") }
        XCTAssertEqual(try said(1), "one x")
        XCTAssertEqual(try said(3), "small x")
        XCTAssertEqual(try said(5), "x")
        XCTAssertEqual(try said(15), "many x")
        XCTAssertEqual(try said(21), "o")
        XCTAssertEqual(try said(23), "f")
        XCTAssertEqual(try said(25), "m")
        XCTAssertEqual(try said(31), "o")
    }
}
