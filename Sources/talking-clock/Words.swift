import ConfigFiles
import ArgumentParser
import FoundationEssentials
import TalkingClockCore

/// `talking-clock words`: what a pack of a language must hold, from the grammar itself, so that
/// the pack tools (scripts/make-pack) and a person recording a pack never re-implement it.
struct Words: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "words",
        abstract: "Print the words (clip ids) a language's phrasing says, or every phrase of the day.",
        discussion: """
            Without options: every word en-US's default phrasing can say in a day, one per line, in the order \
            the day first needs them (00:00 to 23:59, then the words only an option says, e.g. 24h \
            "midnight"). A pack whose clips have these ids can say every minute (check proves it). \
            --lead-in puts the lead-in's words first. --phrases prints every minute instead, \
            "HH:MM<TAB>word word ...", the words being clip ids: a unit of a pack (e.g. "quarter past") is \
            any run of words side by side on one line. --list-phrasings prints the language's phrasings, \
            the default first. Reads no config file and no pack. See docs/languages.md.
            """
    )

    @Option(help: "Language: \(SpokenLanguages.knownList) (default: en-US).", completion: .list(SpokenLanguages.known))
    var language: String = SpokenLanguages.defaultTag

    @Option(help: "\(Support.phrasingHelp) (default: the language's).")
    var phrasing: Phrasing?

    @Option(help: "A lead-in to include: its or the-time-is (default: none).")
    var leadIn: LeadIn = .none

    @Flag(help: "Print every minute's phrase as clip ids instead of the list of words.")
    var phrases = false

    @Flag(help: "Print the language's phrasings, the default first.")
    var listPhrasings = false

    func run() throws {
        try Support.checkLanguage(language)
        let tag = SpokenLanguages.canonical(language)!
        let phrasing = self.phrasing ?? SpokenLanguages.defaultPhrasing(of: tag)
        if listPhrasings {
            let all = SpokenLanguages.phrasings(of: tag)
            let first = SpokenLanguages.defaultPhrasing(of: tag)
            for p in [first] + all.filter({ $0 != first }) { print(p.rawValue) }
            return
        }
        if let problem = SpokenLanguages.problem(language: tag, phrasing: phrasing) {
            throw CLIError(.badInput, "--phrasing: \(problem)")
        }
        if let problem = SpokenLanguages.problem(language: tag, phrasing: phrasing, leadIn: leadIn) {
            throw CLIError(.badInput, "--lead-in: \(problem)")
        }
        if phrases {
            let style = PhraseStyle(language: tag, phrasing: phrasing, leadIn: leadIn)
            var out = ""
            for m in 0..<1440 {
                let words = Phrase.forTime(hour: m / 60, minute: m % 60, style: style).words
                let h = m / 60
                let minute = m % 60
                out += (h < 10 ? "0" : "") + "\(h):" + (minute < 10 ? "0" : "") + "\(minute)\t"
                out += words.joined(separator: " ") + "\n"
            }
            print(out, terminator: "")
            return
        }
        var words = SpokenLanguages.leadInWords(leadIn, in: tag) ?? []
        for word in SpokenLanguages.wordsInDayOrder(of: tag, phrasing: phrasing) where !words.contains(word) {
            words.append(word)
        }
        print(words.joined(separator: "\n"))
    }
}

extension LeadIn: ExpressibleByArgument {}
