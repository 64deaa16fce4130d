"""Mixed precision in the TF2 twin, as the TF1 graph does it (tf1_train/precision.py).

Variables stay float32; each replica casts its input to the compute type,
the layers cast each weight as they read it (tf1_train/tf2/layers.py:
``read``; batch norm's scale and offset stay float32), the logits come back
to float32 for the softmax and the loss. Gradients reach the all-reduce in
float32 (the cast's gradient). fp16's loss scale follows the same v1 rule as
the TF1 graph: halve (not below 1) and skip the update everywhere on a
non-finite summed gradient, double after ``period`` finite steps, the step
advances either way and skipped steps are counted. The scale's state is
saved under the TF1 graph's checkpoint names (tf1_train/saved_scale.py), so
either path resumes the other's fp16 run with its scale. No ``compat.v1`` here.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional

import tensorflow as tf

from tf1_train import saved_scale
from tf1_train.config import COMPUTE_TYPES

INITIAL_SCALE = 2.0**15
PERIOD = 2000


def compute_type(precision: str) -> tf.DType:
    return tf.as_dtype(COMPUTE_TYPES[precision])


def to_compute(x: tf.Tensor, dtype: tf.DType) -> tf.Tensor:
    return tf.cast(x, dtype) if x.dtype != dtype and x.dtype.is_floating else x


class LossScale(tf.Module):
    """fp16's loss scale: mirrored variables, updated in cross-replica context."""

    def __init__(self, value: str, period: int = PERIOD):
        super().__init__(name="loss_scale")
        self.dynamic = value == "dynamic"
        self.period = period
        self.initial = INITIAL_SCALE if self.dynamic else float(value)
        self.scale = tf.Variable(self.initial, trainable=False, name="loss_scale/scale")
        self.good_steps = tf.Variable(0, dtype=tf.int64, trainable=False, name="good_steps")
        self.skipped = tf.Variable(0, dtype=tf.int64, trainable=False, name="skipped_steps")

    def by_name(self) -> Dict[str, tf.Variable]:
        """The state, by the TF1 graph's checkpoint names."""
        return {
            saved_scale.SCALE: self.scale,
            saved_scale.GOOD_STEPS: self.good_steps,
            saved_scale.SKIPPED: self.skipped,
        }

    def keep_fixed(self) -> None:
        """After a restore: ``--loss_scale=<number>`` wins over the
        checkpoint's scale, in one line if they differ (as the TF1 path)."""
        saved = float(self.scale.numpy())
        if not self.dynamic and saved_scale.overridden(self.initial, saved):
            print(saved_scale.fixed_line(self.initial, saved), flush=True)
            self.scale.assign(self.initial)

    def scaled(self, loss: tf.Tensor) -> tf.Tensor:
        """A replica's loss times the scale and the replica count. A TF1
        tower's loss is its own batch's mean, N times a replica's share of
        the global mean: so each replica's float16 gradients are those of
        a TF1 tower, and the same scale overflows (or flushes) on the same
        step. Scaled by the scale alone, as Keras' LossScaleOptimizer does,
        N replicas would train as a TF1 run with a scale N times smaller."""
        return loss * (self.scale * _replicas())

    def unscale(self, grads: List[tf.Tensor]) -> List[tf.Tensor]:
        """The summed gradients back to the mean gradient (in a replica context)."""
        inverse = 1.0 / (self.scale * _replicas())
        return [g * inverse for g in grads]

    def update(self, strategy: tf.distribute.Strategy, finite: tf.Tensor) -> None:
        """The v1 rule, every copy alike (``finite`` is the same on every device)."""
        good = self.good_steps + 1
        grow = tf.logical_and(finite, good >= self.period) if self.dynamic else False
        scale = tf.convert_to_tensor(self.scale)
        if self.dynamic:
            new = tf.where(finite, tf.where(grow, scale * 2.0, scale), tf.maximum(scale * 0.5, 1.0))
            new = tf.where(tf.math.is_finite(new), new, scale)
            new_good = tf.where(tf.logical_and(finite, tf.logical_not(grow)), good, 0)
            strategy.extended.update(self.scale, lambda v, x: v.assign(x), args=(new,))
            strategy.extended.update(self.good_steps, lambda v, x: v.assign(x), args=(new_good,))
        skip = tf.cast(tf.logical_not(finite), tf.int64)
        strategy.extended.update(self.skipped, lambda v, x: v.assign_add(x), args=(skip,))

    def values(self) -> Dict[str, float]:
        return {"loss_scale": float(self.scale.numpy()), "skipped_steps": int(self.skipped.numpy())}


def _replicas() -> float:
    return float(tf.distribute.get_replica_context().num_replicas_in_sync)


def all_finite(grads: List[tf.Tensor]) -> tf.Tensor:
    return tf.reduce_all([tf.reduce_all(tf.math.is_finite(g)) for g in grads])


def apply_if_finite(
    strategy: tf.distribute.Strategy,
    reduced,
    loss_scale: Optional[LossScale],
    apply: Callable,
    skip: Callable,
):
    """Cross-replica: unscales the summed gradients, applies them if all are
    finite (``apply(grads)``), else ``skip()``; then the scale's rule."""
    if loss_scale is None:
        apply(reduced)
        return
    unscaled = strategy.run(loss_scale.unscale, args=(reduced,))
    finite = strategy.experimental_local_results(strategy.run(all_finite, args=(unscaled,)))[0]

    def applied():
        apply(unscaled)
        return tf.constant(True)

    def skipped():
        skip()
        return tf.constant(False)

    tf.cond(finite, applied, skipped)
    loss_scale.update(strategy, finite)
