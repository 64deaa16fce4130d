"""``tf.contrib.seq2seq``'s monotonic attention (arXiv:1704.00784), as TF
1.15 computed it: ``safe_cumprod``, ``monotonic_attention`` and the two
mechanisms built on them, ``BahdanauMonotonicAttention`` and
``LuongMonotonicAttention``; and ``hardmax``, the other probability
function the package offered in place of softmax.

Online speech recognition and streaming sequence models used these: each memory
entry is chosen with a sigmoid probability, scanning left to right from
where the last step attended, so attention never moves back. The mechanisms
are _contrib_attention_wrapper.py's Bahdanau and Luong scores plus a learnt
scalar ``attention_score_bias``, under ``bahdanau_monotonic_attention/`` and
``luong_monotonic_attention/`` (TF1's names, so checkpoints restore), with
the monotonic probabilities in place of softmax and a one-hot start at the
first memory entry.
"""

from __future__ import annotations

import functools
from typing import Optional

import numpy as np
import tensorflow as tf

from tf1_train.compat._contrib_attention_wrapper import (
    _bahdanau_score,
    _BaseAttentionMechanism,
    _luong_score,
    _projection,
)

v1 = tf.compat.v1
MODES = ("recursive", "parallel", "hard")


def hardmax(logits, name: Optional[str] = None) -> tf.Tensor:
    """One-hot rows at each row's largest logit (the first of ties): a hard
    ``probability_fn`` for Luong or Bahdanau attention."""
    with v1.name_scope(name, "Hardmax", [logits]):
        logits = tf.convert_to_tensor(logits, name="logits")
        depth = tf.compat.dimension_value(logits.shape[-1])
        depth = tf.shape(logits)[-1] if depth is None else depth
        return tf.one_hot(tf.argmax(logits, -1), depth, dtype=logits.dtype)


def safe_cumprod(x, *args, **kwargs) -> tf.Tensor:
    """``tf.math.cumprod(x, ...)`` as ``exp(cumsum(log(x)))``, ``x`` clipped
    to ``[tiny, 1]``: neither the product nor its gradient underflows to 0
    or divides by it. Takes cumsum's ``axis``/``exclusive``/``reverse``."""
    with v1.name_scope(None, "SafeCumprod", [x]):
        x = tf.convert_to_tensor(x, name="x")
        tiny = np.finfo(x.dtype.as_numpy_dtype).tiny
        return tf.exp(tf.cumsum(tf.math.log(tf.clip_by_value(x, tiny, 1)), *args, **kwargs))


def _recursive(p_choose_i, previous_attention) -> tf.Tensor:
    """The exact recurrence, one memory entry per ``scan`` step:
    ``q[i] = (1 - p[i-1]) q[i-1] + previous[i]``, attention ``p[i] q[i]``."""
    batch_size = tf.compat.dimension_value(p_choose_i.shape[0]) or tf.shape(p_choose_i)[0]
    shifted_1mp = tf.concat([tf.ones((batch_size, 1)), 1 - p_choose_i[:, :-1]], 1)
    q = tf.scan(
        lambda x, yz: tf.reshape(yz[0] * x + yz[1], (batch_size,)),
        [tf.transpose(shifted_1mp), tf.transpose(previous_attention)],
        tf.zeros((batch_size,)),
    )
    return p_choose_i * tf.transpose(q)


def monotonic_attention(p_choose_i, previous_attention, mode: str) -> tf.Tensor:
    """The ``[batch, memory time]`` attention of choosing entry ``i`` with
    probability ``p_choose_i`` scanning on from ``previous_attention``:
    ``recursive`` (exact, a scan), ``parallel`` (closed form by cumulative
    sums and products, clipped against division by zero) or ``hard`` (0/1
    probabilities only, exact)."""
    p_choose_i = tf.convert_to_tensor(p_choose_i, name="p_choose_i")
    previous_attention = tf.convert_to_tensor(previous_attention, name="previous_attention")
    if mode == "recursive":
        return _recursive(p_choose_i, previous_attention)
    if mode == "parallel":
        cumprod_1mp = safe_cumprod(1 - p_choose_i, axis=1, exclusive=True)
        clipped = tf.clip_by_value(cumprod_1mp, 1e-10, 1.0)
        return p_choose_i * cumprod_1mp * tf.cumsum(previous_attention / clipped, axis=1)
    if mode == "hard":
        # Nothing before last step's entry, then only the first chosen one.
        p_choose_i *= tf.cumsum(previous_attention, axis=1)
        return p_choose_i * tf.math.cumprod(1 - p_choose_i, axis=1, exclusive=True)
    raise ValueError(f"mode must be one of {MODES}, got {mode!r}")


