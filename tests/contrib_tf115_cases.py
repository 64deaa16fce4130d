"""Programs over ``tf.contrib.rnn``'s cells, ``tf.contrib.legacy_seq2seq``,
``tf.contrib.crf`` and ``tf.contrib.layers`` (and TF 1.x's random draws
given op seeds), run on TensorFlow 1.15.5 itself
by scripts/make_contrib_tf115_goldens.py (Python 3.7: no newer syntax here)
and on tf1_train.compat by tests/test_compat_contrib_tf115.py, which holds
the second to the first.

A case is ``fn(m, tf) -> [tensor, ...]``: ``m`` has the contrib modules
(``m.rnn``, ``m.seq2seq``, ``m.crf``, ``m.layers``), ``tf`` is the v1 API.
``run`` builds it in a graph of its own, gives every trainable variable
values drawn from its name (so the weights agree wherever the names do),
and returns the outputs, the gradients of their summed squares with respect
to each trainable variable (and the input, where there is one), the other
variables (batch norm's statistics) after one run of ``UPDATE_OPS``, and
every variable's name and shape. Both sides run on resource variables.
"""

import zlib

import numpy as np

B, T, D, U, V = 3, 4, 5, 6, 9
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def value_for(name, shape):
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    return rng.uniform(-0.5, 0.5, [int(d) for d in shape]).astype(np.float32)


def floats(shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def ints(shape, n, seed=3):
    return np.random.RandomState(seed).randint(0, n, shape).astype(np.int32)


def _dynamic(tf, cell, x):
    x = tf.constant(x, name="input")
    out, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    return [out] + tf.nest.flatten(state)


def _fused(tf, cell):
    x = tf.constant(floats((B, T, D)), name="input")
    out, state = cell(tf.transpose(x, [1, 0, 2]), dtype=tf.float32)
    return [out] + tf.nest.flatten(state)


def _cell_cases():
    """One case per cell: a dynamic_rnn over [3, 4, 5] inputs (cells whose
    input must match their size: 6)."""
    x, x6 = floats((B, T, D)), floats((B, T, U), 1)
    made = {
        "attention_cell_wrapper": (
            lambda m, tf: m.rnn.AttentionCellWrapper(
                tf.nn.rnn_cell.LSTMCell(U), attn_length=3, state_is_tuple=True
            ),
            x,
        ),
        "conv1d_lstm": (
            lambda m, tf: m.rnn.Conv1DLSTMCell(
                input_shape=[8, 2], output_channels=3, kernel_shape=[3]
            ),
            floats((B, T, 8, 2), 2),
        ),
        "conv2d_lstm": (
            lambda m, tf: m.rnn.Conv2DLSTMCell(
                input_shape=[4, 4, 2], output_channels=3, kernel_shape=[3, 3]
            ),
            floats((B, T, 4, 4, 2), 2),
        ),
        "input_projection": (
            lambda m, tf: m.rnn.InputProjectionWrapper(tf.nn.rnn_cell.GRUCell(U), 7),
            x,
        ),
        "output_projection": (
            lambda m, tf: m.rnn.OutputProjectionWrapper(tf.nn.rnn_cell.GRUCell(U), 7),
            x,
        ),
        "gru_block": (lambda m, tf: m.rnn.GRUBlockCell(U), x),
        "gru_block_v2": (lambda m, tf: m.rnn.GRUBlockCellV2(U), x),
        "lstm_block": (lambda m, tf: m.rnn.LSTMBlockCell(U), x),
        "lstm_block_peephole": (
            lambda m, tf: m.rnn.LSTMBlockCell(U, forget_bias=0.5, cell_clip=0.3, use_peephole=True),
            x,
        ),
        "layer_norm_basic_lstm": (lambda m, tf: m.rnn.LayerNormBasicLSTMCell(U), x),
        "layer_norm_basic_lstm_plain": (
            lambda m, tf: m.rnn.LayerNormBasicLSTMCell(U, forget_bias=0.3, layer_norm=False),
            x,
        ),
        "ind_rnn": (lambda m, tf: m.rnn.IndRNNCell(U), x),
        "indy_gru": (lambda m, tf: m.rnn.IndyGRUCell(U), x),
        "indy_lstm": (lambda m, tf: m.rnn.IndyLSTMCell(U), x),
        "intersection": (lambda m, tf: m.rnn.IntersectionRNNCell(U), x6),
        "intersection_projected": (
            lambda m, tf: m.rnn.IntersectionRNNCell(U, num_in_proj=U, y_activation=tf.nn.relu),
            x,
        ),
        "nas": (lambda m, tf: m.rnn.NASCell(U), x),
        "nas_projected": (lambda m, tf: m.rnn.NASCell(U, num_proj=4), x),
        "ugrnn": (lambda m, tf: m.rnn.UGRNNCell(U), x),
    }
    for name, (make, inputs) in made.items():
        CASES["cell_" + name] = _over(make, inputs)


def _over(make, inputs):
    return lambda m, tf: _dynamic(tf, make(m, tf), inputs)


_cell_cases()


@case
def cell_lstm_block_fused(m, tf):
    return _fused(tf, m.rnn.LSTMBlockFusedCell(U, cell_clip=0.4, use_peephole=True))


@case
def cell_time_reversed_fused(m, tf):
    return _fused(tf, m.rnn.TimeReversedFusedRNN(m.rnn.LSTMBlockFusedCell(U)))


@case
def cell_dropout_per_step(m, tf):
    """Seeded dropout drawn at each step of the loop: with one iteration in
    flight TF 2.21 gives each step TF 1.15.5's mask (with more, the draws go
    to the steps in the executor's order: another order on TF 2.21, and from
    run to run for DropoutWrapper on TF 1.15.5 itself)."""
    tf.set_random_seed(5)
    x = tf.constant(floats((B, T, D)), name="input")
    cells = [
        tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(U), input_keep_prob=0.7,
                                      output_keep_prob=0.6, state_keep_prob=0.5, seed=4),
        m.rnn.LayerNormBasicLSTMCell(U, dropout_keep_prob=0.5, dropout_prob_seed=3),
    ]  # fmt: skip
    outs = []
    for i, cell in enumerate(cells):
        with tf.variable_scope(f"cell{i}"):
            outs.append(tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, parallel_iterations=1)[0])
    return outs


