"""A Keras optimizer's state under the v1 slot names, for the Keras route's checkpoint.

The Keras route saves a TF1-layout checkpoint; with its optimizer's state
under v1's names, the TF1 path and the TF2 custom loop resume it where it
stopped instead of refusing it ("no variable 'fc1/weights/Momentum'"). The
formulas (keras_fit.make_optimizer configures Keras to do the v1 update):

- SGD with momentum: Keras keeps ``m = momentum * m - lr * g`` and adds it
  to the weight; v1 keeps ``accum = momentum * accum + g`` and subtracts
  ``lr * accum``. At a constant learning rate (the only one this route
  takes) ``accum = -m / lr``, to float32 rounding.
- Adam: Keras' first and second moments are v1's ``Adam`` and ``Adam_1``
  slots; v1's ``beta1_power`` after t steps is ``beta1 ** (t + 1)`` (and
  beta2's alike), the powers Keras computes from its iteration count.
- Adagrad: Keras' accumulator is v1's ``Adagrad`` slot.
- Plain SGD has no state.
"""

from __future__ import annotations

from typing import Dict

import keras
import numpy as np
import tensorflow as tf

from tf1_train.config import OptimizerConfig


def v1_state(opt: keras.optimizers.Optimizer, weights: Dict[str, keras.Variable],
             cfg: OptimizerConfig) -> Dict[str, tf.Tensor]:  # fmt: skip
    """The optimizer's state by v1 checkpoint name (``weights``: the trainable
    model variables by TF1 name); ``{}`` for plain SGD."""
    inner = getattr(opt, "inner_optimizer", opt)  # fp16: Keras' LossScaleOptimizer
    state: Dict[str, tf.Tensor] = {}
    for name, var in weights.items():
        i = inner._get_variable_index(var)
        if cfg.optimizer == "momentum":
            state[f"{name}/Momentum"] = -inner.momentums[i].value / cfg.learning_rate
        elif cfg.optimizer == "adam":
            state[f"{name}/Adam"] = inner._momentums[i].value
            state[f"{name}/Adam_1"] = inner._velocities[i].value
        elif cfg.optimizer == "adagrad":
            state[f"{name}/Adagrad"] = inner._accumulators[i].value
    if cfg.optimizer == "adam":
        t = int(inner.iterations.numpy()) + 1
        for key, beta in (("beta1_power", inner.beta_1), ("beta2_power", inner.beta_2)):
            state[key] = tf.constant(np.float32(beta) ** t, tf.float32)
    return state


def describe(cfg: OptimizerConfig) -> str:
    """What the save line says of the optimizer's state."""
    return {
        "sgd": "plain SGD has no optimizer state",
        "momentum": "Keras' momentum as v1's <var>/Momentum (-m / lr)",
        "adam": "Keras' moments as v1's <var>/Adam, <var>/Adam_1 and the beta powers",
        "adagrad": "Keras' accumulators as v1's <var>/Adagrad",
    }[cfg.optimizer]
