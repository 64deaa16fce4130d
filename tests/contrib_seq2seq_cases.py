"""Programs written against ``tf.contrib.seq2seq``, run on two
implementations: TensorFlow 1.15.5 itself (scripts/make_contrib_seq2seq_goldens.py
writes what they computed to tests/goldens/contrib_seq2seq_<group>.json) and
tf1_train.compat's (tests/test_compat_contrib_dynamic_decode.py holds it to
those goldens).

A case is ``fn(s2s, tf) -> {name: tensor}``: ``s2s`` the seq2seq module,
``tf`` TensorFlow's v1 API (``import tensorflow.compat.v1 as tf``, as a
ported program has it). ``run`` builds it in a graph of its own, gives every
variable values drawn from its name (so the weights agree wherever the names
do), and evaluates the tensors. A case whose building raises records the
exception's type. Cases live in this module (decoders, helpers, the loss)
and in contrib_seq2seq_cases_<group>.py for the other groups.
"""

from __future__ import annotations

import importlib
import zlib
from typing import Callable, Dict

import numpy as np

GROUPS = ("decode", "attention", "beam")
CASES: Dict[str, Dict[str, Callable]] = {group: {} for group in GROUPS}
BATCH, TIME, VOCAB, UNITS = 3, 5, 11, 6
# Cases whose gradients pass an embedding lookup made inside the decoder's
# loop. TF 1.x's loops hand its gradient out as IndexedSlices, a row per id
# with repeated ids unsummed (tf.global_norm counts their parts apart); TF 2's
# as a dense tensor. Their goldens hold under TF 1.x's control flow.
LOOP_LOOKUP_GRADIENTS = ("scheduled_embedding_training_helper",)


def case(group: str):
    """Register ``fn`` as a case of ``group`` under its own name."""

    def register(fn: Callable) -> Callable:
        CASES[group][fn.__name__] = fn
        return fn

    return register


def cases(group: str) -> Dict[str, Callable]:
    """The group's cases, its module imported."""
    if group != "decode":
        importlib.import_module(f"contrib_seq2seq_cases_{group}")
    return CASES[group]


def value_for(name: str, shape) -> np.ndarray:
    """A variable's values, drawn from its name: uniform in [-0.5, 0.5)."""
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    return rng.uniform(-0.5, 0.5, [int(d) for d in shape]).astype(np.float32)


def run(s2s, tf, fn: Callable) -> dict:
    """``{"variables": {name: shape}, "values": {name: nested list}}`` of one
    case, or ``{"error": type name}`` when building it raises."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1234)
        try:
            fetches = fn(s2s, tf)
        except (TypeError, ValueError, NotImplementedError) as e:
            return {"error": type(e).__name__}
        variables = sorted(tf.global_variables(), key=lambda v: v.op.name)
        with tf.Session(graph=graph, config=_plain_graph(tf)) as sess:
            sess.run(tf.global_variables_initializer())
            for v in variables:
                if v.dtype.base_dtype.is_floating:
                    v.load(value_for(v.op.name, v.shape), sess)
            values = sess.run(fetches)
    return {
        "variables": {v.op.name: [int(d) for d in v.shape] for v in variables},
        "values": {k: _plain(x) for k, x in sorted(values.items())},
    }


def _plain_graph(tf):
    """A session that runs the graph as built: Grappler's passes cost half of
    a case's time, for fusions whose last bits the 1e-5 tolerance ignores."""
    config = tf.ConfigProto()
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    return config


def _plain(x):
    """JSON's form of a fetched value: floats rounded to 7 decimals."""
    x = np.asarray(x)
    return np.round(x.astype(np.float64), 7).tolist() if x.dtype.kind == "f" else x.tolist()


def tokens(seed: int, shape, low: int = 1, high: int = VOCAB) -> np.ndarray:
    return np.random.RandomState(seed).randint(low, high, shape).astype(np.int32)


def floats(seed: int, shape) -> np.ndarray:
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)


def _embedded(tf, name: str, ids: np.ndarray):
    embedding = tf.get_variable(name, [VOCAB, UNITS])
    return embedding, tf.nn.embedding_lookup(embedding, ids)


