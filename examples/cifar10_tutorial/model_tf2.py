"""The CIFAR-10 tutorial's model as a plain TF2 ``tf.Module``: the TF2 twin.

Contract (``--tf2_model=examples.cifar10_tutorial.model_tf2:Cifar10Tutorial``),
the TF2 counterpart of ``model.inference``:

- ``Cifar10Tutorial(image_shape, num_classes)``: ``image_shape`` is the
  ``(H, W, C)`` the model sees (what ``model.preprocess`` returns:
  ``(24, 24, 3)`` for CIFAR-10);
- every variable is a ``tf.Variable`` named with its TF1 checkpoint name
  (``conv1/weights``, ``conv1/biases``, ...), so a checkpoint written by
  either path restores into the other; ``by_name`` maps those names to the
  variables. Initial values come from stateless ops of ``seed``; they need
  not equal the TF1 ones (a twin is compared after copying weights over);
- ``__call__(images, training) -> logits`` computes exactly what
  ``inference`` computes (``training`` is unused, as ``is_training`` there),
  in the type of ``images``: each weight is cast to it as it is read, so
  under ``--precision=fp16`` (float16 images) the twin computes what the
  TF1 towers compute through tf1_train's custom getter. (Not bf16: the CPU
  has no bfloat16 kernel for local response normalisation, on either path);
- ``extra_losses() -> [float32 scalar]``: the terms ``inference`` puts in the
  ``'losses'`` collection, in the same order: ``0.004 * l2_loss`` of
  ``local3/weights`` then ``local4/weights``;
- the activation summaries of ``inference`` as TF 2 ``tf.summary`` calls
  (``<layer>/activations``, ``<layer>/sparsity``): recorded when a default
  writer is recording (tf1_train's TF2 loop sets one every
  ``--save_summary_steps``), no-ops otherwise.

No ``tf.compat.v1`` and no tf1_train import: this runs eagerly or under
``tf.function``, and under a distribution strategy's scope.
"""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import tensorflow as tf

from examples.cifar10_tutorial.model import LRN_PARAMS, WEIGHT_DECAY

# (scope, output units, weight stddev, bias value); convs are 5x5.
_CONVS = (("conv1", 64, 5e-2, 0.0), ("conv2", 64, 5e-2, 0.1))
_LOCALS = (("local3", 384, 0.04, 0.1), ("local4", 192, 0.04, 0.1))
_DECAYED = ("local3", "local4")


class Cifar10Tutorial(tf.Module):
    """conv-pool-LRN, conv-LRN-pool, local 384, local 192, softmax_linear."""

    def __init__(self, image_shape: Tuple[int, int, int], num_classes: int, seed: int = 0):
        super().__init__(name="cifar10_tutorial")
        h, w, c = image_shape
        self._seed, self._count = seed, 0
        self.by_name: Dict[str, tf.Variable] = {}
        in_channels = c
        for scope, filters, stddev, bias in _CONVS:
            self._add(scope, [5, 5, in_channels, filters], stddev, bias)
            in_channels = filters
        in_units = _pooled(_pooled(h)) * _pooled(_pooled(w)) * in_channels
        for scope, units, stddev, bias in (*_LOCALS, ("softmax_linear", num_classes, 1 / 192, 0)):
            self._add(scope, [in_units, units], stddev, bias)
            in_units = units

    def _add(self, scope: str, shape: Sequence[int], stddev: float, bias: float) -> None:
        self._count += 1
        initial = tf.random.stateless_truncated_normal(
            shape, seed=[self._seed, self._count], stddev=stddev
        )
        self.by_name[f"{scope}/weights"] = tf.Variable(initial, name=f"{scope}/weights")
        self.by_name[f"{scope}/biases"] = tf.Variable(
            tf.fill([shape[-1]], float(bias)), name=f"{scope}/biases"
        )

    def _read(self, name: str, x: tf.Tensor) -> tf.Tensor:
        """A weight in the type of the input it meets (mixed precision)."""
        return tf.cast(self.by_name[name], x.dtype)

    def _conv(self, x: tf.Tensor, scope: str) -> tf.Tensor:
        conv = tf.nn.conv2d(x, self._read(f"{scope}/weights", x), 1, padding="SAME")
        biased = tf.nn.bias_add(conv, self._read(f"{scope}/biases", x))
        return _summarized(tf.nn.relu(biased), scope)

    def _local(self, x: tf.Tensor, scope: str) -> tf.Tensor:
        return tf.matmul(x, self._read(f"{scope}/weights", x)) + self._read(f"{scope}/biases", x)

    def __call__(self, images: tf.Tensor, training: bool) -> tf.Tensor:
        del training  # no dropout or batch norm
        x = self._conv(images, "conv1")
        x = tf.nn.local_response_normalization(_pool(x), **LRN_PARAMS)
        x = self._conv(x, "conv2")
        x = _pool(tf.nn.local_response_normalization(x, **LRN_PARAMS))
        x = tf.reshape(x, [-1, x.shape[1:].num_elements()])
        x = _summarized(tf.nn.relu(self._local(x, "local3")), "local3")
        x = _summarized(tf.nn.relu(self._local(x, "local4")), "local4")
        return _summarized(self._local(x, "softmax_linear"), "softmax_linear")

    def extra_losses(self) -> List[tf.Tensor]:
        """The weight-decay terms, as the TF1 model adds them to ``'losses'``."""
        return [
            tf.multiply(tf.nn.l2_loss(self.by_name[f"{scope}/weights"]), WEIGHT_DECAY)
            for scope in _DECAYED
        ]


def _summarized(x: tf.Tensor, layer: str) -> tf.Tensor:
    """The TF1 model's activation summaries, in TF 2: the same tags but the
    tower prefix (only the first replica records)."""
    tf.summary.histogram(layer + "/activations", x)
    tf.summary.scalar(layer + "/sparsity", tf.nn.zero_fraction(x))
    return x


def _pool(x: tf.Tensor) -> tf.Tensor:
    return tf.nn.max_pool2d(x, ksize=3, strides=2, padding="SAME")


def _pooled(n: int) -> int:
    """Size after a stride-2 SAME pool."""
    return (n + 1) // 2
