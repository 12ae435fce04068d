import JSON
import FoundationEssentials

/// A language file as written (Languages/README.md describes the format), before its base is
/// merged in and before it is compiled. Parsing is strict: an unknown key is an error, so a typo
/// in a rule cannot silently change what the clock says.
struct GrammarFile {
    struct ClassRule {
        var values: NumberSet?
        var mod10: NumberSet?
        var mod100: NumberSet?
        var name: String

        func matches(_ n: Int) -> Bool {
            (values?.contains(n) ?? true) && (mod10?.contains(n % 10) ?? true) && (mod100?.contains(n % 100) ?? true)
        }
    }

    struct Table {
        /// Number sets (written "3", "2-4", "5,10,20") and their words.
        var numbered: [(set: NumberSet, key: String, words: [String])] = []
        /// "noon", "midnight", class names and "*".
        var named: [String: [String]] = [:]
        /// The classifier whose class names are keys of `named`.
        var by: String?
        /// The table asked when this one has no form.
        var fallback: String?
    }

    struct Rule {
        var minutes: NumberSet?
        var hours: NumberSet?
        var option: String?
        var say: String
    }

    struct Phrasing {
        var name: String
        var clock: Int
        var rules: [Rule]
    }

    /// How numbers are said with a unit: the word said before a negative number, and one
    /// template per unit over the number's absolute value (`{value.TABLE}`).
    struct Values {
        var minus: String?
        var units: [String: String] = [:]
    }

    var tag: String
    var name: String?
    var base: String?
    var defaultPhrasing: String?
    var leadIns: [String: [String]] = [:]
    var display: [String: String] = [:]
    var classes: [String: [ClassRule]] = [:]
    var tables: [String: Table] = [:]
    var phrasings: [Phrasing] = []
    /// The template of a date (`{weekday.T}`, `{day.T}`, `{month.T}`), nil when the file says none.
    var date: String?
    var values = Values()

    /// This file over `base`: every table, class, lead-in, display form and phrasing the file
    /// names replaces the base's one of that name (its date template, the minus word and each
    /// unit too); the rest is the base's.
    func merged(over base: GrammarFile) -> GrammarFile {
        var result = base
        result.tag = tag
        result.name = name ?? base.name
        result.base = nil
        result.defaultPhrasing = defaultPhrasing ?? base.defaultPhrasing
        result.leadIns.merge(leadIns) { $1 }
        result.display.merge(display) { $1 }
        result.classes.merge(classes) { $1 }
        result.tables.merge(tables) { $1 }
        result.date = date ?? base.date
        result.values.minus = values.minus ?? base.values.minus
        result.values.units.merge(values.units) { $1 }
        for phrasing in phrasings {
            if let i = result.phrasings.firstIndex(where: { $0.name == phrasing.name }) {
                result.phrasings[i] = phrasing
            } else {
                result.phrasings.append(phrasing)
            }
        }
        return result
    }
}

// MARK: - Parsing

extension GrammarFile {
    /// The words of a form written "es ist": split at spaces.
    static func words(_ text: String) -> [String] {
        text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    }

    static func parse(_ data: Data, origin: String) throws(GrammarError) -> GrammarFile {
        let object: Any
        do {
            object = try JSONTree.parse(data)
        } catch {
            throw GrammarError(.badFile, "Language file \(origin) is not valid JSON (\(error.description)).")
        }
        var reader = Reader(origin: origin)
        return try reader.file(object)
    }
}

/// Walks the JSON tree keeping the path for error messages ("de.json: tables.card.7: …").
private struct Reader {
    let origin: String
    var path: [String] = []

    func fail(_ what: String) -> GrammarError {
        let at = path.isEmpty ? "" : " at \(path.joined(separator: "."))"
        return GrammarError(
            .badFile, "Language file \(origin)\(at): \(what) (see Sources/PhraseGrammar/Languages/README.md).")
    }

