"""The secret that keys the simulation take-home's hidden configurations: the one of generators.secret (the
file secret.hex, how it is read and written, the seed material of a hidden part), with the id scheme and
public secret the simulation's data was first made with.

The visible examples come from the seed alone; the hidden configurations, their seeds and so their truth come
from the seed and the secret. Keeping the simulation's own id prefix and public secret means a data folder
made before the shared secret still names its secret the same in its manifest, and the published calibration
figures (made with the public secret) still reproduce.
"""

from __future__ import annotations

import hashlib

from generators.secret import Secret

__all__ = ["SimSecret"]


class SimSecret(Secret):
    """A secret as generators.secret keeps it, named in manifests by the simulation's own id scheme."""

    ID_PREFIX = b"bakeoff simulation secret id\x00"
    PUBLIC_HEX = hashlib.sha256(b"bakeoff public simulation calibration secret, version 1").hexdigest()
