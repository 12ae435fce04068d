import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import TalkingClockCore

/// The result of `talking-clock check`: every problem, each as a sentence.
public struct PackReport: Sendable {
    public var problems: [PackError]
    public var clipCount: Int
    public var minutesChecked: Int

    public var isValid: Bool { problems.isEmpty }
}

extension SoundPack {
    /// The phrasings `check` proves: each the pack declares, then `configured` if it is not one
    /// of them (a pack that declares none is proved in the configured phrasing only).
    public func phrasingsToCheck(configured: Phrasing) -> [Phrasing] {
        let declared = manifest.phrasings ?? []
        return declared.contains(configured) ? declared : declared + [configured]
    }

    /// Refuses to speak `language` with a pack of another language.
    public func requireLanguage(_ language: String) throws(PackError) {
        let wanted = SpokenLanguages.canonical(language) ?? language
        // A pack of the base language speaks a regional variant (its words are the base's words;
        // `check --language de-AT` proves the variant's phrases).
        guard !SpokenLanguages.packSpeaks(manifest.language, for: wanted) else { return }
        throw PackError(
            .language,
            "Sound pack '\(name)' (\(directory.path)) speaks \(manifest.language), but the configured language is \(wanted); "
                + "choose a pack that speaks \(wanted) with 'pack' (or --pack), or set language = \"\(manifest.language)\" (or --language \(manifest.language)).")
    }

    /// Decodes every clip and proves that every minute of the day can be said in each phrasing
    /// the user may choose: every broken clip is a problem of its own, and the words the pack
    /// cannot say (with the clips that decode) are one problem per phrasing, listed together.
    public func check(styles: [PhraseStyle] = [PhraseStyle(phrasing: .twelveHour)]) -> PackReport {
        var problems: [PackError] = []
        var working = Set<String>()
        for id in manifest.clips.keys.sorted() {
            do throws(PackError) {
                _ = try audio(id)
                working.insert(id)
            } catch {
                problems.append(error)
            }
        }
        problems += unknownBells()
        var minutes = 0
        for style in styles {
            minutes += 1440
            if let gap = vocabularyGap(available: working, style: style) { problems.append(gap) }
        }
        return PackReport(problems: problems, clipCount: manifest.clips.count, minutesChecked: minutes)
    }

    /// Each bell that `"bells"` or a spelled-out pattern names but `"clips"` does not list: the
    /// chime that rings it would fail at the boundary, so `check` refuses the pack now.
    func unknownBells() -> [PackError] {
        var named: [(key: String, bell: String)] = []
        if let bells = manifest.bells {
            for (i, bell) in (bells.quarter ?? []).enumerated() { named.append(("bells.quarter[\(i)]", bell)) }
            if let hour = bells.hour { named.append(("bells.hour", hour)) }
            if let ship = bells.ship { named.append(("bells.ship", ship)) }
        }
        for style in manifest.chimes.patterns.keys.sorted() {
            for bell in manifest.chimes.patterns[style]!.bells.sorted() {
                named.append(("chimes.patterns.\(style)", bell))
            }
        }
        return named.filter { !clipIds.contains($0.bell) }.map { key, bell in
            PackError(
                .vocabulary, clip: bell,
                "Sound pack '\(name)': \"\(key)\" names bell '\(bell)', which is not in \"clips\" of "
                    + "\(directory.path)/\(PackManifest.fileName); add a clip with that id or fix the bell's id.")
        }
    }

    /// "cannot say 1380 of 1440 minutes in 12h style; missing words: fifteen, forty-five, pm. …",
    /// the words in the order the day first needs them; nil when every minute can be said.
    ///
    /// A minute counts as said when its phrase has a cover (`Vocabulary.cover`): each word a clip
    /// of its own or inside a unit the pack holds. The missing words are those of unsayable minutes
    /// that have no clip of their own, so a word the pack only ever says inside units ("une" in
    /// "une heure") is not listed, and a word a unit covers in some phrases but not in others is.
    func vocabularyGap(available: Set<String>, style: PhraseStyle) -> PackError? {
        var missing: [VocabularyError] = []
        var listed = Set<String>()
        var unsayable = 0
        var single: [String: Bool] = [:]
        var firstNeed: [String] = []
        for m in 0..<1440 {
            let phrase = Phrase.forTime(hour: m / 60, minute: m % 60, style: style)
            do throws(VocabularyError) {
                _ = try Vocabulary.cover(phrase, available: available)
                continue
            } catch {}
            unsayable += 1
            // Some word has no clip of its own (else the word-by-word cover would exist).
            for word in phrase.words {
                if single[word] == nil {
                    single[word] = Vocabulary.single(word, phrase: phrase, available: available) != nil
                }
                if single[word] == false, listed.insert(word).inserted {
                    missing.append(Vocabulary.missing(word, phrase: phrase))
                    firstNeed.append("'\(word)' at \(clock(m)) (\"\(phrase.text)\")")
                }
            }
        }
        guard unsayable > 0 else { return nil }
        var message =
            "Sound pack '\(name)' cannot say \(unsayable) of 1440 minutes in \(style.phrasing.rawValue) style"
            + (style.language == SpokenLanguages.defaultTag ? "" : " (\(style.language))")
        message +=
            "; missing words: " + missing.map(\.word).joined(separator: ", ")
            + ". Add a clip with each id to \(directory.path)/\(PackManifest.fileName)"
        // `tried` is [word] or [compound, "forty' + 'five"]: a compound may also be composed.
        if let compound = missing.first(where: { $0.tried.count > 1 }) {
            message += " ('\(compound.word)' may also be composed: '\(compound.tried[1])')"
        }
        if hasUnits {
            // With units a word may be missing in some phrases only: say where each is first needed.
            message +=
                ", or units (words joined by single spaces) that cover each where it is said; first needed: "
                + firstNeed.prefix(8).joined(separator: ", ") + (firstNeed.count > 8 ? ", …" : "")
        }
        let broken = missing.map(\.word).filter { manifest.clips[$0] != nil }
        if !broken.isEmpty {
            message +=
                "; " + broken.map { "'\($0)'" }.joined(separator: ", ")
                + (broken.count == 1 ? " is listed but does not load" : " are listed but do not load") + " (see above)"
        }
        return PackError(.vocabulary, clip: missing.first?.word, message + ".")
    }

    /// Whether the pack holds units (clip ids of several words).
    public var hasUnits: Bool { manifest.clips.keys.contains { $0.contains(" ") } }

    /// The pack's units (clip ids of several words joined by spaces), sorted.
    public var units: [String] { manifest.clips.keys.filter { $0.contains(" ") }.sorted() }
}

/// "07:05" for a minute of the day.
private func clock(_ minuteOfDay: Int) -> String {
    let h = minuteOfDay / 60
    let m = minuteOfDay % 60
    return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
}
