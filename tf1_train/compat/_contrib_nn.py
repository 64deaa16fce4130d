"""``tensorflow.contrib.nn`` after install(): TF 1.15's nine names.

The module held variants of ``tf.nn`` ops, and code of 2016-17 reached for it
mostly for one reason: TF 1.0 swapped the cross-entropy losses' arguments to
``(labels=..., logits=...)``, and ``deprecated_flipped_*`` kept the old
order (logits first) so that code ran unchanged. TensorFlow's own Inception
trainer (tensorflow/models' research/inception, its private slim's
``losses.cross_entropy_loss``) calls one in every tower; without it the
trainer stops at its first loss. They are TensorFlow's losses again, in the
v1 spelling TF 1.15 called: the softmax one passes no gradient into the
labels. TF 1.15 also ran the sigmoid one, whose ``targets`` are the labels.

The others, each computing what TF 1.15 computed (tests/goldens/contrib_nn,
made with TensorFlow 1.15.5 itself):

- ``alpha_dropout``: SELU's dropout (dropped units set to SELU's negative
  saturation, then an affine map that keeps the mean and variance), from
  one ``random_uniform`` draw as TF1's, so a seed gives TF1's mask;
- ``conv1d_transpose`` and ``nth_element``: TensorFlow's own ops; the first
  also takes TF 1.4-1.13's keywords (``value``, ``filter``, ``stride``, and
  ``name`` as its seventh argument), which TF 1.14 renamed;
- ``scaled_softplus``: ``alpha * softplus(x / alpha)``, clipped at ``clip``
  if given, with TF1's own gradient for ``alpha`` (its ``1e-8`` in a log);
- ``sampled_sparse_softmax_loss`` and ``rank_sampled_softmax_loss``
  (TAPAS' adaptive resampling): candidate-sampling losses on TensorFlow's own
  ``_compute_sampled_logits`` and ``sampled_softmax_loss``, which 2.21 keeps.
"""

from __future__ import annotations

import numbers

import tensorflow as tf
from tensorflow.python.ops import embedding_ops, nn_impl, nn_ops

v1 = tf.compat.v1

KEPT = (
    "alpha_dropout",
    "conv1d_transpose",
    "deprecated_flipped_sigmoid_cross_entropy_with_logits",
    "deprecated_flipped_softmax_cross_entropy_with_logits",
    "deprecated_flipped_sparse_softmax_cross_entropy_with_logits",
    "nth_element",
    "rank_sampled_softmax_loss",
    "sampled_sparse_softmax_loss",
    "scaled_softplus",
)
ALL_KEPT = "every name of TF 1.15's tensorflow.contrib.nn is kept"


def resolve(name: str):
    """``tf.contrib.nn.<name>`` for a name of KEPT."""
    return globals()[name]


def deprecated_flipped_softmax_cross_entropy_with_logits(logits, labels, dim=-1, name=None):
    return v1.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits, dim=dim, name=name)


def deprecated_flipped_sparse_softmax_cross_entropy_with_logits(logits, labels, name=None):
    return v1.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name=name)


def deprecated_flipped_sigmoid_cross_entropy_with_logits(logits, targets, name=None):
    return v1.nn.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits, name=name)


nth_element = nn_ops.nth_element

ALPHA = -1.7580993408473766  # SELU's negative saturation, -scale * alpha


