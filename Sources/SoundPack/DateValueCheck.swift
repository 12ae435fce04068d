import TalkingClockCore

/// What `check` says of a pack's dates and values: whether it can say every date of a leap year
/// and every value of `SpokenLanguages.valueRange` in each unit of the language.
public struct DateValueReport: Sendable {
    /// One sentence per gap (the dates; each unit), naming the missing clips in the order they are
    /// first needed, and the fix. Empty when the pack says them all.
    public var gaps: [String]
    /// How many dates were tried, and whether the pack says them all.
    public var dates: Int
    public var saysDates: Bool
    /// How many values were tried in each unit, and the units whose values the pack says.
    public var valuesPerUnit: Int
    public var unitsSaid: [ValueUnit]

    /// The `ok:` line for what the pack says entirely: "all 366 dates of a leap year and 250
    /// values (-99 to 150) in degrees and in percent can be said (de)."; nil when it says none.
    public func summary(language: String) -> String? {
        var said: [String] = []
        if saysDates { said.append("all \(dates) dates of a leap year") }
        if !unitsSaid.isEmpty {
            let range = SpokenLanguages.valueRange
            said.append(
                "\(said.isEmpty ? "all " : "")\(valuesPerUnit) values (\(range.lowerBound) to \(range.upperBound)) "
                    + unitsSaid.map { "in \($0.rawValue)" }.joined(separator: " and "))
        }
        return said.isEmpty ? nil : said.joined(separator: " and ") + " can be said (\(language))."
    }
}

extension SoundPack {
    /// Proves the dates and values of `language` with the clips `available` (default: every clip
    /// of the pack). A gap is not a broken pack: the time needs none of these words, only a date or
    /// a value said with it does (`say --date`, `say --value`).
    ///
    /// The sentences keep the time's form ("cannot say N of M dates (TAG); missing words: a, b. Add
    /// a clip …"), so the pack tools can read the missing words from them as they do for the time.
    public func checkDatesAndValues(language: String, available: Set<String>? = nil) -> DateValueReport {
        let clips = available ?? clipIds
        let tag = SpokenLanguages.canonical(language) ?? language
        let units = SpokenLanguages.units(of: tag)
        var gaps: [String] = []
        let dates = Vocabulary.dateCoverage(available: clips, language: tag)
        if !dates.isComplete {
            gaps.append(gap(dates, what: "dates of a leap year", tag: tag, flag: "--dates", use: "say --date"))
        }
        var perUnit = 0
        var said: [ValueUnit] = []
        for unit in units {
            let coverage = Vocabulary.valueCoverage(available: clips, language: tag, unit: unit)
            perUnit = coverage.total
            if coverage.isComplete {
                said.append(unit)
            } else {
                gaps.append(
                    gap(coverage, what: "values in \(unit.rawValue)", tag: tag, flag: "--values", use: "say --value"))
            }
        }
        return DateValueReport(
            gaps: gaps, dates: dates.total, saysDates: dates.isComplete, valuesPerUnit: perUnit, unitsSaid: said)
    }

    func gap(_ coverage: Vocabulary.Coverage, what: String, tag: String, flag: String, use: String) -> String {
        // The first few phrases that need missing words, each with the words it is the first to need.
        var needs: [(need: Vocabulary.Coverage.Need, words: [String])] = []
        for (word, need) in zip(coverage.missing, coverage.firstNeeded) {
            if needs.last?.need == need {
                needs[needs.count - 1].words.append(word)
            } else {
                needs.append((need, [word]))
            }
        }
        let shown = needs.prefix(3).map { need, words in
            words.map { "'\($0)'" }.joined(separator: ", ") + " for \(need.label) (\"\(need.text)\")"
        }
        return
            "Sound pack '\(name)' cannot say \(coverage.unsayable) of \(coverage.total) \(what) (\(tag)); missing words: "
            + coverage.missing.joined(separator: ", ")
            + ". Add a clip with each id to \(directory.path)/\(PackManifest.fileName)"
            + "; first needed: " + shown.joined(separator: "; ") + (needs.count > 3 ? "; …" : "")
            + ". The time needs none of them, only \(use) does: "
            + RecordingScript.missingWordsFix(directory: directory.path, language: tag, flag: flag) + "."
    }
}
