"""``tf.contrib.seq2seq``'s helpers: what ``BasicDecoder`` feeds its cell
at each step and when a sequence is finished, as TF 1.15 computed them.

``TrainingHelper`` reads the targets (teacher forcing), the scheduled ones
sometimes feed back a sample or the output instead (arXiv:1506.03099),
``GreedyEmbeddingHelper`` and ``SampleEmbeddingHelper`` feed back the
argmax or a draw until the end token, ``InferenceHelper`` and
``CustomHelper`` take the user's functions. The sampling helpers draw with
TF1's ops in TF1's order (``RandomUniform``, ``Multinomial``), so with a
graph seed and their ``seed`` the draws are TF1's own.
"""

from __future__ import annotations

from typing import Callable, Optional

import tensorflow as tf

from tf1_train.compat._contrib_decode import _transpose_batch_time

v1 = tf.compat.v1
nest = tf.nest


def _draw(sample_n: Callable, sample_shape) -> tf.Tensor:
    """TF1's sampler shape rule: ``sample_n(prod(sample_shape))`` reshaped to
    ``sample_shape + the batch and event shape``."""
    sample_shape = tf.convert_to_tensor(sample_shape, tf.int32, name="sample_shape")
    pad = tf.cast(tf.equal(tf.rank(sample_shape), 0), tf.int32)
    sample_shape = tf.reshape(
        sample_shape, tf.pad(tf.shape(sample_shape), paddings=[[pad, 0]], constant_values=1)
    )
    samples = sample_n(tf.reduce_prod(sample_shape))
    return tf.reshape(samples, tf.concat([sample_shape, tf.shape(samples)[1:]], 0))


def bernoulli_sample(probs, dtype=tf.int32, sample_shape=(), seed=None) -> tf.Tensor:
    """``uniform < probs``, drawn for ``sample_shape`` (a scheduled helper's
    choice, per batch entry, of sampling or reading)."""
    probs = tf.convert_to_tensor(probs, name="probs")

    def sample_n(n):
        shape = tf.concat([[n], tf.shape(probs)], 0)
        uniform = v1.random_uniform(shape, seed=seed, dtype=probs.dtype)
        return tf.cast(tf.less(uniform, probs), dtype)

    return _draw(sample_n, sample_shape)


def categorical_sample(logits, dtype=tf.int32, sample_shape=(), seed=None) -> tf.Tensor:
    """One id per row of ``logits``, drawn from its softmax."""
    logits = tf.convert_to_tensor(logits, name="logits")
    events = tf.shape(logits)[-1]

    def sample_n(n):
        flat = logits if logits.shape.rank == 2 else tf.reshape(logits, [-1, events])
        sample_dtype = tf.int64 if logits.dtype.size > 4 else tf.int32
        draws = v1.multinomial(flat, n, seed=seed, output_dtype=sample_dtype)
        draws = tf.reshape(tf.transpose(draws), tf.concat([[n], tf.shape(logits)[:-1]], 0))
        return tf.cast(draws, dtype)

    return _draw(sample_n, sample_shape)


def _unstack(x: tf.Tensor) -> tf.TensorArray:
    return tf.TensorArray(x.dtype, size=tf.shape(x)[0], element_shape=x.shape[1:]).unstack(x)


def _embedder(embedding) -> Callable:
    if callable(embedding):
        return embedding
    return lambda ids: tf.nn.embedding_lookup(embedding, ids)


class Helper:
    """TF1's helper interface: ``batch_size``, ``sample_ids_shape``,
    ``sample_ids_dtype``, ``initialize() -> (finished, inputs)``,
    ``sample(time, outputs, state)`` and ``next_inputs(time, outputs,
    state, sample_ids) -> (finished, inputs, state)``."""

    @property
    def batch_size(self):
        raise NotImplementedError("batch_size has not been implemented")

    @property
    def sample_ids_shape(self):
        raise NotImplementedError("sample_ids_shape has not been implemented")

    @property
    def sample_ids_dtype(self):
        raise NotImplementedError("sample_ids_dtype has not been implemented")

    def initialize(self, name=None):
        raise NotImplementedError

    def sample(self, time, outputs, state, name=None):
        raise NotImplementedError

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        raise NotImplementedError