def alpha_dropout(x, keep_prob, noise_shape=None, seed=None, name=None):
    """Keeps each unit with ``keep_prob``, sets the others to ALPHA, then
    ``a * x + b`` restores zero mean and unit variance (Klambauer et al. 2017)."""
    with v1.name_scope(name, "alpha_dropout", [x]):
        x = tf.convert_to_tensor(x, name="x")
        if isinstance(keep_prob, numbers.Real) and not 0 < keep_prob <= 1.0:
            raise ValueError(f"keep_prob must be a scalar tensor or a float in the range "
                             f"(0, 1], got {keep_prob:g}")  # fmt: skip
        keep_prob = tf.convert_to_tensor(keep_prob, dtype=x.dtype, name="keep_prob")
        keep_prob.shape.assert_is_compatible_with(tf.TensorShape([]))
        if tf.get_static_value(keep_prob) == 1:
            return x
        shape = noise_shape if noise_shape is not None else tf.shape(x)
        draw = v1.random_uniform(shape, seed=seed, dtype=x.dtype)
        kept = tf.cast(tf.math.greater_equal(draw, 1 - keep_prob), x.dtype)
        x = x * kept + ALPHA * (1 - kept)
        a = (keep_prob + keep_prob * (1 - keep_prob) * ALPHA**2) ** -0.5
        b = -a * ALPHA * (1 - keep_prob)
        return a * x + b


# TF 1.14's order; TF 1.4-1.13 had value, filter, output_shape, stride,
# padding, data_format, name (the same places for the first six).
CONV1D_T_ARGS = ("input", "filters", "output_shape", "strides", "padding", "data_format",
                 "dilations", "name")  # fmt: skip
CONV1D_T_RENAMED = {"value": "input", "filter": "filters", "stride": "strides"}


def conv1d_transpose(*args, **kwargs):
    """``tf.nn.conv1d_transpose`` called in either TF 1.x spelling: a string
    (or None) seventh argument is the older signature's ``name``."""
    names = list(CONV1D_T_ARGS)
    if len(args) == 7 and (args[6] is None or isinstance(args[6], str)):
        names[6] = "name"
    if len(args) > len(names):
        raise TypeError(f"conv1d_transpose takes at most {len(names)} positional arguments")
    given = dict(zip(names, args))
    for key, value in kwargs.items():
        key = CONV1D_T_RENAMED.get(key, key)
        if key in given:
            raise TypeError(f"conv1d_transpose got multiple values for argument '{key}'")
        given[key] = value
    return tf.nn.conv1d_transpose(**given)


def _reduce_to(g, t):
    """``g`` summed over the axes ``t`` was broadcast along, in ``t``'s shape."""
    shape = tf.shape(t)
    axes, _ = tf.raw_ops.BroadcastGradientArgs(s0=shape, s1=tf.shape(g))
    return tf.reshape(tf.reduce_sum(g, axes), shape)


def _scaled_softplus_op(x, alpha, *clip):
    y = alpha * tf.nn.softplus(x / alpha)
    if clip:
        y = tf.minimum(y, clip[0])

    def grad(g):
        # TF1's gradient, from the forward output (its memory-saving choice):
        # d/dx = 1 - exp(-y/alpha), d/dalpha = y/alpha * exp(-y/alpha) - d/dx * log(d/dx + 1e-8)
        with tf.control_dependencies([g]):
            out = tf.identity(y)
        clip_grad = []
        if clip:
            unclipped = tf.cast(out < clip[0], g.dtype)
            clip_grad = [_reduce_to(g * (1.0 - unclipped), clip[0])]
            g *= unclipped
        out /= alpha
        emy = tf.exp(-out)
        dy_dx = 1.0 - emy
        dy_dalpha = out * emy - dy_dx * tf.math.log(dy_dx + 1e-8)
        return [_reduce_to(g * dy_dx, x), _reduce_to(g * dy_dalpha, alpha)] + clip_grad

    return y, grad


_scaled_softplus = tf.custom_gradient(_scaled_softplus_op)


def scaled_softplus(x, alpha, clip=None, name=None):
    """``alpha * ln(1 + exp(x / alpha))``, or its minimum with ``clip``; tends
    to ``relu(x)`` (``relu6`` with ``clip=6``) as ``alpha`` goes to 0."""
    clipping = clip is not None
    with v1.name_scope(name, "scaled_softplus", [x, alpha] + ([clip] if clipping else [])):
        x = tf.convert_to_tensor(x, name="x")
        alpha = tf.convert_to_tensor(alpha, dtype=x.dtype, name="alpha")
        if not clipping:
            return _scaled_softplus(x, alpha)
        return _scaled_softplus(x, alpha, tf.convert_to_tensor(clip, dtype=x.dtype, name="clip"))


