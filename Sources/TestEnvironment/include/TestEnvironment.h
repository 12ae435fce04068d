#ifndef TALKING_CLOCK_TEST_ENVIRONMENT_H
#define TALKING_CLOCK_TEST_ENVIRONMENT_H

/// The private directory every test process runs in (see environment.c): it holds the
/// XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME, XDG_CACHE_HOME, XDG_RUNTIME_DIR and HOME the
/// process was given before any test started; removed when the process exits.
const char *talking_clock_test_root(void);

/// HOME as it was when the test process started (NULL if it was unset): only for tools that need
/// the user's own caches, such as `swift build` in scripts/build-deb (SwiftPM's package cache).
const char *talking_clock_test_user_home(void);

#endif
