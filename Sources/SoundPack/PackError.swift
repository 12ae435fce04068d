import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A problem with a sound pack, phrased for the user: what is wrong, where, and the fix.
public struct PackError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case missingManifest, badManifest, missingFile, unsafePath, undecodable, emptyClip, tooLong, badChannels,
            vocabulary, notADirectory, codecLibrary, language, badSamples, tooMuchAudio
    }

    public var kind: Kind
    /// The clip id concerned, if any.
    public var clip: String?
    public var message: String

    public init(_ kind: Kind, clip: String? = nil, _ message: String) {
        self.kind = kind
        self.clip = clip
        self.message = message
    }

    public var description: String { message }
}
