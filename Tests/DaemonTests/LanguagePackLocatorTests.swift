import ConfigFiles
import Foundation
import TalkingClockCore
import XCTest

/// A language with no `pack` set speaks with its own pack: "default" for en-US, the tag for the
/// others; a missing one is an error that names the language and how to get its pack.
final class LanguagePackLocatorTests: XCTestCase {
    func testTheLanguageChoosesThePackUnlessOneIsSet() {
        var config = Config()
        XCTAssertEqual(config.pack, "default")
        config.language = "de"
        XCTAssertEqual(config.pack, "de")
        config.language = "en-GB"
        XCTAssertEqual(config.pack, "en-GB")
        config.pack = "mine"
        XCTAssertEqual(config.pack, "mine", "a chosen pack stays, whatever the language")
        config.language = "ru"
        XCTAssertEqual(config.pack, "mine")
        XCTAssertEqual(SpokenLanguages.defaultPack(of: "en-US"), "default")
        XCTAssertEqual(SpokenLanguages.defaultPack(of: "pl"), "pl")
    }

    func testAMissingLanguagePackSaysHowToInstallBuildOrRecordIt() {
        let environment = ["HOME": "/nonexistent", "XDG_DATA_DIRS": "/nonexistent/data"]
        // A name no checkout and no system directory holds: the error text is what is checked.
        guard case .failure(let error) = PackLocator.locate("xx-not-a-pack", environment: environment) else {
            return XCTFail("found a pack that does not exist")
        }
        XCTAssertFalse(error.description.contains("for language"), error.description)

        let missing = PackLocator.LocateError(pack: "de", searched: ["/a/packs", "/b/packs"], userPacks: "/x/data/talking-clock/packs")
        let text = missing.description
        XCTAssertTrue(text.hasPrefix("No sound pack for language de was found"), text)
        XCTAssertTrue(text.contains("/a/packs, /b/packs"), text)
        XCTAssertTrue(text.contains("scripts/make-pack --language de --out /x/data/talking-clock/packs/de'"), text)
        XCTAssertTrue(text.contains("scripts/install"), text)
        XCTAssertTrue(text.contains("record-pack /x/data/talking-clock/packs/de --language de"), text)

        let named = PackLocator.LocateError(pack: "mine", searched: ["/a/packs"])
        XCTAssertTrue(named.description.hasPrefix("No sound pack named 'mine' was found"), named.description)
    }

    /// Issue 22, item 10: the fix names the directory where the clock will look, `$XDG_DATA_HOME`
    /// resolved, not `~/.local/share` (which it does not read when XDG_DATA_HOME is set).
    func testTheMissingPackErrorNamesTheResolvedDataHome() {
        let environment = ["HOME": "/home/u", "XDG_DATA_HOME": "/srv/clock-data", "XDG_DATA_DIRS": "/nonexistent/data"]
        // A binary installed outside any checkout (the test binary's checkout ships a Polish pack).
        let installed = "/nonexistent/bin/talking-clock"
        guard case .failure(let error) = PackLocator.locate("pl", environment: environment, executable: installed) else {
            return XCTFail("found a Polish pack in a data home that does not exist")
        }
        XCTAssertTrue(error.description.contains("--out /srv/clock-data/talking-clock/packs/pl'"), error.description)
        XCTAssertTrue(error.description.contains("record-pack /srv/clock-data/talking-clock/packs/pl --language pl"), error.description)
        XCTAssertFalse(error.description.contains("~/.local/share"), error.description)
        guard
            case .failure(let fromHome) = PackLocator.locate(
                "pl", environment: ["HOME": "/home/u", "XDG_DATA_DIRS": "/nonexistent"], executable: installed)
        else { return XCTFail("found a Polish pack in /home/u") }
        XCTAssertTrue(fromHome.description.contains("--out /home/u/.local/share/talking-clock/packs/pl'"), fromHome.description)
    }

    /// de-AT and es-419 fall back to the de and es packs; en-GB, whose file is also based on
    /// en-US, does not (an American voice is not a British one); a missing variant pack says
    /// both names it looked for.
    func testARegionalVariantFallsBackToItsBaseLanguagesPack() throws {
        XCTAssertEqual(SpokenLanguages.packFallback(of: "de-AT"), "de")
        XCTAssertEqual(SpokenLanguages.packFallback(of: "es-419"), "es")
        XCTAssertNil(SpokenLanguages.packFallback(of: "en-GB"))
        XCTAssertNil(SpokenLanguages.packFallback(of: "de"))
        XCTAssertNil(SpokenLanguages.packFallback(of: "mine"))
        XCTAssertTrue(SpokenLanguages.packSpeaks("de", for: "de-AT"))
        XCTAssertTrue(SpokenLanguages.packSpeaks("de-AT", for: "de-at"))
        XCTAssertFalse(SpokenLanguages.packSpeaks("de-AT", for: "de"))
        XCTAssertFalse(SpokenLanguages.packSpeaks("en-US", for: "en-GB"))
        var config = Config()
        config.language = "de-AT"
        XCTAssertEqual(config.pack, "de-AT", "the variant's own pack first")

        let data = FixturePackDirectory.make()
        defer { try? FileManager.default.removeItem(at: data) }
        let packs = data.appendingPathComponent("talking-clock/packs")
        for name in ["de", "es"] {
            let dir = packs.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: dir.appendingPathComponent("pack.json"))
        }
        let environment = ["XDG_DATA_HOME": data.path, "HOME": "/nonexistent", "XDG_DATA_DIRS": "/nonexistent/data"]
        XCTAssertEqual(try PackLocator.locate("de-AT", environment: environment).get().lastPathComponent, "de")
        XCTAssertEqual(try PackLocator.locate("es-419", environment: environment).get().lastPathComponent, "es")
        let own = packs.appendingPathComponent("de-AT")
        try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: own.appendingPathComponent("pack.json"))
        XCTAssertEqual(try PackLocator.locate("de-AT", environment: environment).get().lastPathComponent, "de-AT")

        let missing = PackLocator.LocateError(pack: "de-AT", searched: ["/a/packs"], fallback: "de")
        XCTAssertTrue(
            missing.description.hasPrefix(
                "No sound pack for language de-AT was found (looked for a pack named 'de-AT' or 'de' (the pack of the language it is a variant of) in /a/packs)"
            ), missing.description)
        XCTAssertTrue(missing.description.contains("scripts/make-pack --language de --out"), missing.description)
        XCTAssertTrue(
            missing.description.contains("record-pack $XDG_DATA_HOME/talking-clock/packs/de-AT --language de-AT"),
            missing.description)
    }
}

/// A fresh temporary directory for a test's data home.
enum FixturePackDirectory {
    static func make() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("talking-clock-locator-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
