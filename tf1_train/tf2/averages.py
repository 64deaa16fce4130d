"""--moving_average_decay in TF2: v1's ExponentialMovingAverage, op for op.

Each trainable variable gets an average, a mirrored variable saved under the
TF1 name ``<var>/ExponentialMovingAverage`` (so TF1 and TF2 checkpoints carry
the same averages), starting at the variable's value. After every update,
with n the global step after it, each average takes
``avg -= (avg - var) * (1 - min(decay, (1 + n) / (10 + n)))``, as
``ExponentialMovingAverage(decay, num_updates=global_step).apply`` computes
it. The test-set evaluation runs with the averages swapped into the model's
variables, which is what evaluating with ``variables_to_restore()`` means.
"""

from __future__ import annotations

import contextlib
from typing import Dict, Iterator

import tensorflow as tf

from tf1_train.averages import SUFFIX


class WeightAverages(tf.Module):
    """The averages of ``variables`` (TF1 name -> variable); create in ``strategy.scope()``."""

    def __init__(self, decay: float, variables: Dict[str, tf.Variable]):
        super().__init__(name=SUFFIX)
        self.decay = decay
        self.weights = variables
        self.averages = {
            name: tf.Variable(var.read_value(), name=f"{name}/{SUFFIX}", trainable=False)
            for name, var in variables.items()
        }

    @property
    def by_name(self) -> Dict[str, tf.Variable]:
        """The averages by TF1 checkpoint name."""
        return {f"{name}/{SUFFIX}": avg for name, avg in self.averages.items()}

    def update(self, strategy: tf.distribute.Strategy, step: tf.Variable) -> None:
        """Cross-replica context, after the optimizer (``step`` already advanced)."""
        n = tf.cast(step, tf.float32)
        decay = tf.minimum(tf.constant(self.decay, tf.float32), (1.0 + n) / (10.0 + n))
        one_minus = 1.0 - decay

        def move(avg, var):
            return avg.assign_sub((avg - var) * one_minus)

        for name, avg in self.averages.items():
            strategy.extended.update(avg, move, args=(self.weights[name],))

    @contextlib.contextmanager
    def swapped_in(self) -> Iterator[None]:
        """The variables hold the averages inside the block, their own values after."""
        saved = {name: var.read_value() for name, var in self.weights.items()}
        for name, var in self.weights.items():
            var.assign(self.averages[name].read_value())
        try:
            yield
        finally:
            for name, var in self.weights.items():
                var.assign(saved[name])
