"""The one budget every fuzz test runs under: a fixed number of examples, derandomized, no clock.

Each reader of untrusted bytes is fuzzed with the same property: a valid result or the reader's named error,
never another exception. `FUZZ` is the example budget CI runs (the examples are the same on every run);
`deadline=None` because a busy 2-core machine must not turn a slow example into a failure: the bounds on
time are properties of the readers themselves (linear parsing, caps), tested apart without a clock.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# CI runs the fixed budget; BAKEOFF_FUZZ_EXAMPLES=N runs a deeper search by hand (still derandomized).
FUZZ_EXAMPLES = int(os.environ.get("BAKEOFF_FUZZ_EXAMPLES", "300"))
FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
# For readers whose every example starts a process or copies a model (chat templates, GGUF headers via the CLI).
FUZZ_SLOW = settings(FUZZ, max_examples=max(1, FUZZ_EXAMPLES // 8))