@case
def cell_embedding_wrapper(m, tf):
    ids = tf.constant(ints((B, T, 1), 11))
    cell = m.rnn.EmbeddingWrapper(tf.nn.rnn_cell.GRUCell(U), 11, 4)
    out, state = tf.nn.dynamic_rnn(cell, ids, dtype=tf.float32)
    return [out, state]


def _steps(tf, seed=0):
    return [tf.constant(floats((B, D), seed + i)) for i in range(T)]


def _id_steps(tf, seed=0):
    return [tf.constant(ints((B,), V, seed + i)) for i in range(T)]


@case
def seq2seq_basic(m, tf):
    out, state = m.seq2seq.basic_rnn_seq2seq(_steps(tf), _steps(tf, 10), tf.nn.rnn_cell.GRUCell(U))
    return out + [state]


@case
def seq2seq_tied(m, tf):
    out, state = m.seq2seq.tied_rnn_seq2seq(_steps(tf), _steps(tf, 10), tf.nn.rnn_cell.GRUCell(U))
    return out + [state]


@case
def seq2seq_attention_decoder(m, tf):
    states = tf.stack([tf.concat([x, x[:, :1]], 1) for x in _steps(tf)], 1)
    out, state = m.seq2seq.attention_decoder(
        _steps(tf, 10), tf.zeros([B, U]), states, tf.nn.rnn_cell.GRUCell(U),
        output_size=7, num_heads=2,
    )  # fmt: skip
    return out + [state]


def _embedding_seq2seq(model: str, **options):
    """A case of legacy_seq2seq's ``<model>_seq2seq`` on ids, 9 symbols each side."""

    def fn(m, tf):
        out, state = getattr(m.seq2seq, model + "_seq2seq")(
            _id_steps(tf), _id_steps(tf, 10), tf.nn.rnn_cell.GRUCell(U), V, V, 4, **options
        )
        return out + [state]

    return fn


CASES["seq2seq_embedding_rnn"] = _embedding_seq2seq("embedding_rnn")
CASES["seq2seq_embedding_rnn_feed_previous"] = _embedding_seq2seq(
    "embedding_rnn", feed_previous=True
)
CASES["seq2seq_embedding_attention"] = _embedding_seq2seq("embedding_attention")
CASES["seq2seq_embedding_attention_feed_previous"] = _embedding_seq2seq(
    "embedding_attention", num_heads=2, feed_previous=True
)


@case
def seq2seq_embedding_tied(m, tf):
    out, state = m.seq2seq.embedding_tied_rnn_seq2seq(
        _id_steps(tf), _id_steps(tf, 10), tf.nn.rnn_cell.GRUCell(U), V, 4, num_decoder_symbols=V
    )
    return out + [state]


@case
def seq2seq_losses(m, tf):
    logits = [tf.constant(floats((B, V), i)) for i in range(T)]
    weights = [tf.constant(np.full(B, (i + 1) / T, np.float32)) for i in range(T)]
    targets = _id_steps(tf)
    return [
        m.seq2seq.sequence_loss(logits, targets, weights),
        m.seq2seq.sequence_loss_by_example(logits, targets, weights),
    ]


@case
def crf_likelihood_and_decode(m, tf):
    unary = tf.constant(floats((B, T, 5)), name="input")
    tags, lengths = tf.constant(ints((B, T), 5)), tf.constant([4, 2, 3])
    likelihood, transitions = m.crf.crf_log_likelihood(unary, tags, lengths)
    decoded, score = m.crf.crf_decode(unary, transitions, lengths)
    return [
        likelihood, transitions, tf.cast(decoded, tf.float32), score,
        m.crf.crf_sequence_score(unary, tags, lengths, transitions),
        m.crf.crf_log_norm(unary, lengths, transitions),
    ]  # fmt: skip


