import Foundation
import SoundPack
import TalkingClockCore
import XCTest

/// Converting clips to the pack's stream rate (done once per clip, at load).
final class ResampleTests: XCTestCase {
    /// The windowed-sinc formula evaluated directly at every output sample (what `Conversion`
    /// tabulates per phase): the reference the fast path must agree with.
    func direct(_ audio: ClipAudio, to rate: Int) -> [Float] {
        let inRate = audio.format.sampleRate
        let channels = audio.format.channels
        let ratio = Double(rate) / Double(inRate)
        let kernel = Conversion.Kernel(cutoff: min(1.0, ratio) * 0.97)
        let outFrames = Int((Double(audio.frames) * ratio).rounded())
        var out = [Float](repeating: 0, count: outFrames * channels)
        for o in 0..<outFrames {
            let center = Double(o) * Double(inRate) / Double(rate)
            let first = max(0, Int((center - kernel.halfWidth).rounded(.up)))
            let last = min(audio.frames - 1, Int((center + kernel.halfWidth).rounded(.down)))
            guard first <= last else { continue }
            var acc = [Double](repeating: 0, count: channels)
            var weightSum = 0.0
            for i in first...last {
                let w = kernel.weight(at: Double(i) - center)
                weightSum += w
                for c in 0..<channels { acc[c] += w * Double(audio.samples[i * channels + c]) }
            }
            let scale = (first == 0 || last == audio.frames - 1) && weightSum > 0.5 ? 1.0 / weightSum : 1.0
            for c in 0..<channels { out[o * channels + c] = Float(acc[c] * scale) }
        }
        return out
    }

    /// Deterministic noise plus two tones, so every tap matters.
    func signal(frames: Int, rate: Int, channels: Int, seed: UInt64 = 1) -> ClipAudio {
        var state = seed
        var samples: [Float] = []
        for f in 0..<frames {
            for c in 0..<channels {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let noise = Float(Double(state >> 40) / Double(1 << 24) - 0.5) * 0.2
                let t = Double(f) / Double(rate)
                samples.append(noise + Float(0.4 * sin(2 * .pi * (440 + 220 * Double(c)) * t) + 0.2 * sin(2 * .pi * 3000 * t)))
            }
        }
        return ClipAudio(format: StreamFormat(sampleRate: rate, channels: channels), samples: samples)
    }

    /// A 0.5-amplitude sine, a quarter of a second long.
    func tone(_ hz: Double, rate: Int) -> ClipAudio {
        ClipAudio(
            format: StreamFormat(sampleRate: rate, channels: 1),
            samples: (0..<rate / 4).map { Float(0.5 * sin(2 * .pi * hz * Double($0) / Double(rate))) })
    }

    func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
        XCTAssertEqual(a.count, b.count)
        return zip(a, b).map { abs($0 - $1) }.max() ?? 0
    }

    func testAgreesWithTheDirectFormula() {
        // Exact phases: up (22 050 -> 48 000: 320 phases), down (48 000 -> 22 050), 2:1, mono and stereo.
        for (from, to, channels) in [(22050, 48000, 1), (48000, 22050, 2), (44100, 22050, 1), (16000, 44100, 2)] {
            let audio = signal(frames: 3000, rate: from, channels: channels)
            let fast = Conversion.resample(audio, to: to)
            XCTAssertEqual(fast.format, StreamFormat(sampleRate: to, channels: channels))
            XCTAssertLessThan(maxDifference(fast.samples, direct(audio, to: to)), 1e-5, "\(from) -> \(to), \(channels) ch")
        }
    }

    func testRatesWithMoreThanMaxPhasesAreQuantisedFinely() {
        // 44 101 -> 48 000 has 48 000 phases: the nearest of 4096 is used.
        let audio = signal(frames: 2000, rate: 44101, channels: 1)
        let fast = Conversion.resample(audio, to: 48000)
        XCTAssertEqual(fast.frames, Int((2000.0 * 48000 / 44101).rounded()))
        XCTAssertLessThan(maxDifference(fast.samples, direct(audio, to: 48000)), 2e-3)
    }

    func testAToneKeepsItsFrequencyAndLevel() {
        // 1 kHz at 22 050 Hz, upsampled to 48 kHz: away from the edges it is the same sine at 48 kHz.
        let up = Conversion.resample(tone(1000, rate: 22050), to: 48000)
        XCTAssertEqual(up.frames, Int((Double(22050 / 4) * 48000 / 22050).rounded()))
        var worst: Float = 0
        for o in 200..<(up.frames - 200) {
            worst = max(worst, abs(up.samples[o] - Float(0.5 * sin(2 * .pi * 1000 * Double(o) / 48000))))
        }
        XCTAssertLessThan(worst, 0.5 * 0.001, "within -60 dB of the tone")
    }

    func testDownsamplingRemovesWhatTheNewRateCannotCarry() {
        // 15 kHz at 44.1 kHz cannot exist at 22.05 kHz (Nyquist 11 025 Hz): it must not alias to 7 050 Hz.
        let down = Conversion.resample(tone(15000, rate: 44100), to: 22050)
        let interior = down.samples[200..<(down.frames - 200)]
        let rms = sqrt(interior.map { Double($0 * $0) }.reduce(0, +) / Double(interior.count))
        XCTAssertLessThan(rms, 0.5 / 2.0.squareRoot() * 0.01, "at least 40 dB down")
    }

    func testSameRateIsUntouchedAndEmptyStaysEmpty() {
        let audio = signal(frames: 100, rate: 22050, channels: 2)
        XCTAssertEqual(Conversion.resample(audio, to: 22050).samples, audio.samples)
        let empty = ClipAudio(format: StreamFormat(sampleRate: 22050, channels: 1), samples: [])
        XCTAssertEqual(Conversion.resample(empty, to: 48000).frames, 0)
    }
}
