"""The CIFAR-10 tutorial's TF1 model and input, as functions tf1_train calls.

This is user code, not part of tf1_train: the classic TensorFlow CIFAR-10
tutorial (tensorflow/models, tutorials/image/cifar10) rewritten from its
description against tf1_train's contract, so that a code base written that
way runs on tf1_train's towers, parameter servers and checkpoints unchanged.

Model contract (``--model=examples.cifar10_tutorial.model:inference``):

``inference(images, is_training, num_classes) -> logits``

- called positionally once per tower, inside the tower's name scope; the
  second and later towers run under ``variable_scope(reuse=True)``;
- ``images``: float32 ``[batch, H, W, C]``, already preprocessed (here by
  ``preprocess`` below); any H and W: the flatten size comes from the static
  shape;
- variables only through ``tf.compat.v1.get_variable``, so that every tower
  shares them (a ``tf.Variable`` or a Keras layer would make new ones per
  tower). No device pinning: tf1_train's device setter places variables;
- weight decay the tutorial's way: ``0.004 * tf.nn.l2_loss(weights)`` of
  ``local3`` and ``local4``, each added to the graph collection ``'losses'``.
  tf1_train adds the terms created in a tower's name scope to that tower's
  loss, next to the cross-entropy (the tutorial's
  ``get_collection('losses', scope)``);
- ``is_training`` is unused: the model has no dropout or batch norm. It is
  part of the signature because other models need it;
- returns unscaled logits ``[batch, num_classes]``; the trainer applies the
  softmax cross-entropy;
- summaries the tutorial's way: a histogram of each layer's activations and
  the fraction that is zero (``tf.compat.v1.summary``, the ``SUMMARIES``
  collection); tf1_train writes tower 0's every ``--save_summary_steps``.

Variables (TF1 checkpoint names): ``conv1/weights``, ``conv1/biases``,
``conv2/...``, ``local3/...``, ``local4/...``, ``softmax_linear/...``.
Initialisers without an op seed, as in the tutorial: they follow the
graph-level seed tf1_train sets from ``--seed``.

Input contract (``--preprocess=examples.cifar10_tutorial.model:preprocess``):

``preprocess(image, label, is_training, seed) -> (image, label)``

- called per example inside ``tf.data``, after decoding and before batching,
  for training (``is_training=True``) and evaluation (``False``), a Python
  bool;
- ``image``: float32 ``[H, W, C]`` scaled to [0, 1]; ``label``: int32 scalar,
  returned unchanged;
- ``seed``: int32 or int64 tensor of shape [2] for stateless random ops,
  derived by the trainer from ``--seed`` and the example's position in the
  training stream, so the crops of a resumed run are those of an
  uninterrupted one;
- returns an image of static shape ``[24, 24, C]``: that is the shape the
  model sees, in training and evaluation.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

import tensorflow as tf

IMAGE_SIZE = 24  # the tutorial trains and evaluates on 24x24 crops of 32x32 images
WEIGHT_DECAY = 0.004  # on local3 and local4 only
# Local response normalisation after the first pool and the second conv.
LRN_PARAMS = {"depth_radius": 4, "bias": 1.0, "alpha": 0.001 / 9.0, "beta": 0.75}
# The tutorial's brightness delta was 63 on pixels in [0, 255].
MAX_BRIGHTNESS_DELTA = 63.0 / 255.0
CONTRAST_RANGE = (0.2, 1.8)


def _variable_with_weight_decay(
    name: str, shape: Sequence[int], stddev: float, wd: Optional[float]
) -> tf.Variable:
    """A truncated-normal weight; with ``wd``, its L2 term goes to ``'losses'``.

    The tutorial passed ``wd=0.0`` for the layers without decay, which added
    terms of value zero; here those layers pass ``None`` so that the
    collection holds only the two terms that count (the sum is the same).
    """
    var = tf.compat.v1.get_variable(
        name,
        shape,
        dtype=tf.float32,
        initializer=tf.compat.v1.truncated_normal_initializer(stddev=stddev),
    )
    if wd is not None:
        weight_decay = tf.multiply(tf.nn.l2_loss(var), wd, name="weight_loss")
        tf.compat.v1.add_to_collection("losses", weight_decay)
    return var


def _biases(size: int, value: float) -> tf.Variable:
    return tf.compat.v1.get_variable(
        "biases", [size], dtype=tf.float32, initializer=tf.compat.v1.constant_initializer(value)
    )


def _conv_relu(x: tf.Tensor, scope: str, filters: int, bias: float) -> tf.Tensor:
    """5x5 stride-1 SAME convolution + bias + ReLU in variable scope ``scope``."""
    with tf.compat.v1.variable_scope(scope):
        kernel = _variable_with_weight_decay(
            "weights", [5, 5, int(x.shape[-1]), filters], stddev=5e-2, wd=None
        )
        conv = tf.nn.conv2d(x, kernel, strides=[1, 1, 1, 1], padding="SAME")
        return tf.nn.relu(tf.nn.bias_add(conv, _biases(filters, bias)), name=scope)


def _local(
    x: tf.Tensor, scope: str, units: int, stddev: float, wd: Optional[float], bias: float
) -> tf.Tensor:
    """Fully connected ``x @ weights + biases`` (no activation) in ``scope``."""
    with tf.compat.v1.variable_scope(scope):
        weights = _variable_with_weight_decay("weights", [int(x.shape[-1]), units], stddev, wd)
        return tf.add(tf.matmul(x, weights), _biases(units, bias), name=scope)


def _activation_summary(x: tf.Tensor, layer: str) -> None:
    """The tutorial's: a histogram of a layer's activations and the fraction
    that is zero. The tag is the summary's full name scope, ``tower_0/``
    included: tf1_train writes tower 0's and counts the others'."""
    tf.compat.v1.summary.histogram(layer + "/activations", x)
    tf.compat.v1.summary.scalar(layer + "/sparsity", tf.nn.zero_fraction(x))


def _pool(x: tf.Tensor, name: str) -> tf.Tensor:
    return tf.nn.max_pool2d(x, ksize=3, strides=2, padding="SAME", name=name)


def inference(images: tf.Tensor, is_training: bool, num_classes: int) -> tf.Tensor:
    """The tutorial's network: logits ``[batch, num_classes]`` for ``images``.

    conv1 5x5x64 + ReLU, pool 3x3/2, LRN; conv2 5x5x64 + ReLU, LRN, pool;
    local3 (384, ReLU), local4 (192, ReLU), softmax_linear (linear).
    """
    del is_training  # no dropout or batch norm: training and evaluation agree
    x = _conv_relu(images, "conv1", 64, bias=0.0)
    _activation_summary(x, "conv1")
    x = tf.nn.local_response_normalization(_pool(x, "pool1"), name="norm1", **LRN_PARAMS)
    x = _conv_relu(x, "conv2", 64, bias=0.1)
    _activation_summary(x, "conv2")
    x = _pool(tf.nn.local_response_normalization(x, name="norm2", **LRN_PARAMS), "pool2")
    flat = tf.reshape(x, [-1, x.shape[1:].num_elements()])
    x = tf.nn.relu(_local(flat, "local3", 384, 0.04, WEIGHT_DECAY, bias=0.1))
    _activation_summary(x, "local3")
    x = tf.nn.relu(_local(x, "local4", 192, 0.04, WEIGHT_DECAY, bias=0.1))
    _activation_summary(x, "local4")
    logits = _local(x, "softmax_linear", num_classes, 1 / 192.0, None, bias=0.0)
    _activation_summary(logits, "softmax_linear")
    return logits


def preprocess(
    image: tf.Tensor, label: tf.Tensor, is_training: bool, seed: tf.Tensor
) -> Tuple[tf.Tensor, tf.Tensor]:
    """The tutorial's input: distorted 24x24 crops to train, central ones to evaluate.

    Training: random crop, random left-right flip, random brightness and
    contrast, each from its own stateless seed split from ``seed``. Both:
    per-image standardisation (zero mean, unit variance per image).
    """
    channels = image.shape[-1]
    if is_training:
        crop_seed, flip_seed, brightness_seed, contrast_seed = tf.unstack(
            tf.random.experimental.stateless_split(seed, num=4)
        )
        image = tf.image.stateless_random_crop(
            image, [IMAGE_SIZE, IMAGE_SIZE, channels], seed=crop_seed
        )
        image = tf.image.stateless_random_flip_left_right(image, seed=flip_seed)
        image = tf.image.stateless_random_brightness(
            image, MAX_BRIGHTNESS_DELTA, seed=brightness_seed
        )
        image = tf.image.stateless_random_contrast(image, *CONTRAST_RANGE, seed=contrast_seed)
    else:
        image = tf.image.resize_with_crop_or_pad(image, IMAGE_SIZE, IMAGE_SIZE)
    image = tf.image.per_image_standardization(image)
    image.set_shape([IMAGE_SIZE, IMAGE_SIZE, channels])
    return image, label