    func object(_ value: Any, allowed: Set<String>) throws(GrammarError) -> [String: Any] {
        guard let dict = value as? [String: Any] else { throw fail("expected an object") }
        if let unknown = dict.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw fail("unknown key \"\(unknown)\"; allowed: \(allowed.sorted().joined(separator: ", "))")
        }
        return dict
    }

    func string(_ value: Any?, _ key: String) throws(GrammarError) -> String {
        guard let s = value as? String else { throw fail("\"\(key)\" must be a string") }
        return s
    }

    mutating func file(_ value: Any) throws(GrammarError) -> GrammarFile {
        let keys: Set = [
            "tag", "name", "base", "default", "sources", "notes", "leadIns", "display", "classes", "tables",
            "phrasings", "date", "values",
        ]
        let dict = try object(value, allowed: keys)
        let tag = try string(dict["tag"], "tag")
        guard !tag.isEmpty else { throw fail("\"tag\" is empty") }
        var file = GrammarFile(tag: tag)
        if let name = dict["name"] { file.name = try string(name, "name") }
        if let base = dict["base"] { file.base = try string(base, "base") }
        if let def = dict["default"] { file.defaultPhrasing = try string(def, "default") }
        if let sources = dict["sources"], !(sources is [String]) { throw fail("\"sources\" must be a list of strings") }
        if let notes = dict["notes"], !(notes is [String]) { throw fail("\"notes\" must be a list of strings") }
        if let leadIns = dict["leadIns"] {
            path = ["leadIns"]
            for (name, words) in try names(leadIns) {
                file.leadIns[name] = Self.words(try string(words, name))
            }
        }
        if let display = dict["display"] {
            path = ["display"]
            for (word, shown) in try names(display) { file.display[word] = try string(shown, word) }
        }
        if let classes = dict["classes"] {
            path = ["classes"]
            for (name, list) in try names(classes) {
                path = ["classes", name]
                file.classes[name] = try classRules(list)
            }
        }
        if let tables = dict["tables"] {
            path = ["tables"]
            for (name, table) in try names(tables) {
                path = ["tables", name]
                file.tables[name] = try self.table(table)
            }
        }
        if let phrasings = dict["phrasings"] {
            path = ["phrasings"]
            guard let list = phrasings as? [Any] else { throw fail("\"phrasings\" must be a list") }
            for (i, p) in list.enumerated() {
                path = ["phrasings", "\(i)"]
                let phrasing = try self.phrasing(p)
                if file.phrasings.contains(where: { $0.name == phrasing.name }) {
                    throw fail("phrasing \"\(phrasing.name)\" is defined twice")
                }
                file.phrasings.append(phrasing)
            }
        }
        if let date = dict["date"] {
            path = ["date"]
            let d = try object(date, allowed: ["say", "why"])
            file.date = try string(d["say"], "say")
        }
        if let values = dict["values"] {
            path = ["values"]
            let v = try object(values, allowed: ["minus", "units", "why"])
            if let minus = v["minus"] { file.values.minus = try string(minus, "minus") }
            if let units = v["units"] {
                for (name, unit) in try names(units) {
                    path = ["values", "units", name]
                    let u = try object(unit, allowed: ["say", "why"])
                    file.values.units[name] = try string(u["say"], "say")
                }
            }
        }
        path = []
        return file
    }

    /// An object whose keys are names the file chooses (tables, classes, words).
    func names(_ value: Any) throws(GrammarError) -> [String: Any] {
        guard let dict = value as? [String: Any] else { throw fail("expected an object") }
        return dict
    }

    static func words(_ text: String) -> [String] { GrammarFile.words(text) }

    func numberSet(_ value: Any?, _ key: String, range: ClosedRange<Int>) throws(GrammarError) -> NumberSet? {
        guard let value else { return nil }
        let text: String
        if let n = value as? Int, !(value is Bool) {
            text = String(n)
        } else {
            text = try string(value, key)
        }
        guard let set = NumberSet(text, range: range) else {
            throw fail(
                "\"\(key)\": \"\(text)\" is not a list of numbers and ranges within \(range) (e.g. \"0\", \"1-14\", \"5,10,20\")"
            )
        }
        return set
    }

    mutating func classRules(_ value: Any) throws(GrammarError) -> [GrammarFile.ClassRule] {
        guard let list = value as? [Any] else { throw fail("a classifier is a list of {\"is\": …} rules") }
        var rules: [GrammarFile.ClassRule] = []
        for (i, item) in list.enumerated() {
            path.append("\(i)")
            let dict = try object(item, allowed: ["values", "mod10", "mod100", "is", "why"])
            rules.append(
                GrammarFile.ClassRule(
                    values: try numberSet(dict["values"], "values", range: 0...99),
                    mod10: try numberSet(dict["mod10"], "mod10", range: 0...9),
                    mod100: try numberSet(dict["mod100"], "mod100", range: 0...99),
                    name: try string(dict["is"], "is")))
            path.removeLast()
        }
        guard rules.last.map({ $0.values == nil && $0.mod10 == nil && $0.mod100 == nil }) == true else {
            throw fail("the last rule of a classifier must have no condition, so that every number has a class")
        }
        return rules
    }

    func table(_ value: Any) throws(GrammarError) -> GrammarFile.Table {
        guard let dict = value as? [String: Any] else { throw fail("a table is an object of number → words") }
        var table = GrammarFile.Table()
        for (key, words) in dict.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "by": table.by = try string(words, key)
            case "else": table.fallback = try string(words, key)
            case "why": _ = try string(words, key)
            default:
                let text = try string(words, key)
                if key.first?.isNumber == true {
                    guard let set = NumberSet(key, range: 0...Grammar.largestNumber) else {
                        throw fail(
                            "key \"\(key)\" is not a list of numbers and ranges within 0...\(Grammar.largestNumber)")
                    }
                    table.numbered.append((set, key, Self.words(text)))
                } else {
                    table.named[key] = Self.words(text)
                }
            }
        }
        return table
    }

    mutating func phrasing(_ value: Any) throws(GrammarError) -> GrammarFile.Phrasing {
        let dict = try object(value, allowed: ["name", "clock", "rules", "why"])
        let name = try string(dict["name"], "name")
        path[path.count - 1] = name
        guard let clock = dict["clock"] as? Int, clock == 12 || clock == 24 else {
            throw fail("\"clock\" must be 12 or 24")
        }
        guard let list = dict["rules"] as? [Any], !list.isEmpty else {
            throw fail("\"rules\" must be a non-empty list")
        }
        var rules: [GrammarFile.Rule] = []
        for (i, item) in list.enumerated() {
            path.append("rules.\(i)")
            let rule = try object(item, allowed: ["minutes", "hours", "if", "say", "why"])
            rules.append(
                GrammarFile.Rule(
                    minutes: try numberSet(rule["minutes"], "minutes", range: 0...59),
                    hours: try numberSet(rule["hours"], "hours", range: 0...23),
                    option: try rule["if"].map { (v) throws(GrammarError) in try string(v, "if") },
                    say: try string(rule["say"], "say")))
            path.removeLast()
        }
        return GrammarFile.Phrasing(name: name, clock: clock, rules: rules)
    }
}

/// A set of small numbers written "7", "1-14" or "5,10,20,25" (ranges and single numbers,
/// comma-separated).
struct NumberSet: Equatable {
    var members: [Bool]

    init?(_ text: String, range: ClosedRange<Int>) {
        members = Array(repeating: false, count: range.upperBound + 1)
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        for part in parts {
            let bounds = trimmed(part).split(
                separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let lo = Int(bounds[0]), let hi = Int(bounds.last!),
                range.contains(lo), range.contains(hi), lo <= hi
            else { return nil }
            for n in lo...hi { members[n] = true }
        }
    }

    func contains(_ n: Int) -> Bool { n >= 0 && n < members.count && members[n] }
    var count: Int { members.lazy.filter { $0 }.count }
}

/// `text` without leading and trailing spaces and tabs (trimmingCharacters(in: .whitespaces) is
/// not in FoundationEssentials).
private func trimmed(_ text: Substring) -> Substring {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else {
        return text[text.endIndex...]
    }
    return text[first...last]
}
