import Foundation
import TalkingClockCore

/// The contents of a pack's `pack.json`.
///
/// ```json
/// { "format": 1, "name": "default", "description": "…", "license": "…",
///   "spacing": { "word_gap_ms": 0, "lead_in_gap_ms": 0, "chime_gap_ms": -2500 },
///   "clips": { "one": "voice/one.flac", "chime": "bells/bell-e3.flac" },
///   "bells": { "quarter": ["bell-gs4", "bell-fs4", "bell-e4", "bell-b3"], "hour": "bell-e3" } }
/// ```
public struct PackManifest: Hashable, Sendable, Decodable {
    public static let fileName = "pack.json"
    public static let supportedFormat = 1

    public struct Bells: Hashable, Sendable, Decodable {
        /// The four quarter bells, highest first (Westminster: G♯4 F♯4 E4 B3).
        public var quarter: [String]?
        /// The hour bell.
        public var hour: String?
        /// The ship's bell (default: the highest quarter bell).
        public var ship: String?
    }

    /// `"chimes"`: the tempo of the built-in patterns and any pattern spelled out in full.
    public struct Chimes: Hashable, Sendable, Decodable {
        public var timing: ChimeTiming
        /// Patterns that replace the built-in ones, by chime style name.
        public var patterns: [String: ChimePattern]

        public init(timing: ChimeTiming = ChimeTiming(), patterns: [String: ChimePattern] = [:]) {
            self.timing = timing
            self.patterns = patterns
        }

        enum CodingKeys: String, CodingKey { case patterns }

        public init(from decoder: any Decoder) throws {
            timing = try ChimeTiming(from: decoder)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            patterns = try c.decodeIfPresent([String: ChimePattern].self, forKey: .patterns) ?? [:]
        }
    }

    public var format: Int
    public var name: String
    public var description: String?
    public var license: String?
    public var spacing: Spacing
    /// Clip id → path relative to the pack directory.
    public var clips: [String: String]
    public var bells: Bells?
    public var chimes: Chimes
    /// The stream format, if the pack declares it: then loading need not read every clip's
    /// header first (clips in another format are still converted when decoded).
    public var sampleRate: Int?
    public var channels: Int?

    enum CodingKeys: String, CodingKey {
        case format, name, description, license, spacing, clips, bells, chimes
        case sampleRate = "sample_rate"
        case channels
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        format = try c.decode(Int.self, forKey: .format)
        name = try c.decode(String.self, forKey: .name)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        license = try c.decodeIfPresent(String.self, forKey: .license)
        spacing = try c.decodeIfPresent(Spacing.self, forKey: .spacing) ?? Spacing()
        clips = try c.decode([String: String].self, forKey: .clips)
        bells = try c.decodeIfPresent(Bells.self, forKey: .bells)
        chimes = try c.decodeIfPresent(Chimes.self, forKey: .chimes) ?? Chimes()
        sampleRate = try c.decodeIfPresent(Int.self, forKey: .sampleRate)
        channels = try c.decodeIfPresent(Int.self, forKey: .channels)
    }

    /// Parses and validates manifest JSON. `path` only names the file in messages.
    public static func parse(_ data: Data, path: String) throws(PackError) -> PackManifest {
        let manifest: PackManifest
        do {
            manifest = try JSONDecoder().decode(PackManifest.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw PackError(.badManifest, "\(path): the key \"\(describe(context.codingPath + [key]))\" is missing; see the pack format in the README.")
        } catch let DecodingError.typeMismatch(type, context) {
            throw PackError(.badManifest, "\(path): \"\(describe(context.codingPath))\" must be \(typeName(type)).")
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw PackError(.badManifest, "\(path): \"\(describe(context.codingPath))\": \(context.debugDescription).")
        } catch let DecodingError.valueNotFound(type, context) {
            throw PackError(.badManifest, "\(path): \"\(describe(context.codingPath))\" must be \(typeName(type)), not null.")
        } catch {
            throw PackError(.badManifest, "\(path) is not valid JSON (\(error.localizedDescription)); check it with 'python3 -m json.tool \(path)'.")
        }
        guard manifest.format == supportedFormat else {
            throw PackError(.badManifest, "\(path) has format \(manifest.format), but this talking-clock reads format \(supportedFormat); update talking-clock or regenerate the pack.")
        }
        if let rate = manifest.sampleRate, !(8000...192_000).contains(rate) {
            throw PackError(.badManifest, "\(path): \"sample_rate\" is \(rate); use 8000-192000 (Hz).")
        }
        if let channels = manifest.channels, !(1...2).contains(channels) {
            throw PackError(.badManifest, "\(path): \"channels\" is \(channels); packs are mono (1) or stereo (2).")
        }
        for name in manifest.chimes.patterns.keys.sorted() where ChimeStyle(rawValue: name).map({ $0 == .none }) ?? true {
            let styles = ChimeStyle.allCases.filter { $0 != .none }.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw PackError(.badManifest, "\(path): \"chimes.patterns\" names \"\(name)\", which is not a chime; patterns can replace \(styles).")
        }
        guard !manifest.clips.isEmpty else {
            throw PackError(.badManifest, "\(path) lists no clips; add a \"clips\" object mapping clip ids to files.")
        }
        return manifest
    }

    private static func describe(_ path: [any CodingKey]) -> String {
        path.map(\.stringValue).joined(separator: ".")
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: "a whole number"
        case is String.Type: "a string"
        case is [String: String].Type: "an object of strings"
        default: "a \(type)"
        }
    }
}
