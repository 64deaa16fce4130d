"""The comparison of a port check's two sides, from their saved files (numpy only).

Rows in the order things happen: the inventory, the forward pass on the
first batch (logits, then the loss), every gradient, then per step the loss
(computed before that step's update), fp16's loss scale and skipped steps,
and every variable after it. A row
agrees when every element satisfies ``|tf2 - tf1| <= atol + rtol * |tf1|``;
the first row that does not, and is not accepted by ``--allow``, is the
first divergence.
"""

from __future__ import annotations

import re
from typing import Dict, List, NamedTuple, Optional

import numpy as np


class Tolerance(NamedTuple):
    rtol: float = 1e-5
    atol: float = 1e-6


def difference(got, want, tol: Tolerance) -> Dict:
    """Max abs and max rel difference, and ``excess`` (> 1: outside tolerance)."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    if got.shape != want.shape:
        return {"max_abs": float("inf"), "max_rel": float("inf"), "excess": float("inf")}
    if got.size == 0:
        return {"max_abs": 0.0, "max_rel": 0.0, "excess": 0.0}
    # The same inf, or NaN, on both sides agrees (an fp16 overflow both had);
    # non-finite on one side only is infinitely apart.
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    if not np.isfinite(got[~same]).all() or not np.isfinite(want[~same]).all():
        return {"max_abs": float("inf"), "max_rel": float("inf"), "excess": float("inf")}
    got, want = np.where(same, 0.0, got), np.where(same, 0.0, want)
    gap = np.abs(got - want)
    rel = gap / np.maximum(np.abs(want), 1e-30)
    excess = gap / (tol.atol + tol.rtol * np.abs(want))
    return {"max_abs": float(gap.max()), "max_rel": float(rel.max()), "excess": float(excess.max())}


def rows(tf1, tf2, tf2_names: Dict[str, str], steps: int, tol: Tolerance, allow: List[str]):
    """Every compared tensor as a row dict, in the order things happen."""
    allowed = [re.compile(a) for a in allow]
    out: List[Dict] = []

    def add(phase, step, name, got, want):
        row = {"phase": phase, "step": step, "tensor": name, "tf2": tf2_names.get(name, name)}
        row.update(difference(got, want, tol))
        row["ok"] = row["excess"] <= 1.0
        row["allowed"] = not row["ok"] and any(
            a.search(row["tensor"]) or a.search(row["tf2"]) for a in allowed
        )
        out.append(row)

    variables = [k[5:] for k in tf1.files if k.startswith("init:")]
    if "fwd:logits" in tf2.files:
        add("forward", 0, "logits", tf2["fwd:logits"], tf1["fwd:logits"])
        loss = lambda f: f["fwd:data_loss"] + f["fwd:own_losses"]  # noqa: E731
        add("forward", 0, "loss", loss(tf2), loss(tf1))
        for name in variables:
            if "grad:" + name in tf1.files:
                got = tf2["grad:" + name] if "grad:" + name in tf2.files else np.zeros(0)
                add("gradient", 0, name, got, tf1["grad:" + name])
    recorded = any(k.startswith("step1:") for k in tf1.files)
    scaled = [k for k in tf1.files if k.startswith("scale:") and k in tf2.files]
    for step in range(1, steps + 1):
        add("step", step, "loss", tf2["losses"][step - 1], tf1["losses"][step - 1])
        for key in scaled:  # fp16: the loss scale and the skipped steps after the step
            add("step", step, key[6:], tf2[key][step - 1], tf1[key][step - 1])
        key = f"step{step}:" if recorded else ("final:" if step == steps else None)
        for name in variables if key else ():
            add("step", step, name, tf2[key + name], tf1[key + name])
    return out


def first_divergence(all_rows: List[Dict]) -> Optional[Dict]:
    return next((r for r in all_rows if not r["ok"] and not r["allowed"]), None)


def per_step(all_rows: List[Dict]) -> List[Dict]:
    """Per step: both losses, their difference, and the worst tensor."""
    table = []
    for r in all_rows:
        if r["phase"] == "step" and r["tensor"] == "loss":
            table.append({"step": r["step"], "loss_abs": r["max_abs"], "loss_rel": r["max_rel"]})
        elif r["phase"] == "step":
            entry = table[-1]
            if r["excess"] >= entry.get("worst_excess", -1.0):
                entry.update(worst=r["tensor"], worst_rel=r["max_rel"], worst_excess=r["excess"])
    return table
