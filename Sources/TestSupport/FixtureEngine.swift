import ClockEngine
import TalkingClockCore

extension PackFacts {
    /// The fixture vocabulary as the engine sees a pack: every word of `FixturePack.fullVocabulary`,
    /// `clipFrames` frames a clip at 1 kHz mono. `bells`: the chime styles a single-strike chime
    /// rings (nil: no bells, and only `none` can be rung).
    public static func fixture(
        name: String = "fixture", bells: Set<ChimeStyle>? = [.none, .hour, .westminster, .shipsBells], clipFrames: Int = 50
    ) -> PackFacts {
        let format = StreamFormat(sampleRate: 1000, channels: 1)
        var frames: [String: Int] = [:]
        for word in FixturePack.fullVocabulary { frames[word] = clipFrames }
        var chimes: [ChimeStyle: PackFacts.Chime] = [:]
        for style in ChimeStyle.allCases {
            if style == .none {
                chimes[style] = .rings(nil)
            } else if (bells ?? []).contains(style) {
                chimes[style] = .rings(.singleStrike(bell: "chime", timing: ChimeTiming()))
            } else {
                chimes[style] = .cannot("pack '\(name)' has no bells for \(style.rawValue)")
            }
        }
        return PackFacts(
            name: name, location: "/fixture/\(name)", layout: PackLayout(format: format), clipFrames: frames, chimes: chimes)
    }
}

extension PackFacts {
    /// This pack with `texts` rendered (each `frames` long, at the id the daemon gives it), as the
    /// daemon's start or reload makes a reminder's words.
    public func rendering(_ texts: [String], frames: Int = 100) -> PackFacts {
        var facts = self
        for text in texts {
            let id = PackFacts.clipID(forText: text)
            facts.texts[text] = id
            facts.clipFrames[id] = frames
        }
        return facts
    }

    /// This pack with a recording for the reminder clip `path`.
    public func recording(_ path: String, frames: Int = 100) -> PackFacts {
        var facts = self
        facts.recordings[path] = "recording:" + path
        facts.clipFrames["recording:" + path] = frames
        return facts
    }

    /// This pack with every word of the dates and of the values in `units` of `language`.
    public func withDatesAndValues(language: String = "en-US", units: [ValueUnit] = [.degrees, .percent]) -> PackFacts {
        var facts = self
        let frames = facts.clipFrames.values.first ?? 50
        var words = SpokenLanguages.dateWords(of: language)
        for unit in units { words += SpokenLanguages.valueWords(of: language, unit: unit) }
        for word in words where facts.clipFrames[word] == nil { facts.clipFrames[word] = frames }
        return facts
    }
}