def _training_decoder(s2s, tf, cell, **decode_kwargs):
    """A TrainingHelper over embedded targets, a Dense projection to the
    vocabulary, the loss on the decoded outputs, and its gradient norm."""
    lengths = tf.constant([5, 3, 1])
    targets = tf.constant(tokens(1, (BATCH, TIME)))
    _, inputs = _embedded(tf, "embedding", targets)
    helper = s2s.TrainingHelper(inputs, lengths)
    projection = tf.layers.Dense(VOCAB, name="output_projection")
    initial = cell.zero_state(BATCH, tf.float32)
    decoder = s2s.BasicDecoder(cell, helper, initial, output_layer=projection)
    outputs, state, decoded = s2s.dynamic_decode(decoder, **decode_kwargs)
    logits = outputs.rnn_output
    steps = tf.shape(logits)[0 if decode_kwargs.get("output_time_major") else 1]
    if decode_kwargs.get("output_time_major"):
        logits = tf.transpose(logits, [1, 0, 2])
    mask = tf.sequence_mask(decoded, steps, dtype=tf.float32)
    loss = s2s.sequence_loss(logits, targets[:, :steps], mask)
    grads = tf.gradients(loss, tf.trainable_variables())
    return {
        "logits": logits,
        "sample_id": outputs.sample_id,
        "state": tf.concat(tf.nest.flatten(state), 1),
        "lengths": decoded,
        "loss": loss,
        "grad_norm": tf.global_norm(grads),
    }


@case("decode")
def training_helper_lstm(s2s, tf):
    return _training_decoder(s2s, tf, tf.nn.rnn_cell.LSTMCell(UNITS))


@case("decode")
def training_helper_time_major_imputed(s2s, tf):
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(UNITS) for _ in range(2)])
    return _training_decoder(s2s, tf, cell, output_time_major=True, impute_finished=True)


def _greedy(s2s, tf, helper_for, cell=None, **decode_kwargs):
    embedding = tf.get_variable("embedding", [VOCAB, UNITS])
    cell = cell or tf.nn.rnn_cell.LSTMCell(UNITS)
    helper = helper_for(embedding, tf.constant([1, 5, 9]))
    projection = tf.layers.Dense(VOCAB, use_bias=False, name="output_projection")
    initial = tf.nest.map_structure(  # a state of the encoder's, as it were
        lambda zeros: zeros + tf.constant(floats(9, zeros.shape)) * 2.0,
        cell.zero_state(BATCH, tf.float32),
    )
    decoder = s2s.BasicDecoder(cell, helper, initial, projection)
    outputs, state, lengths = s2s.dynamic_decode(decoder, **decode_kwargs)
    return {"logits": outputs.rnn_output, "sample_id": outputs.sample_id, "lengths": lengths,
            "state": tf.concat(tf.nest.flatten(state), 1)}  # fmt: skip


@case("decode")
def greedy_embedding_helper(s2s, tf):
    return _greedy(s2s, tf, lambda e, start: s2s.GreedyEmbeddingHelper(e, start, 6),
                   maximum_iterations=7, impute_finished=True)  # fmt: skip


@case("decode")
def greedy_embedding_callable(s2s, tf):
    """The embedding a function."""

    def helper(embedding, start):
        return s2s.GreedyEmbeddingHelper(lambda ids: tf.gather(embedding, ids) * 3.0, start, 5)

    return _greedy(s2s, tf, helper, maximum_iterations=12)


@case("decode")
def zero_maximum_iterations(s2s, tf):
    return _greedy(s2s, tf, lambda e, start: s2s.GreedyEmbeddingHelper(e, start, 4),
                   maximum_iterations=0)  # fmt: skip


@case("decode")
def sample_embedding_helper_seeded(s2s, tf):
    def helper(embedding, start):
        return s2s.SampleEmbeddingHelper(embedding, start, 4, softmax_temperature=0.5, seed=7)

    return _greedy(s2s, tf, helper, maximum_iterations=6, parallel_iterations=1)