class CustomHelper(Helper):
    """A helper of the user's three functions; the batch size is the size of
    the ``finished`` their ``initialize_fn`` returns."""

    def __init__(self, initialize_fn, sample_fn, next_inputs_fn, sample_ids_shape=None,
                 sample_ids_dtype=None):  # fmt: skip
        self._initialize_fn = initialize_fn
        self._sample_fn = sample_fn
        self._next_inputs_fn = next_inputs_fn
        self._batch_size = None
        self._sample_ids_shape = tf.TensorShape(sample_ids_shape or [])
        self._sample_ids_dtype = sample_ids_dtype or tf.int32

    @property
    def batch_size(self):
        if self._batch_size is None:
            raise ValueError("batch_size accessed before initialize was called")
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return self._sample_ids_shape

    @property
    def sample_ids_dtype(self):
        return self._sample_ids_dtype

    def initialize(self, name=None):
        finished, next_inputs = self._initialize_fn()
        if self._batch_size is None:
            self._batch_size = tf.size(finished)
        return finished, next_inputs

    def sample(self, time, outputs, state, name=None):
        return self._sample_fn(time=time, outputs=outputs, state=state)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        return self._next_inputs_fn(time=time, outputs=outputs, state=state, sample_ids=sample_ids)


class TrainingHelper(Helper):
    """Teacher forcing: step t's input is ``inputs[:, t]``; a sequence is
    finished once ``t + 1 >= sequence_length``; zeros once all are."""

    def __init__(self, inputs, sequence_length, time_major: bool = False, name=None):
        with tf.name_scope(name or "TrainingHelper"):
            inputs = tf.convert_to_tensor(inputs, name="inputs")
            self._inputs = inputs
            if not time_major:
                inputs = nest.map_structure(_transpose_batch_time, inputs)
            self._input_tas = nest.map_structure(_unstack, inputs)
            self._sequence_length = tf.convert_to_tensor(sequence_length, name="sequence_length")
            if self._sequence_length.shape.rank != 1:
                raise ValueError(
                    "Expected sequence_length to be a vector, but received shape: "
                    f"{self._sequence_length.shape}"
                )
            self._zero_inputs = nest.map_structure(lambda x: tf.zeros_like(x[0, :]), inputs)
            self._batch_size = tf.size(sequence_length)

    inputs = property(lambda self: self._inputs)
    sequence_length = property(lambda self: self._sequence_length)
    batch_size = property(lambda self: self._batch_size)
    sample_ids_shape = property(lambda self: tf.TensorShape([]))
    sample_ids_dtype = property(lambda self: tf.int32)

    def _read(self, time, finished):
        return v1.cond(
            tf.reduce_all(finished),
            lambda: self._zero_inputs,
            lambda: nest.map_structure(lambda ta: ta.read(time), self._input_tas),
        )

    def initialize(self, name=None):
        finished = tf.equal(0, self._sequence_length)
        return finished, self._read(0, finished)

    def sample(self, time, outputs, name=None, **unused):
        return tf.cast(tf.argmax(outputs, axis=-1), tf.int32)

    def next_inputs(self, time, outputs, state, name=None, **unused):
        finished = time + 1 >= self._sequence_length
        return finished, self._read(time + 1, finished), state


def _merge(where_rows, rows, other_rows, shape):
    """``rows`` at ``where_rows`` and ``other_rows`` at the others, by
    ``scatter_nd``: TF1's merge of sampled and read inputs."""
    taken, kept = where_rows
    return tf.scatter_nd(taken, rows, shape) + tf.scatter_nd(kept, other_rows, shape)


def _check_probability(probability):
    probability = tf.convert_to_tensor(probability, name="sampling_probability")
    if probability.shape.rank not in (0, 1):
        raise ValueError(
            "sampling_probability must be either a scalar or a vector. "
            f"saw shape: {probability.shape}"
        )
    return probability


