"""Variable names shared by the TF1 graph, the TF2 modules and checkpoints.

No TensorFlow here: both paths import it, so their names, replica prefixes
and initializer seeds come from one place.

Replicated mode builds tower i's copy of every variable under ``v{i}/``;
checkpoints hold tower 0's copy under the name without the prefix, and every
copy is seeded by that name, so all copies start equal.
"""

from __future__ import annotations

import re
import zlib
from typing import Optional

_REPLICA_PREFIX = re.compile(r"^v(\d+)/")


def replica_scope(tower: int) -> str:
    """The variable scope of tower ``tower``'s copy in replicated mode."""
    return f"v{tower}"


def replica_index(name: str) -> Optional[int]:
    """The tower whose replicated copy ``name`` is, or None for a shared name."""
    m = _REPLICA_PREFIX.match(name)
    return int(m.group(1)) if m else None


def strip_replica(name: str) -> str:
    """'v1/conv1/weights' -> 'conv1/weights'; other names unchanged."""
    return _REPLICA_PREFIX.sub("", name)


def name_seed(name: str) -> int:
    """A stable op seed for a variable, from its checkpoint name."""
    return zlib.crc32(strip_replica(name).encode("utf-8")) % (2**31 - 1)
