import Foundation
import SoundPack
import TalkingClockCore
import TestSupport
import XCTest

/// The level, trim and normalisation functions on synthetic signals with known levels.
final class LoudnessTests: XCTestCase {
    let rate = 22050
    var mono: StreamFormat { StreamFormat(sampleRate: rate, channels: 1) }
    typealias S = SyntheticAudio

    func seconds(_ frames: Int) -> Double { Double(frames) / Double(rate) }

    func testActiveLevelOfASineIgnoresTheSilenceAroundIt() {
        // A sine of amplitude 0.5 has an RMS of 0.5/√2: −9.03 dBFS.
        let sine = (0..<Int(0.5 * Double(rate))).map { 0.5 * sin(2 * Double.pi * 441 * Double($0) / Double(rate)) }
        let alone = Loudness.activeLevel(S.int16(sine), format: mono)!
        XCTAssertEqual(alone, -9.03, accuracy: 0.05)
        let padded = S.silence(1, rate: rate) + sine + S.silence(2, rate: rate)
        XCTAssertEqual(Loudness.activeLevel(S.int16(padded), format: mono)!, alone, accuracy: 0.05)
        XCTAssertNil(Loudness.activeLevel([Int16](repeating: 0, count: 1000), format: mono))
    }

    func testFramesFarBelowTheLoudestAreNotSpeechButNearOnesAre() {
        let loud = S.vowel(0.3, level: -12, rate: rate)
        // 40 dB below: a pause with breath noise, ignored.
        let withFarTail = loud + S.noise(1, level: -52, rate: rate, seed: 1)
        XCTAssertEqual(Loudness.activeLevel(S.int16(withFarTail), format: mono)!, -12, accuracy: 0.1)
        // 20 dB below: part of the speech; 15 loud frames and 50 frames 20 dB down.
        let withNearTail = loud + S.vowel(1, level: -32, rate: rate)
        let expected = -12 + 10 * log10((15 + 50 * 0.01) / 65)
        XCTAssertEqual(Loudness.activeLevel(S.int16(withNearTail), format: mono)!, expected, accuracy: 0.15)
    }

    func testPeakAndClippedSamples() {
        XCTAssertEqual(Loudness.clippedSamples([0, 32767, -32768, 100, 32766, -32767, 32767]), 3)
        XCTAssertEqual(Loudness.peak([0, 16384, -100]), -6.02, accuracy: 0.01)
        XCTAssertEqual(Loudness.peak([-32768]), 0, accuracy: 0.001)
        // Overdriving a converter saturates: a sine 6 dB over full scale clips about a third of its samples.
        let hot = (0..<22050).map { 2 * sin(2 * Double.pi * 440 * Double($0) / 22050) }
        XCTAssertGreaterThan(Loudness.clippedSamples(S.int16(hot)), 22050 / 3)
    }

    func testNormalisingGainHitsTheTargetUnlessThePeakCapBinds() throws {
        let quiet = S.int16(
            S.silence(0.2, rate: rate) + S.vowel(0.4, level: -31, rate: rate) + S.silence(0.2, rate: rate))
        let (gain, limited) = try XCTUnwrap(Loudness.normalisingGain(quiet, format: mono))
        XCTAssertFalse(limited)
        XCTAssertEqual(gain, 13, accuracy: 0.1)
        let normalised = Loudness.scaled(quiet, gainDb: gain)
        XCTAssertEqual(Loudness.activeLevel(normalised, format: mono)!, Loudness.targetLevel, accuracy: 0.02)

        // A click 3 dB under full scale on a quiet word: the cap, not the target, decides.
        var spiky = S.double(quiet)
        spiky[spiky.count / 2] = 0.7
        let capped = try XCTUnwrap(Loudness.normalisingGain(S.int16(spiky), format: mono))
        XCTAssertTrue(capped.limitedByPeak)
        XCTAssertEqual(
            Loudness.peak(Loudness.scaled(S.int16(spiky), gainDb: capped.gainDb)), Loudness.peakCap, accuracy: 0.01)
    }

    /// The pitfall from the field notes: "fifteen" starts with a quiet "f" (here 40 dB under the
    /// vowel). A fixed −45 dBFS threshold cuts it; trimming relative to the clip keeps it.
    func testTrimKeepsTheQuietFricativeBeforeTheVowel() throws {
        let lead = 0.4
        let fricative = S.noise(0.12, level: -54, rate: rate, seed: 7)
        let vowel = S.vowel(0.25, level: -14, rate: rate)
        let room = S.noise(lead + 0.12 + 0.25 + 1.0, level: -85, rate: rate, seed: 8)
        var take = S.mix(room, fricative, at: Int(lead * Double(rate)))
        take = S.mix(take, vowel, at: Int((lead + 0.12) * Double(rate)))
        let samples = S.int16(take)
        let fOnset = Int(lead * Double(rate))
        let vowelEnd = Int((lead + 0.37) * Double(rate))

        // The fricative is below −45 dBFS: a fixed threshold would start the clip at the vowel.
        let fLevels = Loudness.frameLevels(Array(samples[fOnset..<fOnset + 2000]), frameLength: 110)
        XCTAssertLessThan(fLevels.max()!, -45)

        let found = try XCTUnwrap(SpeechTrim().apply(to: samples, format: mono))
        XCTAssertEqual(seconds(found.range.lowerBound - fOnset), -0.020, accuracy: 0.006, "20 ms kept before the f")
        XCTAssertEqual(seconds(found.range.upperBound - vowelEnd), 0.040, accuracy: 0.006, "40 ms kept after the vowel")
    }

