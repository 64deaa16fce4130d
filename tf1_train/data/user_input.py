"""``--preprocess``: the user's own per-example input function.

Called as ``fn(image, label, is_training, seed) -> (image, label)`` on every
example after decoding and before batching, for training and (with
``is_training`` False) for evaluation, on every dataset:

* ``image``: float32 HWC scaled to [0, 1]; ``label``: int32 scalar;
* ``seed``: int64 [2], ``(--seed, the example's position)`` in the training
  stream (its index in the test split for evaluation), for stateless random
  ops (``tf.image.stateless_random_crop`` ...): the same seed gives the same
  crops in every run, and a resumed run crops as the uninterrupted one did;
* what it returns is fed to the model as it is: the towers' own [0, 1]
  scaling is skipped, and the built-in CIFAR-10 augmentation is off (the
  function is the augmentation). The image shape the model sees is the
  function's (e.g. 24x24 crops of 32x32 images), for evaluation too.

The function is run once on a dummy example in a graph of its own before
anything is built: it must keep the label as it is, return a rank-3
floating image of fully known static shape (a size drawn at random fails
here, not in the middle of batching), and the same shape when not training;
each failure is one ``--preprocess`` line. Stateful random ops in it
(``tf.image.random_flip_left_right`` and the like, which the TF1 tutorials
used) are one warning line: they follow TensorFlow's op seeds, not
``seed``, so a resumed run and the TF2 path see other augmentation.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Optional, Tuple

import numpy as np
import tensorflow as tf

from tf1_train import models
from tf1_train.errors import UserError

PROBE_LABEL = 3


class Preprocess(NamedTuple):
    fn: Callable
    ref: str  # package.module:function, for messages
    image_shape: Tuple[int, int, int]  # what the model sees
    dtype: tf.DType
    seed: int


def load(ref: str, image_shape, seed: int) -> Optional[Preprocess]:
    """The checked function, or None when --preprocess is not given."""
    if not ref:
        return None
    fn = models.resolve(ref, "preprocess")
    shapes = [_probe(fn, ref, image_shape, training) for training in (True, False)]
    (train_shape, dtype, stateful), (eval_shape, _, _) = shapes
    if stateful:
        print(
            f"warning: --preprocess={ref} draws from stateful random ops "
            f"({', '.join(stateful)}): they follow TensorFlow's op seeds, not its seed "
            "argument, so a resumed run and the TF2 path augment differently; use the seed "
            "with tf.image.stateless_random_* / tf.random.stateless_*",
            flush=True,
        )
    if train_shape != eval_shape:
        raise UserError(
            f"--preprocess={ref}: returns {list(train_shape)} images for training but "
            f"{list(eval_shape)} for evaluation; the model needs one shape"
        )
    return Preprocess(fn, ref, train_shape, dtype, seed)


def _probe(fn, ref, image_shape, training):
    """(image shape, dtype, stateful random op types) of ``fn`` on a
    mid-grey dummy example, in a graph: static shapes as tf.data sees them
    (an eager call would show a random size as a known one)."""
    image = np.full(image_shape, 0.5, np.float32)
    seed = np.array([1, 2], np.int64)
    with tf.Graph().as_default() as g:
        out_image, out_label = _call(fn, ref, image, PROBE_LABEL, training, seed)
        with tf.compat.v1.Session(graph=g) as sess:
            label = sess.run(out_label)
        stateful = sorted({op.type for op in g.get_operations() if _stateful_random(op.type)})
    if np.shape(label) != () or label != PROBE_LABEL:
        raise UserError(
            f"--preprocess={ref}: changed the label ({PROBE_LABEL} -> {label}); "
            "it must return the label it was given"
        )
    shape = out_image.shape
    if shape.rank != 3 or not shape.is_fully_defined() or not out_image.dtype.is_floating:
        raise UserError(
            f"--preprocess={ref}: returned a {out_image.dtype.name} image of shape "
            f"{shape}; it must return a float HWC image (rank 3) of known static shape"
        )
    return tuple(int(d) for d in shape), out_image.dtype, stateful


def _stateful_random(op_type: str) -> bool:
    if "Stateless" in op_type:
        return False
    return "Random" in op_type or op_type.startswith(("Stateful", "Rng", "TruncatedNormal",
                                                      "Multinomial"))  # fmt: skip


def _call(fn, ref, image, label, training, seed):
    # Inputs with defaults, not constants: shape inference would otherwise
    # evaluate a size drawn from the seed and call it static.
    image = tf.compat.v1.placeholder_with_default(image, image.shape)
    label = tf.compat.v1.placeholder_with_default(np.int32(label), [])
    seed = tf.compat.v1.placeholder_with_default(seed, [2])
    try:
        out = fn(image, label, training, seed)
    except UserError:
        raise
    except Exception as e:
        raise UserError(f"--preprocess={ref}: {models.describe_failure(e)}") from None
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise UserError(f"--preprocess={ref}: must return (image, label), got {type(out).__name__}")
    return tf.convert_to_tensor(out[0]), tf.convert_to_tensor(out[1])


def apply(
    pre: Preprocess,
    images: tf.Tensor,
    labels: tf.Tensor,
    positions: tf.Tensor,
    scale: float,
    training: bool,
) -> Tuple[tf.Tensor, tf.Tensor]:
    """``pre.fn`` on every example of a batch of [0, scale] pixels."""
    seed = tf.constant(pre.seed, tf.int64)

    def one(args):
        image, label, position = args
        x = tf.cast(image, tf.float32) * (1.0 / scale)
        out_image, out_label = pre.fn(x, label, training, tf.stack([seed, position]))
        return tf.cast(out_image, pre.dtype), tf.cast(out_label, labels.dtype)

    spec = (tf.TensorSpec(pre.image_shape, pre.dtype), tf.TensorSpec([], labels.dtype))
    out_images, out_labels = tf.map_fn(
        one, (images, labels, tf.cast(positions, tf.int64)), fn_output_signature=spec
    )
    out_images.set_shape([images.shape[0], *pre.image_shape])
    out_labels.set_shape(labels.shape)
    return out_images, out_labels