class ScheduledEmbeddingTrainingHelper(TrainingHelper):
    """Teacher forcing, but each entry, with ``sampling_probability``, is fed
    the embedding of an id drawn from its logits (sample id -1: read)."""

    def __init__(self, inputs, sequence_length, embedding, sampling_probability,
                 time_major: bool = False, seed: Optional[int] = None,
                 scheduling_seed: Optional[int] = None, name=None):  # fmt: skip
        with tf.name_scope(name or "ScheduledEmbeddingSamplingWrapper"):
            self._embedding_fn = _embedder(embedding)
            self._sampling_probability = _check_probability(sampling_probability)
            self._seed = seed
            self._scheduling_seed = scheduling_seed
            super().__init__(inputs, sequence_length, time_major=time_major, name=name)

    def sample(self, time, outputs, state, name=None):
        select = bernoulli_sample(
            self._sampling_probability, tf.bool, self.batch_size, self._scheduling_seed
        )
        drawn = categorical_sample(outputs, seed=self._seed)
        return v1.where(select, drawn, tf.fill([self.batch_size], -1))

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        finished, base, state = super().next_inputs(time, outputs, state, name=name)

        def maybe_sample():
            taken = tf.cast(v1.where(sample_ids > -1), tf.int32)
            kept = tf.cast(v1.where(sample_ids <= -1), tf.int32)
            sampled = self._embedding_fn(tf.gather_nd(sample_ids, taken))
            return _merge((taken, kept), sampled, tf.gather_nd(base, kept), tf.shape(base))

        return finished, v1.cond(tf.reduce_all(finished), lambda: base, maybe_sample), state


class ScheduledOutputTrainingHelper(TrainingHelper):
    """Teacher forcing, but each entry, with ``sampling_probability``, is fed
    its last output (through ``next_inputs_fn``), with the step's
    ``auxiliary_inputs`` concatenated when given."""

    def __init__(self, inputs, sequence_length, sampling_probability, time_major: bool = False,
                 seed: Optional[int] = None, next_inputs_fn=None, auxiliary_inputs=None,
                 name=None):  # fmt: skip
        with tf.name_scope(name or "ScheduledOutputTrainingHelper"):
            self._sampling_probability = _check_probability(sampling_probability)
            self._auxiliary_input_tas = None
            if auxiliary_inputs is not None:
                inputs = tf.convert_to_tensor(inputs, name="inputs")
                auxiliary_inputs = tf.convert_to_tensor(auxiliary_inputs, name="auxiliary_inputs")
                inputs = nest.map_structure(
                    lambda x, y: tf.concat((x, y), -1), inputs, auxiliary_inputs
                )
                if not time_major:
                    auxiliary_inputs = nest.map_structure(_transpose_batch_time, auxiliary_inputs)
                self._auxiliary_input_tas = nest.map_structure(_unstack, auxiliary_inputs)
            self._seed = seed
            self._next_inputs_fn = next_inputs_fn
            super().__init__(inputs, sequence_length, time_major=time_major, name=name)

    def sample(self, time, outputs, state, name=None):
        return bernoulli_sample(self._sampling_probability, sample_shape=self.batch_size,
                                seed=self._seed)  # fmt: skip

    def _with_auxiliary(self, time, outputs, indices=None):
        if self._auxiliary_input_tas is None:
            return outputs
        auxiliary = nest.map_structure(lambda ta: ta.read(time + 1), self._auxiliary_input_tas)
        if indices is not None:
            auxiliary = tf.gather_nd(auxiliary, indices)
        return nest.map_structure(lambda x, y: tf.concat((x, y), -1), outputs, auxiliary)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        finished, base, state = super().next_inputs(time, outputs, state, name=name)
        chosen = tf.cast(sample_ids, tf.bool)

        def maybe_sample():
            if self._next_inputs_fn is None:
                return v1.where(chosen, self._with_auxiliary(time, outputs), base)
            taken = tf.cast(v1.where(chosen), tf.int32)
            kept = tf.cast(v1.where(tf.logical_not(chosen)), tf.int32)
            fed = self._next_inputs_fn(tf.gather_nd(outputs, taken))
            fed = self._with_auxiliary(time, fed, taken)
            return _merge((taken, kept), fed, tf.gather_nd(base, kept), tf.shape(base))

        skip = tf.logical_or(tf.reduce_all(finished), tf.logical_not(tf.reduce_any(chosen)))
        return finished, v1.cond(skip, lambda: base, maybe_sample), state