def sampled_sparse_softmax_loss(
    weights, biases, labels, inputs, num_sampled, num_classes, sampled_values=None,
    remove_accidental_hits=True, partition_strategy="mod", name="sampled_sparse_softmax_loss",
):  # fmt: skip
    """Sampled softmax with one true class per row (``labels``: [batch, 1]):
    the true logit is column 0 of the sampled logits."""
    logits, _ = nn_impl._compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs,
        num_sampled=num_sampled, num_classes=num_classes, num_true=1,
        sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy, name=name,
    )  # fmt: skip
    zeros = tf.zeros([tf.shape(logits)[0], 1], dtype=tf.int64)
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.squeeze(zeros), logits=logits)


def _rank_resample(weights, biases, inputs, sampled_values, num_resampled, temperature, strategy):
    """The ``num_resampled`` of the sampled classes with the highest
    ``logsumexp`` over the batch of ``(w_i . x_j + b_i) / temperature``; the
    matmul runs where the (partitioned) weights live, as TF1 placed it."""
    sampled, true_expected, sampled_expected = sampled_values
    sampled = tf.cast(tf.stop_gradient(sampled), tf.int64)
    true_expected = tf.stop_gradient(true_expected)
    sampled_expected = tf.stop_gradient(sampled_expected)
    scaled_inputs = inputs / temperature

    def logsumexp_logit(embeddings):
        return tf.reduce_logsumexp(tf.matmul(embeddings, scaled_inputs, transpose_b=True), axis=1)

    logits = embedding_ops._embedding_lookup_and_transform(
        weights, sampled, strategy, transform_fn=logsumexp_logit
    )
    bias = tf.reshape(v1.nn.embedding_lookup(biases, sampled, strategy), [-1])
    logits += bias / temperature
    _, top = tf.nn.top_k(logits, k=num_resampled, sorted=False)
    return tf.gather(sampled, top), true_expected, tf.gather(sampled_expected, top)


def rank_sampled_softmax_loss(
    weights, biases, labels, inputs, num_sampled, num_resampled, num_classes, num_true,
    sampled_values, resampling_temperature, remove_accidental_hits, partition_strategy,
    name=None,
):  # fmt: skip
    """Sampled softmax over the ``num_resampled`` best of ``num_sampled``
    candidates (TAPAS, arXiv:1707.03073), TF1's argument checks included."""
    if num_sampled > num_classes:
        raise ValueError(f"num_sampled ({num_sampled}) cannot be greater than "
                         f"num_classes ({num_classes})")  # fmt: skip
    if num_sampled <= num_resampled:
        raise ValueError(f"num_resampled ({num_resampled}) must be less than "
                         f"num_sampled ({num_sampled})")  # fmt: skip
    if partition_strategy not in ("div", "mod"):
        raise ValueError(f"unsupported partition_strategy ({partition_strategy})")
    scope = [weights, biases, labels, inputs, sampled_values, resampling_temperature]
    with v1.name_scope(name, "rank_sampled_softmax_loss", scope) as name:
        if not sampled_values:
            sampled_values = v1.nn.learned_unigram_candidate_sampler(
                true_classes=labels, num_true=num_true, num_sampled=num_sampled,
                unique=True, range_max=num_classes,
            )  # fmt: skip
        resampled = _rank_resample(weights, biases, inputs, sampled_values, num_resampled,
                                   resampling_temperature, partition_strategy)  # fmt: skip
        return v1.nn.sampled_softmax_loss(
            weights=weights, biases=biases, labels=labels, inputs=inputs,
            num_sampled=num_resampled, num_classes=num_classes, num_true=num_true,
            sampled_values=resampled, remove_accidental_hits=remove_accidental_hits,
            partition_strategy=partition_strategy, name=name,
        )  # fmt: skip
