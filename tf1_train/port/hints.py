"""Known TF1 -> TF2 default differences, checked against what a port check found.

Each hint looks at one diverging row (compare.py) with what both sides
recorded and says which known difference explains it, with the numbers that
show it. HINTS is the table docs/PORT_CHECK.md lists.
"""

from __future__ import annotations

from typing import Callable, Dict, List, NamedTuple, Optional

import numpy as np

from tf1_train.compat._fused_epsilon import MIN_EPSILON


class Context(NamedTuple):
    case: Dict  # spec.complete()d
    info: Dict  # the TF2 side's json: inventory, batch_norm, dropout, optimizer
    tf1: object  # the sides' npz files
    tf2: object


class Hint(NamedTuple):
    id: str
    difference: str  # what differs, TF1 default vs TF2 default
    detect: Callable[[Dict, Context], Optional[str]]  # row -> the evidence, or None


def _transposed(row, ctx):
    found = [
        f"{m['tf1']} {m['tf1_shape']} vs {m['tf2']} {m['tf2_shape']}"
        for m in ctx.info["inventory"]["shape_mismatches"]
        if list(m["tf2_shape"]) == list(reversed(m["tf1_shape"]))
    ]
    if row["phase"] == "inventory" and found:
        return "transposed: " + "; ".join(found) + " (transpose when copying, or fix the map)"
    return None


def _offset(row, ctx):
    if row["tensor"] != "logits":
        return None
    gap = ctx.tf2["fwd:logits"].astype(np.float64) - ctx.tf1["fwd:logits"]
    if abs(gap.mean()) > 0 and gap.std() <= 1e-3 * abs(gap.mean()):
        return f"TF2 logits = TF1 logits {gap.mean():+.6g} everywhere: a constant one side adds"
    return None


def _tf1_fact(ctx, key: str):
    """What the TF1 side recorded of its graph (sides.graph_facts), or None
    for files written before it did."""
    return ctx.tf1[key] if key in ctx.tf1.files else None


def _dropout(row, ctx):
    if row["phase"] != "forward":
        return None
    tf1 = _tf1_fact(ctx, "fwd:dropout_layers")
    n1 = None if tf1 is None else int(tf1)
    if ctx.info.get("dropout"):
        if n1 == 0:
            return "the TF2 model has Dropout, the TF1 model none"
        where = "" if n1 is None else f" (TF1 in {n1} layer(s))"
        return f"both models drop out{where}: the masks differ (seed both, or compare at rate 0)"
    if n1:
        return f"the TF1 model draws dropout masks in {n1} layer(s); the TF2 model has none"
    return None


def _bn_epsilon(row, ctx):
    eps2 = sorted({b["epsilon"] for b in ctx.info.get("batch_norm", {}).values()})
    tf1 = _tf1_fact(ctx, "fwd:bn_epsilon")
    if row["phase"] not in ("forward", "gradient") or not eps2:
        return None
    if tf1 is None or len(tf1) == 0:  # not a fused kernel: epsilon is not an attribute
        return f"the TF2 batch norm uses epsilon {eps2}: is the TF1 one the same?"
    eps1 = sorted(float(e) for e in tf1)
    if np.allclose(eps1, eps2, rtol=1e-6, atol=0) if len(eps1) == len(eps2) else False:
        return None
    text = f"batch-norm epsilon: TF1 {_fmt(eps1)}, TF2 {_fmt(eps2)}"
    if any(abs(e - MIN_EPSILON) < 1e-10 for e in eps1) and min(eps2) < MIN_EPSILON:
        text += (  # the TF1 side ran TF 1.x's floor (tf1_train.compat._fused_epsilon)
            f"; TF 1.x's fused kernel raised any epsilon below {MIN_EPSILON:g} to it "
            f"(cuDNN's minimum): give the port's batch norms epsilon={MIN_EPSILON:g}"
        )
    return text


def _fmt(values) -> str:
    return ", ".join(f"{v:g}" for v in values)


def _loss_ratio(ctx) -> float:
    return float(ctx.tf2["fwd:data_loss"] / ctx.tf1["fwd:data_loss"])


def _summed(row, ctx):
    if row["phase"] != "forward" or row["tensor"] != "loss":
        return None
    r, c = _loss_ratio(ctx), ctx.case
    for what, size in (("global batch", c["batch"] * c["towers"]), ("tower batch", c["batch"])):
        if abs(r - size) <= 1e-3 * size:
            return f"TF2 data loss = {r:.6g} x TF1's, the {what} size: summed instead of averaged"
    return None


def _towers(row, ctx):
    n = ctx.case["towers"]
    if row["phase"] != "forward" or row["tensor"] != "loss" or n == 1:
        return None
    r = _loss_ratio(ctx)
    if abs(r * n - 1) < 1e-3 or abs(r - n) < 1e-3 * n:
        return f"TF2 data loss = {r:.6g} x TF1's, {n} towers: compute_average_loss's global batch"
    return None


