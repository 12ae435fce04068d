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
        guard manifest.language != wanted else { return }
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
    func vocabularyGap(available: Set<String>, style: PhraseStyle) -> PackError? {
        var missing: [VocabularyError] = []
        var unsayable = 0
        var known: [String: Bool] = [:]
        for m in 0..<1440 {
            var sayable = true
            for word in Phrase.forTime(hour: m / 60, minute: m % 60, style: style).words {
                if known[word] == nil {
                    do throws(VocabularyError) {
                        _ = try Vocabulary.clips(
                            for: Phrase(words: [word], text: word, language: style.language), available: available)
                        known[word] = true
                    } catch {
                        known[word] = false
                        missing.append(error)
                    }
                }
                if known[word] == false { sayable = false }
            }
            if !sayable { unsayable += 1 }
        }
        guard unsayable > 0 else { return nil }
        var message =
            "Sound pack '\(name)' cannot say \(unsayable) of 1440 minutes in \(style.phrasing.rawValue) style"
            + (style.language == SpokenLanguages.defaultTag ? "" : " (\(style.language))") + "; missing words: "
            + missing.map(\.word).joined(separator: ", ")
            + ". Add a clip with each id to \(directory.path)/\(PackManifest.fileName)"
        // `tried` is [word] or [compound, "forty' + 'five"]: a compound may also be composed.
        if let compound = missing.first(where: { $0.tried.count > 1 }) {
            message += " ('\(compound.word)' may also be composed: '\(compound.tried[1])')"
        }
        let broken = missing.map(\.word).filter { manifest.clips[$0] != nil }
        if !broken.isEmpty {
            message +=
                "; " + broken.map { "'\($0)'" }.joined(separator: ", ")
                + (broken.count == 1 ? " is listed but does not load" : " are listed but do not load") + " (see above)"
        }
        return PackError(.vocabulary, clip: missing.first?.word, message + ".")
    }
}
