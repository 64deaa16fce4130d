"""TF2 variable name -> TF1 variable name, and the inventory of both sides.

A map file (``--name_map=FILE``, JSON) holds explicit pairs and regex rules::

    {"pairs": {"dense_1/kernel": "logits/weights"},
     "rules": [["/kernel$", "/weights"], ["/bias$", "/biases"]],
     "cells": [{"tf2": "lstm/lstm_cell", "tf1": "rnn/lstm_cell", "kind": "lstm"}]}

``cells`` pairs RNN cells, whose variables are not one to one (cells.py).
A name with a pair takes it; otherwise every rule is applied in order
(``re.sub``); a name no rule changes stays as it is (exact names). No
TensorFlow here: the check's parent process reads the file.
"""

from __future__ import annotations

import json
import re
from typing import Dict, List, Tuple

from tf1_train.errors import UserError
from tf1_train.port import cells


def load(path: str) -> Dict:
    """The map in ``path``, checked; one UserError line naming --name_map."""
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as e:
        raise UserError(f"--name_map={path}: cannot read it ({e.strerror})") from None
    except ValueError as e:
        raise UserError(f"--name_map={path}: not JSON ({e})") from None
    valid = 'expected {"pairs": {tf2_name: tf1_name}, "rules": [[regex, replacement], ...]'
    valid += ', "cells": [...] (RNN cells, see docs/PORT_CHECK.md)}'
    if not isinstance(data, dict) or set(data) - {"pairs", "rules", "cells"}:
        raise UserError(f"--name_map={path}: {valid}")
    pairs, rules = data.get("pairs", {}), data.get("rules", [])
    if not isinstance(pairs, dict) or not all(isinstance(v, str) for v in pairs.values()):
        raise UserError(f"--name_map={path}: 'pairs' must map names to names; {valid}")
    for rule in rules:
        if not (
            isinstance(rule, list) and len(rule) == 2 and all(isinstance(s, str) for s in rule)
        ):
            raise UserError(
                f"--name_map={path}: rule {rule!r} is not [regex, replacement]; {valid}"
            )
        try:
            re.compile(rule[0])
        except re.error as e:
            raise UserError(f"--name_map={path}: rule {rule[0]!r}: bad regex ({e})") from None
    cells.load(data.get("cells", []), f"--name_map={path}")  # checked here, used by the TF2 side
    return {"pairs": pairs, "rules": rules, "cells": data.get("cells", [])}


class Mapper:
    """Callable: TF2 name -> TF1 name by the map's pairs, then its rules."""

    def __init__(self, data: Dict):
        self.pairs = dict(data.get("pairs", {}))
        self.rules = [(re.compile(p), r) for p, r in data.get("rules", [])]

    def __call__(self, name: str) -> str:
        if name in self.pairs:
            return self.pairs[name]
        for pattern, replacement in self.rules:
            name = pattern.sub(replacement, name)
        return name

    def inverse(self, tf2_names) -> Dict[str, str]:
        """TF1 name -> TF2 name for the given TF2 names."""
        return {self(n): n for n in tf2_names}


def inventory(tf1: Dict[str, List[int]], tf2: Dict[str, Tuple[str, List[int]]]) -> Dict:
    """Matches TF2 variables (name -> (mapped TF1 name, shape)) to TF1 ones.

    Returns the counts, the unmatched names of each side, the pairs whose
    shapes differ, the TF1 names claimed twice, and ``failed``.
    """
    claimed: Dict[str, List[str]] = {}
    for name, (target, _) in tf2.items():
        claimed.setdefault(target, []).append(name)
    shapes = [
        {"tf1": t, "tf2": n, "tf1_shape": tf1[t], "tf2_shape": s}
        for n, (t, s) in tf2.items()
        if t in tf1 and list(tf1[t]) != list(s)
    ]
    report = {
        "tf1_variables": len(tf1),
        "tf2_variables": len(tf2),
        "unmatched_tf1": sorted(t for t in tf1 if t not in claimed),
        "unmatched_tf2": sorted(n for n, (t, _) in tf2.items() if t not in tf1),
        "shape_mismatches": shapes,
        "claimed_twice": sorted(t for t, names in claimed.items() if len(names) > 1),
    }
    report["failed"] = any(
        report[k] for k in ("unmatched_tf1", "unmatched_tf2", "shape_mismatches", "claimed_twice")
    )
    return report