def _scheduled(s2s, tf, make_helper):
    lengths = tf.constant([5, 4, 2])
    targets = tf.constant(tokens(2, (BATCH, TIME)))
    embedding, inputs = _embedded(tf, "embedding", targets)
    cell = tf.nn.rnn_cell.GRUCell(UNITS)
    helper = make_helper(embedding, inputs, lengths)
    projection = tf.layers.Dense(VOCAB, name="output_projection")
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(BATCH, tf.float32), projection)
    # One step in flight: the draws of whether to sample depend on nothing
    # of the last step, so with more the loop may run a later step's first
    # and they come out in another order (in TF1 too; a busy machine did).
    outputs, state, decoded = s2s.dynamic_decode(decoder, parallel_iterations=1)
    mask = tf.sequence_mask(decoded, TIME, tf.float32)
    loss = s2s.sequence_loss(outputs.rnn_output, targets, mask)
    grads = tf.gradients(loss, tf.trainable_variables())
    return {"logits": outputs.rnn_output, "sample_id": outputs.sample_id, "state": state,
            "loss": loss, "grad_norm": tf.global_norm(grads)}  # fmt: skip


@case("decode")
def scheduled_embedding_training_helper(s2s, tf):
    return _scheduled(s2s, tf, lambda embedding, inputs, lengths: (
        s2s.ScheduledEmbeddingTrainingHelper(inputs, lengths, embedding, 0.5, seed=3,
                                             scheduling_seed=5)))  # fmt: skip


@case("decode")
def scheduled_output_training_helper(s2s, tf):
    """The output fed back (projected to the input size) with probability 0.6."""
    feed = tf.layers.Dense(UNITS, name="feedback")
    return _scheduled(s2s, tf, lambda embedding, inputs, lengths: (
        s2s.ScheduledOutputTrainingHelper(inputs, lengths, 0.6, seed=11,
                                          next_inputs_fn=lambda out: feed(out))))  # fmt: skip


@case("decode")
def scheduled_output_auxiliary_inputs(s2s, tf):
    """Without next_inputs_fn the output itself is fed, the auxiliary inputs after it."""
    auxiliary = tf.constant(floats(3, (BATCH, TIME, 2)))

    def helper(embedding, inputs, lengths):
        return s2s.ScheduledOutputTrainingHelper(
            inputs[:, :, :VOCAB - 2] if VOCAB - 2 < UNITS else tf.zeros([BATCH, TIME, VOCAB]),
            lengths, 0.5, seed=13, auxiliary_inputs=auxiliary,
        )  # fmt: skip

    return _scheduled(s2s, tf, helper)


@case("decode")
def inference_helper_continuous(s2s, tf):
    """Tacotron-style: the outputs are frames, fed back, finished when a frame's mean passes 0.2."""
    cell = tf.nn.rnn_cell.LSTMCell(UNITS)
    frames = tf.layers.Dense(4, name="frame_projection")
    helper = s2s.InferenceHelper(
        sample_fn=lambda out: out, sample_shape=[4], sample_dtype=tf.float32,
        start_inputs=tf.zeros([BATCH, 4]), end_fn=lambda f: tf.reduce_mean(f, 1) > 0.2,
    )  # fmt: skip
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(BATCH, tf.float32), frames)
    outputs, state, lengths = s2s.dynamic_decode(decoder, maximum_iterations=8)
    return {"frames": outputs.rnn_output, "sample_id": outputs.sample_id, "lengths": lengths}


