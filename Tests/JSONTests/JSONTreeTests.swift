import Foundation
import XCTest

@testable import JSON

/// JSONTree replaces JSONSerialization (full Foundation only) for language files, pack manifests and
/// the state file: the same tree for valid JSON, a refusal with a place for invalid JSON.
final class JSONTreeTests: XCTestCase {
    func testValidDocumentsGiveJSONSerializationsTree() throws {
        let documents = [
            #"{"a": [1, -2, 3.5, 1e3, -0.25e-2, true, false, null, "x"], "b": {"c": {}}, "d": []}"#,
            #"["\"\\\/\b\f\n\r\t", "\u00e9\u4e2d\ud83d\ude00", "caf\#u{e9} 😀", "", " "]"#,
            #"{"a": [1, 2,], "b": {"c": 1,},}"#,  // trailing commas: JSONSerialization takes them too
            #"  {"tag": "en-US", "tables": {"card": {"0": "oh", "1-9": "x"}}}  "#,
            "[9223372036854775807, -9223372036854775808, 9223372036854775808, 0, -0, 0.5]",
            "\"top-level string\"", "42", "true", "null",
        ]
        for text in documents {
            let ours = try JSONTree.parse(Data(text.utf8))
            let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            XCTAssertEqual(normalize(ours), normalize(theirs), text)
        }
        let tree = try XCTUnwrap(try JSONTree.parse(Data(#"{"n": 7, "f": 7.5, "b": true}"#.utf8)) as? [String: Any])
        XCTAssertEqual(tree["n"] as? Int, 7)
        XCTAssertNil(tree["f"] as? Int)
        XCTAssertTrue(tree["b"] is Bool)
        XCTAssertNil(tree["b"] as? Int)
    }

    func testInvalidDocumentsAreRefusedWithAPlace() {
        let cases: [(String, String)] = [
            ("{\"format\": 1,\n  \"name\": }", "Invalid value around character 24."),
            ("", "Unexpected end of file during JSON parse."),
            ("{", "Unexpected end of file during JSON parse."),
            ("[1, 2", "Unexpected end of file during JSON parse."),
            ("not json at all", "Invalid value around character 0."),
            (#"{"a": 1,,}"#, "Invalid value around character 8."),
            ("[1,,]", "Invalid value around character 3."),
            ("[,]", "Invalid value around character 1."),
            ("[01]", "Number with leading zero around character 1."),
            (#"{"a" 1}"#, "Invalid value around character 5."),
            (#"{"a": 1 "b": 2}"#, "Badly formed object around character 8."),
            ("[1 2]", "Badly formed array around character 3."),
            ("{} x", "Garbage at end around character 3."),
            (#"["a\qb"]"#, "Invalid escape sequence around character 3."),
            (#"["\u12G4"]"#, "Invalid hex encoded sequence around character 6."),
            ("[\"a\u{1}\"]", "Unescaped control character around character 3."),
            ("[1.]", "Invalid number around character 3."),
            ("[tru]", "Invalid value around character 1."),
            ("[1e999]", "Number not representable around character 1."),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try JSONTree.parse(Data(text.utf8)), text) { error in
                XCTAssertEqual((error as? JSONTree.SyntaxError)?.description, message, text)
            }
            XCTAssertThrowsError(
                try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
                "JSONSerialization refuses \(text) too")
        }
        XCTAssertThrowsError(try JSONTree.parse([0x5B, 0x22, 0xFF, 0x22, 0x5D]))  // ["\xFF"]: not UTF-8
        XCTAssertThrowsError(try JSONTree.parse(Array(repeating: UInt8(ascii: "["), count: 600)))
    }

    /// A key written twice: JSONSerialization keeps the last value, FoundationEssentials'
    /// JSONDecoder the first (pack manifests keep reading as they did with it).
    func testADuplicateKeyKeepsTheLastOrOnRequestTheFirst() throws {
        let text = #"{"a": 1, "b": {"c": "x", "c": "y"}, "a": 2}"#
        let last = try XCTUnwrap(try JSONTree.parse(Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(last["a"] as? Int, 2)
        XCTAssertEqual((last["b"] as? [String: Any])?["c"] as? String, "y")
        let first = try XCTUnwrap(try JSONTree.parse(Data(text.utf8), duplicateKeys: .keepFirst) as? [String: Any])
        XCTAssertEqual(first["a"] as? Int, 1)
        XCTAssertEqual((first["b"] as? [String: Any])?["c"] as? String, "x")
        let theirs = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(normalize(theirs), normalize(last))
    }

    /// A comparable form: numbers and booleans as Double (JSONSerialization gives NSNumber for
    /// both), null as a marker, keys sorted.
    private func normalize(_ value: Any) -> String {
        if value is JSONTree.Null || value is NSNull { return "null" }
        if let s = value as? String { return "s:" + s }
        if type(of: value) == Bool.self, let b = value as? Bool { return "n:\(b ? 1.0 : 0.0)" }
        if let n = value as? NSNumber { return "n:\(n.doubleValue)" }
        if let i = value as? Int { return "n:\(Double(i))" }
        if let d = value as? Double { return "n:\(d)" }
        if let a = value as? [Any] { return "[" + a.map(normalize).joined(separator: ",") + "]" }
        if let o = value as? [String: Any] {
            return "{" + o.keys.sorted().map { "\($0)=\(normalize(o[$0]!))" }.joined(separator: ",") + "}"
        }
        return "?\(type(of: value))"
    }
}
