import XCTest

@testable import PhraseGrammar

/// The date and value parts of the file format: templates over date and value quantities, table
/// forms that name forms of parts of a number, and mistakes refused by name.
final class DateValueFormatTests: XCTestCase {
    /// A minimal language with a date and values, `extra` merged into its top level.
    func file(
        tables: String = "", date: String = #"{"say": "{weekday.wd}, {day.n} {month.mo}"}"#,
        values: String = #"{"minus": "minus", "units": {"things": {"say": "{value.n} {value.thing}"}}}"#
    ) -> Data {
        Data(
            """
            {"tag": "xx", "phrasings": [{"name": "p", "clock": 24, "rules": [{"say": "{hour.n}"}]}],
             "display": {"wd1": "Wd1"},
             "tables": {"n": {"0-19": "small", "20-99": "big {mod10.n}", "100": "hundred", "101-150": "hundred {mod100.n}"},
                        "wd": {"1": "wd1", "2-7": "wd"}, "mo": {"1-12": "mo"}, "thing": {"1": "thing", "*": "things"}\(tables)},
             "date": \(date), "values": \(values)}
            """.utf8)
    }

    func testTemplatesAndPartsOfNumbers() throws {
        let custom = """
            {"tag": "xx", "phrasings": [{"name": "p", "clock": 24, "rules": [{"say": "{hour.n}"}]}],
             "display": {"monday": "Monday"},
             "tables": {"n": {"0-9": "digit", "10-19": "teen", "20-99": "{tens.t} {mod10.n}", "20,30,40,50,60,70,80,90": "{tens.t}",
                              "100": "hundred", "101-150": "hundred and {mod100.n}"},
                        "t": {"20-99": "ty"}, "wd": {"1": "monday", "2-7": "day"}, "mo": {"1-12": "month"},
                        "thing": {"1": "thing", "*": "things"}},
             "date": {"say": "{weekday.wd}, the {day.n} of {month.mo}"},
             "values": {"minus": "below zero", "units": {"things": {"say": "{value.n} {value.thing}"}}}}
            """
        let grammar = try Grammar(json: Data(custom.utf8), origin: "xx.json")
        XCTAssertEqual(grammar.units, ["things"])
        XCTAssertTrue(grammar.hasDate)
        let said = try grammar.datesAndValues()
        let monday = try said.date(weekday: 1, day: 23, month: 4)
        XCTAssertEqual(monday.text, "Monday, the ty digit of month", "a comma after a form is written, not said")
        XCTAssertEqual(monday.words, ["monday", "the", "ty", "digit", "of", "month"])
        XCTAssertEqual(try said.value(-1, unit: "things").text, "below zero digit thing", "agrees as 1")
        XCTAssertEqual(try said.value(121, unit: "things").text, "hundred and ty digit things")
        XCTAssertEqual(try said.value(130, unit: "things").text, "hundred and ty things")
        XCTAssertEqual(said.problems(), [])
    }

    func testMistakesAreRefusedByName() throws {
        let cases: [(Data, String)] = [
            (
                file(date: #"{"say": "{hour.n} {month.mo}"}"#),
                "date: \"{hour.n}\" is not {quantity.table}; its quantities are weekday, day, month"
            ),
            (
                file(values: #"{"minus": "m", "units": {"t": {"say": "{day.n}"}}}"#),
                "values.units.t: \"{day.n}\" is not {quantity.table}; its quantities are value"
            ),
            (file(values: #"{"units": {"t": {"say": "{value.n}"}}}"#), "\"values\" has units but no \"minus\""),
            (file(date: #"{"say": "{weekday.nope}"}"#), "date names table \"nope\", which the file does not define"),
            (file(date: #"{"say": "a,b {day.n}"}"#), "\"a,b\": a comma may only end a word or a {quantity.table}"),
            (
                file(tables: #", "loop": {"5": "{n.loop}"}"#, date: #"{"say": "{day.loop}"}"#),
                "table loop names itself in a loop"
            ),
            (
                file(tables: #", "bad": {"5": "{half.n}"}"#, date: #"{"say": "{day.bad}"}"#),
                "\"{half.n}\" is not {part.table}; the parts of a number are n, tens, mod10, mod100"
            ),
            (
                file(tables: #", "gone": {"5": "{n.nothere}"}"#, date: #"{"say": "{day.gone}"}"#),
                "table gone names table \"nothere\", which the file does not define"
            ),
            (
                file(tables: #", "half": {"5": "x{n.n}"}"#, date: #"{"say": "{day.half}"}"#),
                "table half: \"x{n.n}\" has a brace but is not {part.table}"
            ),
            (file(date: #"{"say": "{day.n}", "extra": 1}"#), "unknown key \"extra\""),
        ]
        for (data, expected) in cases {
            do {
                // The date and values compile when asked for (a time never pays for them).
                _ = try Grammar(json: data, origin: "xx.json").datesAndValues()
                XCTFail("accepted; expected: \(expected)")
            } catch {
                XCTAssertTrue("\(error)".contains(expected), "\(error)\nexpected: \(expected)")
                XCTAssertTrue("\(error)".hasPrefix("Language file xx.json"), "\(error)")
            }
        }
    }

    /// A value or a day a table has no form for is a problem the tests find, named with its table.
    func testGapsAreProblems() throws {
        let gappy = try Grammar(
            json: file(tables: #", "few": {"1-30": "d"}"#, date: #"{"say": "{day.few}"}"#), origin: "xx.json")
        let problems = try gappy.datesAndValues().problems()
        XCTAssertEqual(
            problems, ["xx date 1/31 (weekday 1): table \"few\" has no form for day = 31 (template \"{day.few}\")."])
        XCTAssertTrue(gappy.problems().contains(problems[0]))
    }

    /// A regional variant replaces the date, the minus word or a unit by name, and inherits the rest.
    func testVariantsReplaceByName() throws {
        let variant = Data(
            #"{"tag": "xx-YY", "base": "xx", "values": {"units": {"things": {"say": "{value.n} units"}}}}"#.utf8)
        let base = file()
        let grammar = try Grammar(json: variant, origin: "xx-YY.json") { $0 == "xx" ? base : nil }
        let said = try grammar.datesAndValues()
        XCTAssertEqual(try said.value(-2, unit: "things").text, "minus small units", "its unit, the base's minus")
        XCTAssertEqual(try said.date(weekday: 1, day: 2, month: 3).text, "Wd1, small mo", "the base's date")
    }
}
