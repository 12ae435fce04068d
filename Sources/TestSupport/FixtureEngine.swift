import ClockEngine
import TalkingClockCore

extension PackFacts {
    /// The fixture vocabulary as the engine sees a pack: every word of `FixturePack.fullVocabulary`,
    /// 50 frames a clip at 1 kHz mono. `bells`: a single-strike chime that rings `chimes` (nil: no
    /// bells, and only `none` can be rung).
    public static func fixture(
        name: String = "fixture", bells: Set<ChimeStyle>? = [.none, .hour, .westminster, .shipsBells]
    ) -> PackFacts {
        let available = Set(FixturePack.fullVocabulary)
        let format = StreamFormat(sampleRate: 1000, channels: 1)
        let pattern: ChimePattern? = bells == nil ? nil : .singleStrike(bell: "chime", timing: ChimeTiming())
        return PackFacts(
            name: name,
            plan: { hour, minute, style in
                let plan = try AnnouncementPlan.make(hour: hour, minute: minute, style: style, pattern: pattern, available: available)
                let timeline = Timeline.compose(chime: plan.chime, voice: plan.voiceClips, spacing: Spacing(), format: format) { _ in 50 }
                return PackFacts.Planned(plan: plan, timeline: timeline)
            },
            chimeProblem: { style in
                (bells ?? [.none]).contains(style) ? nil : "pack '\(name)' has no bells for \(style.rawValue)"
            })
    }
}