def _monotonic_probability_fn(score, previous_alignments, sigmoid_noise, mode, seed=None):
    """The alignments from raw scores: Gaussian noise of std ``sigmoid_noise``
    added (pushing training towards discrete choices), then a sigmoid (a
    step for ``hard``), then ``monotonic_attention``."""
    if sigmoid_noise > 0:
        noise = tf.random.normal(tf.shape(score), dtype=score.dtype, seed=seed)
        score += sigmoid_noise * noise
    if mode == "hard":
        p_choose_i = tf.cast(score > 0, score.dtype)
    else:
        p_choose_i = tf.sigmoid(score)
    return monotonic_attention(p_choose_i, previous_alignments, mode)


class _BaseMonotonicAttentionMechanism(_BaseAttentionMechanism):
    """A monotonic mechanism starts attending at the first memory entry."""

    scope = "monotonic_attention"

    def _monotonic_init(self, query_layer, num_units, memory, memory_sequence_length,
                        score_mask_value, sigmoid_noise, sigmoid_noise_seed, score_bias_init,
                        mode, dtype, name) -> None:  # fmt: skip
        """What both mechanisms' constructors do but for the query layer:
        the projected memory and the monotonic probability function."""
        super().__init__(
            query_layer=query_layer, memory=memory,
            probability_fn=_probability_fn(sigmoid_noise, sigmoid_noise_seed, mode),
            memory_sequence_length=memory_sequence_length,
            memory_layer=_projection(num_units, dtype), score_mask_value=score_mask_value,
            name=name,
        )  # fmt: skip
        self._num_units, self._name, self._score_bias_init = num_units, name, score_bias_init

    def initial_alignments(self, batch_size, dtype) -> tf.Tensor:
        """One-hot at entry 0, ``[batch_size, memory time]``."""
        zeros = tf.zeros((batch_size,), dtype=tf.int32)
        return tf.one_hot(zeros, self._alignments_size, dtype=dtype)

    def _biased_score(self, query) -> tf.Tensor:
        raise NotImplementedError

    def __call__(self, query, state):
        """``(alignments, next_state)``, both the new alignments; ``state``
        is the previous alignments."""
        with v1.variable_scope(None, self.scope, [query]):
            score = self._biased_score(query)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


def _probability_fn(sigmoid_noise, sigmoid_noise_seed, mode):
    """The monotonic mechanisms' ``probability_fn(score, previous_alignments)``."""
    return functools.partial(
        _monotonic_probability_fn, sigmoid_noise=sigmoid_noise, mode=mode, seed=sigmoid_noise_seed
    )


def _add_score_bias(score, dtype, init):
    """``score`` plus the scalar ``attention_score_bias`` (starting at
    ``init``; negative suits long memories), in the current scope."""
    return score + v1.get_variable("attention_score_bias", dtype=dtype, initializer=init)


class BahdanauMonotonicAttention(_BaseMonotonicAttentionMechanism):
    """``BahdanauAttention``'s score plus ``attention_score_bias``, turned
    into alignments by ``monotonic_attention`` in ``mode``."""

    def __init__(self, num_units: int, memory, memory_sequence_length=None,
                 normalize: bool = False, score_mask_value=None, sigmoid_noise: float = 0.0,
                 sigmoid_noise_seed=None, score_bias_init: float = 0.0, mode: str = "parallel",
                 dtype=None, name: str = "BahdanauMonotonicAttention"):  # fmt: skip
        self._monotonic_init(_projection(num_units, dtype, "query_layer"), num_units, memory,
                             memory_sequence_length, score_mask_value, sigmoid_noise,
                             sigmoid_noise_seed, score_bias_init, mode, dtype, name)  # fmt: skip
        self._normalize = normalize

    scope = "bahdanau_monotonic_attention"

    def _biased_score(self, query) -> tf.Tensor:
        score = _bahdanau_score(self, query)
        return _add_score_bias(score, score.dtype, self._score_bias_init)


class LuongMonotonicAttention(_BaseMonotonicAttentionMechanism):
    """``LuongAttention``'s score plus ``attention_score_bias``, turned into
    alignments by ``monotonic_attention`` in ``mode``."""

    def __init__(self, num_units: int, memory, memory_sequence_length=None, scale: bool = False,
                 score_mask_value=None, sigmoid_noise: float = 0.0, sigmoid_noise_seed=None,
                 score_bias_init: float = 0.0, mode: str = "parallel", dtype=None,
                 name: str = "LuongMonotonicAttention"):  # fmt: skip
        self._monotonic_init(None, num_units, memory, memory_sequence_length, score_mask_value,
                             sigmoid_noise, sigmoid_noise_seed, score_bias_init, mode, dtype,
                             name)  # fmt: skip
        self._scale = scale

    scope = "luong_monotonic_attention"

    def _biased_score(self, query) -> tf.Tensor:
        return _add_score_bias(_luong_score(self, query), query.dtype, self._score_bias_init)
