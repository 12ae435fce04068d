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