def _l2(row, ctx):
    if row["phase"] != "forward" or row["tensor"] != "loss":
        return None
    own1, own2 = float(ctx.tf1["fwd:own_losses"]), float(ctx.tf2["fwd:own_losses"])
    if own1 > 0 and own2 == 0:
        return f"TF1 adds its own loss terms ({own1:.6g}); the TF2 side adds none (model.losses)"
    if own1 > 0 and abs(own2 / own1 - 1) > 1e-4:
        text = f"the model's own loss terms: TF1 {own1:.6g}, TF2 {own2:.6g} ({own2 / own1:.4g}x)"
        if ctx.case.get("precision", "fp32") != "fp32":  # the getter handed the model casts
            text += f"; TF1 computes them from its weights' {ctx.case['precision']} casts"
        return text
    return None


def _bias_noise(row, ctx):
    """A bias feeding a batch norm: its gradient is zero in exact arithmetic."""
    name = row["tensor"]
    if row["phase"] != "gradient" or not name.endswith(("/bias", "/biases")):
        return None
    if not any(k.startswith("init:") and k.endswith("/moving_mean") for k in ctx.tf1.files):
        return None
    worst = max(np.abs(ctx.tf1["grad:" + name]).max(), np.abs(ctx.tf2["grad:" + name]).max())
    others = [np.abs(ctx.tf1[k]).max() for k in ctx.tf1.files if k.startswith("grad:")]
    top = max(others)
    if top == 0 or worst > 1e-2 * top:
        return None
    return (
        f"{name}'s gradient is at most {worst:.3g} on either side, the largest gradient "
        f"{top:.3g}: a bias feeding a batch norm has a zero gradient in exact arithmetic (the "
        f"norm subtracts the batch mean), so both are rounding noise; --allow={name}"
    )


def _adam(row, ctx):
    c, opt = ctx.case, ctx.info.get("optimizer", {})
    if row["phase"] != "step" or c["optimizer"] != "adam" or opt.get("kind") != "keras":
        return None
    eps1 = c["rules"].get("adam_epsilon", 1e-8)
    if opt.get("epsilon") != eps1:
        return f"Adam epsilon: TF1 {eps1:g}, Keras {opt.get('epsilon'):g}"
    return (
        "v1 Adam computes 1 - beta in float32 (1 - 0.999f = 0.00099998713): "
        "give Keras beta_2=float(np.float32(0.999)) (and beta_1 likewise)"
    )


def _rmsprop(row, ctx):
    c, opt = ctx.case, ctx.info.get("optimizer", {})
    if row["phase"] != "step" or c["optimizer"] != "rmsprop" or opt.get("kind") != "keras":
        return None
    r, rho = c["rules"], float(opt.get("rho", 0.9))
    tf1 = f"decay {r.get('rmsprop_decay', 0.9)}, epsilon {r.get('rmsprop_epsilon', 1e-10):g}"
    return (
        f"RMSProp: TF1 {tf1}, mean square starting at 1; Keras rho {rho:g}, epsilon "
        f"{opt.get('epsilon')}, starting at 0: Keras' first update is lr/sqrt(1 - rho) = "
        f"{1 / np.sqrt(1 - rho):.3g} lr on every weight, whatever its gradient"
    )


def _rnn_layout(row, ctx):
    """A TF1 cell's one kernel against a Keras layer's kernel + recurrent_kernel."""
    inv = ctx.info["inventory"]
    if row["phase"] != "inventory":
        return None
    recurrent = [n for n in inv.get("unmatched_tf2", []) if n.endswith("/recurrent_kernel")]
    recurrent += [
        m["tf2"]
        for m in inv["shape_mismatches"]
        if m["tf2"].endswith("/kernel")
        and len(m["tf1_shape"]) == len(m["tf2_shape"]) == 2
        and m["tf1_shape"][1] == m["tf2_shape"][1]
        and m["tf1_shape"][0] > m["tf2_shape"][0]
    ]
    if not recurrent:
        return None
    return (
        f"{', '.join(sorted(set(recurrent)))}: a Keras recurrent layer against a TF1 cell, whose "
        "one kernel multiplies concat([x, h]) (and whose LSTM gates are in another order): pair "
        'them with a "cells" entry in --name_map (docs/PORT_CHECK.md, RNN cells)'
    )


def _rnn_rounding(row, ctx):
    """A paired cell's weights parting under an optimizer that normalises."""
    cells = ctx.info["inventory"].get("cells", [])
    name, optimizer = row["tensor"], ctx.case["optimizer"]
    inside = any(name.startswith(c + "/") for c in cells)
    if row["phase"] != "step" or not inside or optimizer not in ("adam", "rmsprop", "adagrad"):
        return None
    key = "grad:" + name
    if key not in ctx.tf1.files or key not in ctx.tf2.files:
        return None
    gap = float(np.abs(ctx.tf2[key].astype(np.float64) - ctx.tf1[key]).max())
    return (
        f"{name} is in a paired RNN cell: its first-batch gradient agreed to {gap:.3g}, the "
        "same sum in another order (Keras x.W + h.U, TF1 concat([x, h]).K); "
        f"{optimizer} divides each weight's update by its own gradient size, which magnifies "
        "that rounding where a gradient is near zero: compare with --optimizer=sgd, or --allow it"
    )