@case("decode")
def custom_helper_and_decoder(s2s, tf):
    """A user's own helper and a Decoder subclass whose finalize reverses the outputs."""
    inputs = tf.constant(floats(4, (BATCH, UNITS)))

    helper = s2s.CustomHelper(
        initialize_fn=lambda: (tf.constant([False] * BATCH), inputs),
        sample_fn=lambda time, outputs, state: tf.argmax(outputs, -1, output_type=tf.int32),
        next_inputs_fn=lambda time, outputs, state, sample_ids: (
            tf.fill([BATCH], time >= 2) | tf.equal(sample_ids, 0), outputs, state),
    )  # fmt: skip

    class Reversing(s2s.BasicDecoder):
        def finalize(self, outputs, final_state, sequence_lengths):
            return outputs._replace(rnn_output=tf.reverse(outputs.rnn_output, [0])), final_state

    cell = tf.nn.rnn_cell.BasicRNNCell(UNITS)
    decoder = Reversing(cell, helper, cell.zero_state(BATCH, tf.float32))
    outputs, state, lengths = s2s.dynamic_decode(decoder, swap_memory=True)
    return {"outputs": outputs.rnn_output, "sample_id": outputs.sample_id, "lengths": lengths}


@case("decode")
def sequence_loss_reductions(s2s, tf):
    logits = tf.constant(floats(5, (BATCH, TIME, VOCAB)))
    targets = tf.constant(tokens(6, (BATCH, TIME), 0))
    weights = tf.constant(np.array([[1, 1, 1, 0.5, 0], [1, 1, 0, 0, 0], [0] * 5], np.float32))
    flags = ("average_across_timesteps", "average_across_batch", "sum_over_timesteps",
             "sum_over_batch")  # fmt: skip
    settings = {"default": {}, "none": dict.fromkeys(flags[:2], False),
                "sum_both": {flags[0]: False, flags[1]: False, flags[2]: True, flags[3]: True},
                "per_step": {flags[1]: False}, "per_sequence": {flags[0]: False},
                "sum_time": {flags[0]: False, flags[1]: False, flags[2]: True},
                "sum_batch": {flags[0]: False, flags[1]: False, flags[3]: True},
                "average_time_sum_batch": {flags[1]: False, flags[3]: True},
                "sum_time_average_batch": {flags[0]: False, flags[2]: True},
                "custom_loss": {"softmax_loss_function": lambda labels, logits: (
                    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
                    * 2.0)}}  # fmt: skip
    return {key: s2s.sequence_loss(logits, targets, weights, **kwargs)
            for key, kwargs in settings.items()}  # fmt: skip


@case("decode")
def bad_sequence_loss_flags(s2s, tf):
    logits = tf.zeros([BATCH, TIME, VOCAB])
    return {"loss": s2s.sequence_loss(logits, tf.zeros([BATCH, TIME], tf.int32),
                                      tf.ones([BATCH, TIME]), sum_over_timesteps=True)}  # fmt: skip


@case("decode")
def bad_sequence_loss_batch_flags(s2s, tf):
    logits = tf.zeros([BATCH, TIME, VOCAB])
    return {"loss": s2s.sequence_loss(logits, tf.zeros([BATCH, TIME], tf.int32),
                                      tf.ones([BATCH, TIME]), sum_over_batch=True)}  # fmt: skip


@case("decode")
def bad_sequence_loss_rank(s2s, tf):
    return {"loss": s2s.sequence_loss(tf.zeros([BATCH, VOCAB]), tf.zeros([BATCH, TIME], tf.int32),
                                      tf.ones([BATCH, TIME]))}  # fmt: skip


@case("decode")
def bad_helper(s2s, tf):
    cell = tf.nn.rnn_cell.GRUCell(UNITS)
    s2s.BasicDecoder(cell, "teacher forcing", cell.zero_state(BATCH, tf.float32))
    return {}


@case("decode")
def bad_decoder(s2s, tf):
    s2s.dynamic_decode(tf.nn.rnn_cell.GRUCell(UNITS))
    return {}


@case("decode")
def bad_maximum_iterations(s2s, tf):
    return _greedy(s2s, tf, lambda e, start: s2s.GreedyEmbeddingHelper(e, start, 4),
                   maximum_iterations=[3, 4])  # fmt: skip


@case("decode")
def bad_sequence_length(s2s, tf):
    s2s.TrainingHelper(tf.zeros([BATCH, TIME, UNITS]), tf.ones([BATCH, 1], tf.int32))
    return {}


@case("decode")
def bad_start_tokens(s2s, tf):
    return _greedy(s2s, tf, lambda e, start: s2s.GreedyEmbeddingHelper(e, 1, 4))
