"""The attention group of tests/contrib_seq2seq_cases.py: ``AttentionWrapper``
over each mechanism of ``tf.contrib.seq2seq`` (Bahdanau, Luong, their
monotonic kin in every mode), run by ``tf.nn.dynamic_rnn`` or step by step,
the functions ``hardmax``, ``safe_cumprod`` and ``monotonic_attention`` on
fixed inputs, and inputs TF 1.15 refused.
"""

from __future__ import annotations

import numpy as np
from contrib_seq2seq_cases import BATCH, TIME, UNITS, VOCAB, case, floats, tokens

STEPS = 4  # decoder steps
LENGTHS = [5, 3, 2]  # memory lengths


def _memory(tf, depth: int = UNITS):
    return tf.constant(floats(11, (BATCH, TIME, depth)))


def _rnn(s2s, tf, mechanism, grads: bool = False, **wrapper_kwargs) -> dict:
    """An LSTM wrapped with ``mechanism`` (one or a list) run over STEPS
    embedded tokens by dynamic_rnn: its outputs, final state, alignments
    (and their history), and the gradient norm of the outputs' sum."""
    _, inputs = _embedded(tf, tokens(3, (BATCH, STEPS)))
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(UNITS), mechanism, **wrapper_kwargs)
    outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
    fetches = {
        "outputs": outputs,
        "cell_state": tf.concat(tf.nest.flatten(state.cell_state), 1),
        "attention": state.attention,
        "time": state.time,
        "alignments": tf.concat(tf.nest.flatten(state.alignments), 1),
    }
    if wrapper_kwargs.get("alignment_history"):
        histories = tf.nest.flatten(state.alignment_history)
        fetches["history"] = tf.concat([h.stack() for h in histories], 2)
    if grads:
        gradients = tf.gradients(tf.reduce_sum(outputs), tf.trainable_variables())
        fetches["grad_norm"] = tf.global_norm(gradients)
    return fetches


def _embedded(tf, ids):
    embedding = tf.get_variable("embedding", [VOCAB, UNITS])
    return embedding, tf.nn.embedding_lookup(embedding, ids)


@case("attention")
def bahdanau(s2s, tf):
    mechanism = s2s.BahdanauAttention(UNITS, _memory(tf))
    return _rnn(s2s, tf, mechanism, grads=True)


@case("attention")
def bahdanau_normalized_masked(s2s, tf):
    mechanism = s2s.BahdanauAttention(4, _memory(tf), LENGTHS, normalize=True)
    return _rnn(s2s, tf, mechanism, grads=True, attention_layer_size=5)


@case("attention")
def luong(s2s, tf):
    mechanism = s2s.LuongAttention(UNITS, _memory(tf, 4))
    return _rnn(s2s, tf, mechanism, grads=True)


@case("attention")
def luong_scaled_masked_layer(s2s, tf):
    mechanism = s2s.LuongAttention(UNITS, _memory(tf), LENGTHS, scale=True)
    return _rnn(s2s, tf, mechanism, grads=True, attention_layer_size=7)


@case("attention")
def luong_hardmax_mask_value(s2s, tf):
    mechanism = s2s.LuongAttention(
        UNITS, _memory(tf), LENGTHS, probability_fn=s2s.hardmax, score_mask_value=-1e4
    )
    return _rnn(s2s, tf, mechanism)


@case("attention")
def bahdanau_soft_mask_value(s2s, tf):
    """A finite mask value leaves the padding some weight: the memory's own
    masking shows, in the context and in the keys and values."""
    mechanism = s2s.BahdanauAttention(UNITS, _memory(tf), LENGTHS, score_mask_value=-2.0)
    fetches = _rnn(s2s, tf, mechanism, grads=True)
    return {**fetches, "keys": mechanism.keys, "values": mechanism.values}


@case("attention")
def bahdanau_custom_keys_output_cell(s2s, tf):
    mechanism = s2s.BahdanauAttention(
        UNITS, _memory(tf), custom_key_value_fn=lambda k, v: (k * 2.0, v[:, :, :4])
    )
    return _rnn(s2s, tf, mechanism, output_attention=False)


def _monotonic(s2s, tf, cls, mode, **kwargs):
    mechanism = getattr(s2s, cls)(UNITS, _memory(tf), mode=mode, **kwargs)
    return _rnn(s2s, tf, mechanism, grads=mode != "hard", alignment_history=True)


@case("attention")
def bahdanau_monotonic_parallel(s2s, tf):
    return _monotonic(s2s, tf, "BahdanauMonotonicAttention", "parallel")


