import Foundation
import TalkingClockCore

/// The result of `talking-clock check`: every problem, each as a sentence.
public struct PackReport: Sendable {
    public var problems: [PackError]
    public var clipCount: Int
    public var minutesChecked: Int

    public var isValid: Bool { problems.isEmpty }
}

extension SoundPack {
    /// Decodes every clip and proves that every minute of the day can be said in each phrasing
    /// the user may choose, and that the top-of-hour chime exists.
    public func check(styles: [PhraseStyle] = [PhraseStyle(phrasing: .twelveHour)]) -> PackReport {
        var problems: [PackError] = []
        for id in manifest.clips.keys.sorted() {
            do throws(PackError) { _ = try audio(id) } catch { problems.append(error) }
        }
        var minutes = 0
        for style in styles {
            let failures = Vocabulary.unsayableMinutes(available: clipIds, style: style)
            minutes += 1440
            // One message per missing word, with the first time that needs it.
            var seen = Set<String>()
            for (minute, error) in failures where seen.insert(error.word).inserted {
                let time = "\(pad2(minute / 60)):\(pad2(minute % 60))"
                problems.append(
                    PackError(
                        .vocabulary, clip: error.word,
                        "Sound pack '\(name)' cannot say \(time) in \(style.phrasing.rawValue) style: \(error.description)"))
            }
        }
        return PackReport(problems: problems, clipCount: manifest.clips.count, minutesChecked: minutes)
    }
}

private func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
