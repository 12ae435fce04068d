// Phrases all 35,040 quarter-hours of a year in every shipped language and phrasing, and the same
// year with today's English `Phrase.forTime`, and prints the times side by side.
// Run with scripts/bench-phrases (a release build); not a test, so no figure depends on CI load.
import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import PhraseGrammar
import TalkingClockCore

let runs = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 9
let quarterHours = (0..<96).map { ($0 / 4, ($0 % 4) * 15) }
let days = 365
nonisolated(unsafe) var sink = 0

func best(_ f: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try f()
        let d = ContinuousClock.now - start
        times.append(Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15)
    }
    return times.min()!
}

func year(_ body: (Int, Int) throws -> Int) rethrows {
    for _ in 0..<days {
        for (h, m) in quarterHours { sink &+= try body(h, m) }
    }
}

func ms(_ x: Double) -> String { Format.fixed(x, 2) }
func ratio(_ x: Double, _ base: Double) -> String { Format.fixed(x / base, 2) + "×" }

let oldStyles: [(String, PhraseStyle)] = [
    ("12h", PhraseStyle(phrasing: .twelveHour)), ("24h", PhraseStyle(phrasing: .twentyFourHour)),
]
var oldWords: [String: Double] = [:]
var oldText: [String: Double] = [:]
for (name, style) in oldStyles {
    oldWords[name] = best { year { h, m in Phrase.forTime(hour: h, minute: m, style: style).words.count } }
    oldText[name] = best { year { h, m in Phrase.forTime(hour: h, minute: m, style: style).text.utf8.count } }
}
let base = oldText["12h"]!
let baseWords = oldWords["12h"]!

print(
    "35,040 quarter-hours (a year), best of \(runs) runs (the machine is shared: the minimum is the least disturbed), release build\n"
)
print("| engine | language | phrasing | load ms | words ms | words+text ms | vs today's en 12h (words / words+text) |")
print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
for (name, _) in oldStyles {
    print(
        "| Phrase.forTime (today) | en-US | \(name) | — | \(ms(oldWords[name]!)) | \(ms(oldText[name]!)) | \(ratio(oldWords[name]!, baseWords)) / \(ratio(oldText[name]!, base)) |"
    )
}
var worst = 0.0
for tag in Languages.shipped {
    let load = try best { sink &+= try Languages.grammar(tag).phrasings.count }
    let grammar = try Languages.grammar(tag)
    for phrasing in grammar.phrasings {
        let w = try best { try year { h, m in try grammar.words(hour: h, minute: m, phrasing: phrasing).count } }
        let t = try best {
            try year { h, m in try grammar.phrase(hour: h, minute: m, phrasing: phrasing).text.utf8.count }
        }
        worst = max(worst, t / base)
        print(
            "| PhraseGrammar | \(tag) | \(phrasing) | \(ms(load)) | \(ms(w)) | \(ms(t)) | \(ratio(w, baseWords)) / \(ratio(t, base)) |"
        )
    }
}
print("\nslowest words+text against today's en-US 12h words+text: \(ratio(worst, 1)) (limit 2×)")
if sink == 42 { print("") }
exit(worst <= 2 ? 0 : 1)
