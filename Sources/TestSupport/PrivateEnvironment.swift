import Foundation
import TestEnvironment

/// The private environment every test process runs in (Sources/TestEnvironment/environment.c sets
/// it up before any test starts): HOME and the XDG base directories point into `root`, so nothing a
/// test runs reads the user's own config, packs, state or control socket.
public enum PrivateEnvironment {
    /// The directory holding the process's HOME, XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME,
    /// XDG_CACHE_HOME and XDG_RUNTIME_DIR; removed when the test process exits.
    public static var root: URL { URL(fileURLWithPath: String(cString: talking_clock_test_root())) }

    /// HOME as it was when the test process started: only for tools that need the user's own
    /// caches (SwiftPM's package cache for `swift build` in scripts/build-deb), never for the clock.
    public static var userHome: String? { talking_clock_test_user_home().map { String(cString: $0) } }
}