@case
def layers_layer_norm(m, tf):
    x = tf.constant(floats((B, T, D)), name="input")
    return [
        m.layers.layer_norm(x),
        m.layers.layer_norm(x, begin_norm_axis=1, begin_params_axis=-1, center=False),
    ]


@case
def layers_fully_connected(m, tf):
    x = tf.constant(floats((B, D)), name="input")
    return [
        m.layers.fully_connected(x, 4),
        m.layers.fully_connected(x, 3, activation_fn=None, normalizer_fn=m.layers.layer_norm),
    ]


@case
def layers_convolutions(m, tf):
    x = tf.constant(floats((B, 6, 6, 2)), name="input")
    return [
        m.layers.conv2d(x, 3, 3),
        m.layers.conv2d(x, 2, [2, 2], stride=2, padding="VALID"),
        m.layers.separable_conv2d(x, 4, 3, depth_multiplier=2),
    ]


@case
def layers_batch_norm(m, tf):
    """4-D, 2-D (decay, no zero debias) and 5-D inputs, in training."""
    return [
        m.layers.batch_norm(tf.constant(floats((B, 4, 4, 3))), is_training=True, scale=True),
        m.layers.batch_norm(tf.constant(floats((B, D))), is_training=True, decay=0.9, scope="bn2"),
        m.layers.batch_norm(tf.constant(floats((B, 2, 2, 2, 3))), is_training=True, scope="bn5"),
    ]


@case
def layers_batch_norm_small_epsilon(m, tf):
    """Epsilon below 1.001e-5 on channels of small variance: TF 1.x's fused
    kernel raised it to 1.001e-5, through the layer (tf-slim's
    ``batch_norm`` and ``tf.layers``), tf-slim's own fused path
    (``zero_debias_moving_mean``) and ``tf.nn.fused_batch_norm`` itself."""
    x = tf.constant(floats((B, 2, 2, 3)) * 0.01, name="input")
    scale, offset = tf.constant([1.0, 2.0, 0.5]), tf.constant([0.1, 0.0, -0.1])
    return [
        m.layers.batch_norm(x, is_training=True, scale=True, epsilon=1e-5),
        m.layers.batch_norm(x, is_training=True, epsilon=1e-6, zero_debias_moving_mean=True,
                            scope="zero_debias"),
        tf.nn.fused_batch_norm(x, scale, offset, epsilon=1e-5)[0],
        tf.nn.fused_batch_norm(x, scale, offset, None, None, 1e-6)[0],
        tf.layers.batch_normalization(x, training=True, epsilon=0.0),
    ]  # fmt: skip


@case
def layers_embed_sequence(m, tf):
    return [m.layers.embed_sequence(tf.constant(ints((B, T), V)), V, 4)]


@case
def seeded_draws(m, tf):
    """Random ops and initializers given op seeds: TF 2.21 draws TF 1.15.5's
    numbers. With the graph seed alone it does not: the op seed is then the
    count of ops made before, which differs between the versions."""
    tf.set_random_seed(1)
    data = tf.data.Dataset.range(20).shuffle(10, seed=1).batch(20)
    init = tf.glorot_uniform_initializer(seed=5)([4, 3])
    return [
        tf.random_uniform([5], seed=9), tf.random_normal([5], seed=3),
        tf.truncated_normal([5], seed=5),
        tf.cast(tf.random_shuffle(tf.range(10), seed=3), tf.float32),
        tf.cast(tf.multinomial(tf.zeros([1, 5]), 6, seed=4), tf.float32),
        tf.nn.dropout(tf.ones([4, 5]), rate=0.5, seed=7), init,
        tf.cast(tf.data.make_one_shot_iterator(data).get_next(), tf.float32),
    ]  # fmt: skip


def run(m, tf, fn):
    """(arrays, variables): ``out<i>``, ``grad/<name>``, ``after/<name>``;
    ``[[name, shape], ...]`` of every global variable."""
    graph = tf.Graph()
    with graph.as_default():
        outs = fn(m, tf)
        trained = sorted(tf.trainable_variables(), key=lambda v: v.op.name)
        inputs = [t for t in [_input(graph)] if t is not None]
        loss = tf.add_n([tf.reduce_sum(tf.square(tf.cast(o, tf.float32))) for o in outs])
        grads = [tf.convert_to_tensor(g) for g in tf.gradients(loss, trained + inputs)]
        every = sorted(tf.global_variables(), key=lambda v: v.op.name)
        kept = [v for v in every if v.op.name not in {t.op.name for t in trained}]
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            for v in trained:
                v.load(value_for(v.op.name, v.shape), sess)
            values, grad_values, _ = sess.run([outs, grads, updates])
            after = sess.run(kept)
    arrays = {f"out{i}": np.asarray(v) for i, v in enumerate(values)}
    names = [v.op.name for v in trained] + ["input"] * len(inputs)
    arrays.update({"grad/" + n: np.asarray(g) for n, g in zip(names, grad_values)})
    arrays.update({"after/" + v.op.name: np.asarray(a) for v, a in zip(kept, after)})
    return arrays, [[v.op.name, [int(d) for d in v.shape]] for v in every]


def _input(graph):
    try:
        return graph.get_tensor_by_name("input:0")
    except KeyError:
        return None
