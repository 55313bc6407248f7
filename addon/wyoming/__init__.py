"""Home Agent as a Wyoming ``handle`` service: Home Assistant's Wyoming integration talks to it."""

import warnings

with warnings.catch_warnings():
    # wyoming.info imports wyoming.audio, which imports the standard library's audioop on Python
    # 3.11 and 3.12 (deprecated, gone in 3.13, where wyoming uses its own copy). We never touch
    # audio, and the test suite turns every warning into an error, so the library's import is
    # done here, once, with that one warning silenced.
    warnings.filterwarnings("ignore", "'audioop' is deprecated", DeprecationWarning)
    import wyoming.audio  # noqa: F401