    func testTrimLeavesOutAClickBeforeTheWordButBridgesAShortPause() throws {
        var take = S.noise(2.5, level: -80, rate: rate, seed: 3)
        take = S.mix(take, S.noise(0.004, level: -20, rate: rate, seed: 4), at: Int(0.1 * Double(rate)))  // a key click
        let word =
            S.vowel(0.2, level: -15, rate: rate) + S.silence(0.15, rate: rate)
            + S.vowel(0.2, level: -17, rate: rate, fundamental: 150)
        let onset = Int(0.8 * Double(rate))
        take = S.mix(take, word, at: onset)
        let found = try XCTUnwrap(SpeechTrim().apply(to: S.int16(take), format: mono))
        XCTAssertEqual(
            seconds(found.range.lowerBound - onset), -0.020, accuracy: 0.006, "the click 0.7 s earlier is not speech")
        XCTAssertEqual(
            seconds(found.range.upperBound - onset - word.count), 0.040, accuracy: 0.006, "the 150 ms pause is bridged")
    }

    func testTrimStaysAboveTheRoomNoise() throws {
        // Noise only 35 dB under the speech: "50 dB under the loudest frame" would keep all of it.
        let onset = Int(0.6 * Double(rate))
        var take = S.noise(2, level: -50, rate: rate, seed: 5)
        take = S.mix(take, S.vowel(0.3, level: -15, rate: rate), at: onset)
        let found = try XCTUnwrap(SpeechTrim().apply(to: S.int16(take), format: mono))
        XCTAssertEqual(seconds(found.range.lowerBound - onset), -0.020, accuracy: 0.006)
        XCTAssertEqual(seconds(found.range.upperBound - onset), 0.34, accuracy: 0.006)
        XCTAssertEqual(found.noiseFloor, -50, accuracy: 1.5)
    }

    func testTakeProcessorRefusesClippedAndSilentTakesAndNormalisesGoodOnes() throws {
        let room = S.noise(2, level: -70, rate: rate, seed: 9)
        let good = S.mix(room, S.vowel(0.4, level: -27, rate: rate), at: rate / 2)
        guard case .success(let clip) = TakeProcessor.process(S.int16(good), format: mono) else {
            return XCTFail("a clean take was refused")
        }
        XCTAssertEqual(clip.level, Loudness.targetLevel, accuracy: 0.05)
        // 9 dB, plus a little: the 20 ms frames at the clip's edges are part margin, part vowel.
        XCTAssertEqual(clip.gainDb, 9, accuracy: 0.3)
        XCTAssertEqual(seconds(clip.samples.count), 0.4 + 0.06, accuracy: 0.01)
        XCTAssertFalse(clip.limitedByPeak)

        let hot = S.mix(room, S.vowel(0.4, level: 0, rate: rate), at: rate / 2)
        guard case .failure(.clipped(let count)) = TakeProcessor.process(S.int16(hot), format: mono) else {
            return XCTFail("a clipped take was accepted")
        }
        XCTAssertGreaterThan(count, 100)

        guard case .failure(.noSpeech(let loudest, let roomLevel)) = TakeProcessor.process(S.int16(room), format: mono)
        else {
            return XCTFail("room noise was taken for speech")
        }
        XCTAssertEqual(roomLevel, -70, accuracy: 1.5)
        XCTAssertLessThan(loudest, -65)

        // Speech too quiet to use (the gain is far too low).
        let faint = S.mix(
            S.noise(2, level: -90, rate: rate, seed: 10), S.vowel(0.4, level: -58, rate: rate), at: rate / 2)
        guard case .failure(.noSpeech) = TakeProcessor.process(S.int16(faint), format: mono) else {
            return XCTFail("a take at -58 dBFS was accepted")
        }
    }

    /// Feeds a take in 10 ms chunks; returns the frame at which the detector asked to stop.
    func stopFrame(_ take: [Double], maxSeconds: Double = 5) -> (frame: Int?, heard: Bool) {
        var detector = SpeechEndpointDetector(format: mono, trailingSilence: 0.8, maxSeconds: maxSeconds)
        let samples = S.int16(take)
        var i = 0
        while i < samples.count {
            let end = min(samples.count, i + 220)
            if detector.feed(samples[i..<end]) { return (end, detector.speechHeard) }
            i = end
        }
        return (nil, detector.speechHeard)
    }

    func testEndpointStopsAfterTrailingSilenceNotInAPause() throws {
        let speechStart = Int(0.7 * Double(rate))
        let word =
            S.vowel(0.25, level: -20, rate: rate) + S.silence(0.3, rate: rate) + S.vowel(0.2, level: -24, rate: rate)
        let take = S.mix(S.noise(4, level: -65, rate: rate, seed: 11), word, at: speechStart)
        let (frame, heard) = stopFrame(take)
        XCTAssertTrue(heard)
        let stop = try XCTUnwrap(frame, "never stopped")
        XCTAssertEqual(
            seconds(stop - speechStart - word.count), 0.8, accuracy: 0.03,
            "stops 0.8 s after the word, not in its 0.3 s pause")
    }

    func testEndpointIgnoresAClickAndStopsAtTheLimitWithoutSpeech() throws {
        var take = S.noise(6, level: -65, rate: rate, seed: 12)
        take = S.mix(take, S.noise(0.01, level: -10, rate: rate, seed: 13), at: rate / 5)
        let (frame, heard) = stopFrame(take, maxSeconds: 3)
        XCTAssertFalse(heard, "a 10 ms click is not speech")
        let stop = try XCTUnwrap(frame)
        XCTAssertTrue(
            (3 * rate..<3 * rate + 220).contains(stop), "stops with the chunk that reaches the limit, not at \(stop)")
    }
}