@case("attention")
def bahdanau_monotonic_recursive_normalized(s2s, tf):
    return _monotonic(s2s, tf, "BahdanauMonotonicAttention", "recursive", normalize=True,
                      sigmoid_noise=0.0, memory_sequence_length=LENGTHS)  # fmt: skip


@case("attention")
def bahdanau_monotonic_hard(s2s, tf):
    return _monotonic(s2s, tf, "BahdanauMonotonicAttention", "hard", score_bias_init=-0.5)


@case("attention")
def luong_monotonic_parallel_scaled_masked(s2s, tf):
    return _monotonic(s2s, tf, "LuongMonotonicAttention", "parallel", scale=True,
                      memory_sequence_length=LENGTHS, sigmoid_noise=0.0)  # fmt: skip


@case("attention")
def luong_monotonic_recursive(s2s, tf):
    return _monotonic(s2s, tf, "LuongMonotonicAttention", "recursive", score_bias_init=1.0)


@case("attention")
def luong_monotonic_hard(s2s, tf):
    return _monotonic(s2s, tf, "LuongMonotonicAttention", "hard")


@case("attention")
def two_mechanisms_layers_history(s2s, tf):
    mechanisms = [
        s2s.BahdanauAttention(UNITS, _memory(tf), LENGTHS),
        s2s.LuongAttention(UNITS, _memory(tf, 4), scale=True),
    ]
    return _rnn(s2s, tf, mechanisms, grads=True, attention_layer_size=[4, 5],
                alignment_history=True)  # fmt: skip


@case("attention")
def two_mechanisms_contexts_output_cell(s2s, tf):
    mechanisms = (
        s2s.LuongAttention(UNITS, _memory(tf), LENGTHS),
        s2s.BahdanauMonotonicAttention(3, _memory(tf, 4), mode="recursive"),
    )
    return _rnn(s2s, tf, mechanisms, output_attention=False, alignment_history=True)


@case("attention")
def user_attention_layer_and_input_fn(s2s, tf):
    mechanism = s2s.BahdanauAttention(UNITS, _memory(tf, 4), LENGTHS)
    layer = tf.layers.Dense(UNITS, activation=tf.tanh, name="my_attention")
    return _rnn(s2s, tf, mechanism, grads=True, attention_layer=layer,
                cell_input_fn=lambda inputs, attention: inputs + attention)  # fmt: skip


@case("attention")
def initial_cell_state(s2s, tf):
    mechanism = s2s.LuongAttention(UNITS, _memory(tf), LENGTHS)
    c, h = tf.constant(floats(5, (BATCH, UNITS))), tf.constant(floats(6, (BATCH, UNITS)))
    start = tf.nn.rnn_cell.LSTMStateTuple(c, h)
    return _rnn(s2s, tf, mechanism, initial_cell_state=start, attention_layer_size=UNITS)


@case("attention")
def stepped_by_hand_from_clone(s2s, tf):
    """Two calls of the cell on a cloned zero state, then the state's sizes."""
    mechanism = s2s.BahdanauMonotonicAttention(UNITS, _memory(tf), LENGTHS, normalize=True)
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(UNITS), mechanism, attention_layer_size=4,
                                alignment_history=True, name="attend")  # fmt: skip
    state = cell.zero_state(BATCH, tf.float32)
    state = state.clone(cell_state=tf.constant(floats(7, (BATCH, UNITS))))
    outputs = []
    for t in range(2):
        output, state = cell(tf.constant(floats(20 + t, (BATCH, 3))), state)
        outputs.append(output)
    sizes = [cell.output_size, cell.state_size.attention, mechanism.alignments_size,
             mechanism.state_size]  # fmt: skip
    return {
        "outputs": tf.stack(outputs, 1),
        "state": tf.concat([state.cell_state, state.attention, state.alignments], 1),
        "history": state.alignment_history.stack(),
        "sizes": tf.constant(sizes),
    }


@case("attention")
def hardmax_fixed(s2s, tf):
    logits = floats(30, (2, 3, 5))
    logits[0, 0, 1] = logits[0, 0, 3] = 9.0  # ties: the first one
    return {"hardmax": s2s.hardmax(tf.constant(logits)), "int": s2s.hardmax([[1.0, 3.0, 2.0]])}


