"""The isolation kinds by name, and the consent that running without isolation needs.

The one list every command, plan check and driver table reads. "none" runs
model-written code on the host itself: it opens only with the user's
explicit consent, checked here for every caller (the driver refuses again
without it, as a last line).
"""

from __future__ import annotations

from collections.abc import Callable

from sandbox.errors import SandboxError

DOCKER = "docker"
BWRAP = "bwrap"
UNSAFE = "none"  # no isolation at all
KINDS = (DOCKER, BWRAP, UNSAFE)
ISOLATING_KINDS = (DOCKER, BWRAP)  # what a command offers without an unsafe flag

CONSENT_OPTION = "i_understand_this_is_unsafe"  # the unisolated driver's own option (sandbox.options.UnsafeOptions)
UNSAFE_FLAG = "--unsafe-no-isolation"
REFUSAL = (
    f"sandbox '{UNSAFE}' runs model-written code on this machine with no isolation; "
    f"add {UNSAFE_FLAG} to accept that (every record will say isolation={UNSAFE})"
)


class UnsafeRefused(SandboxError):
    """The no-isolation driver was asked for without the explicit unsafe flag."""


def consent_settings(
    kind: str, consent: bool, refusal: Callable[[str], Exception] = UnsafeRefused
) -> dict[str, object]:
    """The driver settings that carry the user's consent: none for an isolating kind.

    For the unisolated kind without consent, raise `refusal` (each command names its own error).
    """
    if kind != UNSAFE:
        return {}
    if consent is not True:
        raise refusal(REFUSAL)
    return {CONSENT_OPTION: True}