def _rnn_masked(row, ctx):
    """dynamic_rnn's zeros past sequence_length against Keras' repeated output."""
    lengths = _tf1_fact(ctx, "fwd:rnn_sequence_lengths")
    carry = ctx.info.get("rnn_carry", [])
    if row["phase"] != "forward" or not lengths or not carry:
        return None
    return (
        f"TF1's dynamic_rnn took a sequence_length ({int(lengths)} call(s)) and outputs zeros "
        f"past each length; Keras' {', '.join(sorted(carry))} return(s) sequences with "
        "zero_output_for_mask=False, which repeats the last unmasked output there: pass "
        "zero_output_for_mask=True to the layer whose outputs are used past the length"
    )


def _moved(row, ctx):
    """(initial value, TF1's and TF2's change) of a moving statistic in step 1."""
    if row["phase"] != "step" or row["step"] != 1 or "step1:" + row["tensor"] not in ctx.tf1.files:
        return None
    init = ctx.tf1["init:" + row["tensor"]].astype(np.float64)
    return init, ctx.tf1["step1:" + row["tensor"]] - init, ctx.tf2["step1:" + row["tensor"]] - init


def _momentum(row, ctx) -> Optional[float]:
    bn = ctx.info.get("batch_norm", {}).get(row["tensor"])
    return bn["momentum"] if bn else None


def _bn_variance(row, ctx):
    moved = _moved(row, ctx) if row["tensor"].endswith("moving_variance") else None
    if moved is None:
        return None
    init, moved1, moved2 = moved
    keep = 1 - (_momentum(row, ctx) or 0.99)  # the same momentum on both sides
    r = float(np.median((init + moved2 / keep) / (init + moved1 / keep)))
    if not 0.5 < r < 1:
        return None
    return (
        f"TF2's batch variance = {r:.6g} x TF1's = (n-1)/n, n = {1 / (1 - r):.0f} values per "
        "channel: Keras 3 records the biased batch variance, v1's fused kernel the unbiased"
    )


def _bn_momentum(row, ctx):
    moved = _moved(row, ctx) if row["tensor"].endswith("moving_mean") else None
    if moved is None:
        return None
    _, moved1, moved2 = moved
    keep = np.abs(moved1) > 1e-12
    r = float(np.median(moved2[keep] / moved1[keep])) if keep.any() else 1.0
    if abs(r - 1) < 1e-3:
        return None
    text = f"the moving mean moved {r:.4g}x as far on TF2 as on TF1 in step 1"
    m2 = _momentum(row, ctx)
    if m2 is not None:
        text += f": momentum {m2:g} on TF2, {1 - (1 - m2) / r:.4g} on TF1"
    return text


HINTS = (
    Hint("transposed_kernel", "a kernel [out, in] on one side, [in, out] on the other",
         _transposed),
    Hint("logits_offset", "a constant or bias one side adds to the logits", _offset),
    Hint("dropout", "dropout masks: v1 op seeds vs Keras seed generators", _dropout),
    Hint("bn_epsilon", "batch-norm epsilon: v1 and Keras 1e-3, tf_cnn_benchmarks 1e-5",
         _bn_epsilon),
    Hint("loss_reduction", "loss summed over the batch instead of averaged", _summed),
    Hint("average_loss_towers", "compute_average_loss: global vs per-replica batch", _towers),
    Hint("l2_regularization", "tf.nn.l2_loss is sum/2, Keras L2(l) is l*sum; model.losses", _l2),
    Hint("bias_before_batch_norm", "a bias feeding a batch norm: a zero gradient, rounding noise",
         _bias_noise),
    Hint("rnn_cell_layout", "TF1 cell kernel for concat([x, h]) vs Keras kernel + recurrent",
         _rnn_layout),
    Hint("rnn_masked_outputs", "past sequence_length: TF1 zeros, Keras the last output repeated",
         _rnn_masked),
    Hint("rnn_cell_rounding", "paired RNN cell: another summation order, magnified by Adam",
         _rnn_rounding),
    Hint("adam", "Adam epsilon: v1 1e-8, Keras 1e-7; v1's 1 - beta in float32", _adam),
    Hint("rmsprop", "RMSProp: v1 decay/epsilon 1e-10, Keras rho/epsilon 1e-7", _rmsprop),
    Hint("bn_moving_variance", "moving variance: v1 fused unbiased, Keras 3 biased", _bn_variance),
    Hint("bn_momentum", "batch-norm momentum: v1/Keras 0.99, tf_cnn_benchmarks 0.9", _bn_momentum),
)  # fmt: skip


def find(row: Dict, ctx: Context) -> List[Dict]:
    """The hints whose check recognises ``row``, with their evidence."""
    found = []
    for hint in HINTS:
        evidence = hint.detect(row, ctx)
        if evidence:
            found.append({"id": hint.id, "tensor": row["tensor"], "evidence": evidence})
    return found