class GreedyEmbeddingHelper(Helper):
    """Inference: start from ``start_tokens``' embeddings, feed back the
    argmax's, finish a sequence at ``end_token``."""

    def __init__(self, embedding, start_tokens, end_token):
        self._embedding_fn = _embedder(embedding)
        self._start_tokens = tf.convert_to_tensor(start_tokens, tf.int32, name="start_tokens")
        self._end_token = tf.convert_to_tensor(end_token, tf.int32, name="end_token")
        if self._start_tokens.shape.rank != 1:
            raise ValueError("start_tokens must be a vector")
        self._batch_size = tf.size(start_tokens)
        if self._end_token.shape.rank != 0:
            raise ValueError("end_token must be a scalar")
        self._start_inputs = self._embedding_fn(self._start_tokens)

    batch_size = property(lambda self: self._batch_size)
    sample_ids_shape = property(lambda self: tf.TensorShape([]))
    sample_ids_dtype = property(lambda self: tf.int32)

    def initialize(self, name=None):
        return tf.tile([False], [self._batch_size]), self._start_inputs

    def _logits(self, outputs) -> tf.Tensor:
        if not isinstance(outputs, tf.Tensor):
            raise TypeError(f"Expected outputs to be a single Tensor, got: {type(outputs)}")
        return outputs

    def sample(self, time, outputs, state, name=None):
        return tf.argmax(self._logits(outputs), axis=-1, output_type=tf.int32)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        finished = tf.equal(sample_ids, self._end_token)
        inputs = v1.cond(
            tf.reduce_all(finished),
            lambda: self._start_inputs,
            lambda: self._embedding_fn(sample_ids),
        )
        return finished, inputs, state


class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """GreedyEmbeddingHelper drawing from the softmax (of the logits over
    ``softmax_temperature``) instead of taking the argmax."""

    def __init__(self, embedding, start_tokens, end_token, softmax_temperature=None,
                 seed: Optional[int] = None):  # fmt: skip
        super().__init__(embedding, start_tokens, end_token)
        self._softmax_temperature = softmax_temperature
        self._seed = seed

    def sample(self, time, outputs, state, name=None):
        logits = self._logits(outputs)
        if self._softmax_temperature is not None:
            logits = logits / self._softmax_temperature
        return categorical_sample(logits, seed=self._seed)


class InferenceHelper(Helper):
    """Inference on the user's functions: ``sample_fn(outputs)``,
    ``end_fn(sample_ids)``, next input ``next_inputs_fn(sample_ids)`` (or the
    samples themselves)."""

    def __init__(self, sample_fn, sample_shape, sample_dtype, start_inputs, end_fn,
                 next_inputs_fn=None):  # fmt: skip
        self._sample_fn = sample_fn
        self._end_fn = end_fn
        self._sample_shape = tf.TensorShape(sample_shape)
        self._sample_dtype = sample_dtype
        self._next_inputs_fn = next_inputs_fn
        self._batch_size = tf.shape(start_inputs)[0]
        self._start_inputs = tf.convert_to_tensor(start_inputs, name="start_inputs")

    batch_size = property(lambda self: self._batch_size)
    sample_ids_shape = property(lambda self: self._sample_shape)
    sample_ids_dtype = property(lambda self: self._sample_dtype)

    def initialize(self, name=None):
        return tf.tile([False], [self._batch_size]), self._start_inputs

    def sample(self, time, outputs, state, name=None):
        return self._sample_fn(outputs)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        inputs = sample_ids if self._next_inputs_fn is None else self._next_inputs_fn(sample_ids)
        return self._end_fn(sample_ids), inputs, state
