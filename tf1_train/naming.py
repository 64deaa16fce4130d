"""Variable names shared by the TF1 graph, the TF2 modules and checkpoints.

No TensorFlow here: both paths import it, so their names and initializer seeds
come from one place.
"""

from __future__ import annotations

import re
import zlib

# Replicated mode builds tower i's copy under "v{i}/" (towers.py); saved and
# seeded under the name without the prefix.
REPLICA_PREFIX = re.compile(r"^v\d+/")


def name_seed(name: str) -> int:
    """A stable op seed for a variable, from its checkpoint name."""
    name = REPLICA_PREFIX.sub("", name)
    return zlib.crc32(name.encode("utf-8")) % (2**31 - 1)