@case("attention")
def safe_cumprod_fixed(s2s, tf):
    x = tf.constant(np.array([[0.5, 0.0, 2.0, 0.25], [1.0, 0.9, 1e-40, 0.3]], np.float32))
    return {
        "plain": s2s.safe_cumprod(x, axis=1),
        "exclusive": s2s.safe_cumprod(x, axis=1, exclusive=True),
        "reverse": s2s.safe_cumprod(x, 1, True, True),
        "gradient": tf.gradients(tf.reduce_sum(s2s.safe_cumprod(x, axis=1)), x)[0],
    }


@case("attention")
def monotonic_attention_fixed(s2s, tf):
    p = tf.constant(1 / (1 + np.exp(-floats(31, (BATCH, TIME)))))
    previous = tf.constant(np.float32([[1, 0, 0, 0, 0], [0, 0.5, 0.5, 0, 0], [0, 0, 0, 0.2, 0.8]]))
    hard_p = tf.constant(np.float32([[0, 1, 0, 1, 1], [1, 0, 0, 1, 0], [1, 1, 0, 0, 0]]))
    fetches = {m: s2s.monotonic_attention(p, previous, m) for m in ("recursive", "parallel")}
    fetches["hard"] = s2s.monotonic_attention(hard_p, previous, "hard")
    fetches["gradient"] = tf.gradients(tf.reduce_sum(fetches["parallel"] ** 2), p)[0]
    return fetches


@case("attention")
def bad_luong_depth(s2s, tf):
    mechanism = s2s.LuongAttention(4, _memory(tf))  # the query (cell output) is UNITS deep
    return _rnn(s2s, tf, mechanism)


@case("attention")
def bad_layer_size_and_layer(s2s, tf):
    mechanism = s2s.BahdanauAttention(UNITS, _memory(tf))
    layer = tf.layers.Dense(UNITS)
    return _rnn(s2s, tf, mechanism, attention_layer_size=UNITS, attention_layer=layer)


@case("attention")
def bad_layer_sizes_count(s2s, tf):
    mechanisms = [s2s.BahdanauAttention(UNITS, _memory(tf)), s2s.LuongAttention(UNITS, _memory(tf))]
    return _rnn(s2s, tf, mechanisms, attention_layer_size=[4])


@case("attention")
def bad_mechanism_type(s2s, tf):
    return _rnn(s2s, tf, [s2s.BahdanauAttention(UNITS, _memory(tf)), "luong"])


@case("attention")
def bad_monotonic_mode(s2s, tf):
    return {"attention": s2s.monotonic_attention([[0.5, 0.5]], [[1.0, 0.0]], "soft")}


@case("attention")
def bad_memory_inner_dims(s2s, tf):
    memory = tf.placeholder(tf.float32, [BATCH, TIME, None])
    return {"keys": s2s.LuongAttention(UNITS, memory).keys}


@case("attention")
def luong_monotonic_seeded_noise(s2s, tf):
    """Noise with an op seed (and run's graph seed) draws the same numbers
    when the steps are unrolled: in a while loop the steps' draws would
    race (the noise's shape is static), in TF 1.15 too."""
    mechanism = s2s.LuongMonotonicAttention(UNITS, _memory(tf), sigmoid_noise=1.5,
                                            sigmoid_noise_seed=7)  # fmt: skip
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(UNITS), mechanism)
    state, outputs = cell.zero_state(BATCH, tf.float32), []
    for t in range(3):
        output, state = cell(tf.constant(floats(40 + t, (BATCH, UNITS))), state)
        outputs.append(output)
    return {"outputs": tf.stack(outputs, 1), "alignments": state.alignments}


@case("attention")
def wrapper_in_basic_decoder(s2s, tf):
    """The wrapper as a BasicDecoder's cell (TrainingHelper, an output layer)
    in dynamic_decode, its history kept."""
    mechanism = s2s.BahdanauAttention(UNITS, _memory(tf), LENGTHS, normalize=True)
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(UNITS), mechanism, attention_layer_size=5,
                                alignment_history=True)  # fmt: skip
    _, inputs = _embedded(tf, tokens(3, (BATCH, STEPS)))
    helper = s2s.TrainingHelper(inputs, tf.constant([4, 2, 3]))
    projection = tf.layers.Dense(VOCAB, name="projection")
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(BATCH, tf.float32), projection)
    outputs, state, lengths = s2s.dynamic_decode(decoder)
    grads = tf.gradients(tf.reduce_sum(outputs.rnn_output), tf.trainable_variables())
    return {
        "logits": outputs.rnn_output,
        "sample_id": outputs.sample_id,
        "lengths": lengths,
        "attention": state.attention,
        "history": state.alignment_history.stack(),
        "grad_norm": tf.global_norm(grads),
    }
