"""tf.contrib.rnn's embedding and projection wrappers and convolutional LSTM
cells after tf1_train.compat.install().

No TensorFlow of today has them. The wrappers are held to the same
computation written with core ops (the dense layer or the lookup over all
steps at once);
the convolutional cells to Keras 3's ConvLSTM1D/2D/3D, an implementation of
the same paper written apart from TF1's, on the TF1 checkpoint's weights as
tf1_train.port.rnn_weights rearranges them: the check of the cells and the
port recipe at once. Then user models on them train on the towers. The
helpers are tests/test_compat_contrib_rnn.py's.
"""

import numpy as np
import pytest
import tensorflow as tf

from tests.test_compat_contrib_rnn import (
    BATCH,
    DEPTH,
    TIME,
    UNITS,
    _contrib_rnn,
    _run,
    _steps,
    _trained,
    _value,
)
from tf1_train.port import rnn_weights
from tf1_train.tf2 import rnn as tf2_rnn

v1 = tf.compat.v1
PROJ = 3


def _by_last_two(grads):
    return {"/".join(k.split("/")[-2:]): v for k, v in grads.items()}


@pytest.mark.parametrize("kind", ["output", "input"])
def test_projection_wrappers_are_a_dense_layer_around_the_cell_on_tf1s_names(installed, kind):
    rnn = _contrib_rnn()
    wrapper = f"{kind}_projection_wrapper"
    scope = f"rnn/{wrapper}/"

    def wrapped():
        cls = rnn.OutputProjectionWrapper if kind == "output" else rnn.InputProjectionWrapper
        cell = cls(rnn.GRUCell(UNITS), PROJ, activation=tf.nn.relu)
        return v1.nn.dynamic_rnn(cell, _steps(), dtype=tf.float32, time_major=True)

    def written_out():  # the projection of every step at once, the core cell
        x = _steps()
        with v1.variable_scope(wrapper):
            rows = UNITS if kind == "output" else DEPTH
            kernel, bias = v1.get_variable("kernel", [rows, PROJ]), v1.get_variable("bias", [PROJ])
        if kind == "input":
            x = tf.nn.relu(tf.tensordot(x, kernel, 1) + bias)
        out, state = v1.nn.dynamic_rnn(rnn.GRUCell(UNITS), x, dtype=tf.float32, time_major=True)
        return (tf.nn.relu(tf.tensordot(out, kernel, 1) + bias) if kind == "output" else out), state

    out, state, grads = _run(wrapped)
    want_out, want_state, want_grads = _run(written_out)
    gru = "gru_cell/gates/kernel", "gru_cell/gates/bias", "gru_cell/candidate/kernel"
    assert sorted(grads) == sorted(scope + n for n in ("kernel", "bias", *gru,
                                                        "gru_cell/candidate/bias"))  # fmt: skip
    assert out.shape == (TIME, BATCH, PROJ if kind == "output" else UNITS)
    # one product per step against one over all steps (measured: 1.9e-6 at most)
    np.testing.assert_allclose(out, want_out, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(state, want_state, rtol=1e-6, atol=1e-6)
    got, want = _by_last_two(grads), _by_last_two(want_grads)
    assert sorted(got) == sorted(want)
    for key in got:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-5, err_msg=key)


def test_embedding_wrapper_looks_up_each_steps_ids_on_the_cpu_as_tf1_did(installed):
    rnn = _contrib_rnn()
    classes, size = 9, 3
    ids = np.random.RandomState(3).randint(0, classes, (TIME, BATCH, 1)).astype(np.int32)

    def wrapped():
        cell = rnn.EmbeddingWrapper(rnn.GRUCell(UNITS), classes, size)
        return v1.nn.dynamic_rnn(cell, tf.constant(ids), dtype=tf.float32, time_major=True)

    def written_out():  # TF1's advice: look the whole sequence up, then the core cell
        with v1.variable_scope("embedding_wrapper"):
            embedding = v1.get_variable("embedding", [classes, size])
        x = tf.nn.embedding_lookup(embedding, ids[..., 0])
        return v1.nn.dynamic_rnn(rnn.GRUCell(UNITS), x, dtype=tf.float32, time_major=True)

    scope = "rnn/embedding_wrapper/"
    gru = ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias")
    for tower in ("/device:CPU:1", "/device:GPU:1"):  # tower 1's device (graphs only: no GPU)
        with tf.Graph().as_default() as g, tf.device(tower):
            wrapped()
            made = {v.op.name: v.device for v in v1.global_variables()}
            body = [n for f in g.as_graph_def().library.function for n in f.node_def]
            cell_ops = {n.device for n in body if n.op in ("ResourceGather", "MatMul", "Sigmoid")}
            uniform = "rnn/embedding_wrapper/embedding/Initializer/random_uniform/"
            bounds = [tf.get_static_value(g.get_tensor_by_name(f"{uniform}{b}:0"))
                      for b in ("min", "max")]  # fmt: skip
        assert sorted(made) == sorted([scope + "embedding"] + [f"{scope}gru_cell/{n}" for n in gru])
        assert set(made.values()) == cell_ops == {"/device:CPU:0"}, tower  # TF1's pin wins
    np.testing.assert_allclose(bounds, [-np.sqrt(3), np.sqrt(3)])  # variance 1, TF1's default
    out, state, grads = _run(wrapped)
    want_out, want_state, want_grads = _run(written_out)
    # the same gathers and cell ops, one step at a time against all at once
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_array_equal(state, want_state)
    got, want = _by_last_two(grads), _by_last_two(want_grads)
    assert sorted(got) == sorted(want) and "embedding_wrapper/embedding" in got
    for key in got:  # the embedding's rows summed over steps in another order
        np.testing.assert_allclose(got[key], want[key], rtol=1e-6, atol=1e-6, err_msg=key)


CONV = {
    # name: (the cell's arguments, its scope, the Keras layer); inputs [time, batch, *input_shape]
    "1d": (dict(cls="Conv1DLSTMCell", input_shape=[6, 2], output_channels=3, kernel_shape=[3]),
           "conv_1d_lstm_cell", "ConvLSTM1D"),
    "2d_forget_bias": (dict(cls="Conv2DLSTMCell", input_shape=[5, 4, 2], output_channels=3,
                            kernel_shape=[3, 2], forget_bias=0.7), "conv_2d_lstm_cell",
                       "ConvLSTM2D"),
    "3d_no_bias": (dict(cls="ConvLSTMCell", conv_ndims=3, input_shape=[3, 4, 3, 1],
                        output_channels=2, kernel_shape=[2, 3, 3], use_bias=False),
                   "conv_lstm_cell", "ConvLSTM3D"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CONV))
def test_conv_lstm_cells_compute_what_keras_conv_lstm_does_on_the_rearranged_weights(
    installed, tmp_path, case
):
    kwargs, cell_scope, keras_layer = CONV[case]
    kwargs = dict(kwargs)
    cls = getattr(_contrib_rnn(), kwargs.pop("cls"))
    shape = [TIME, BATCH, *kwargs["input_shape"]]
    x = np.random.RandomState(2).randn(*shape).astype(np.float32)
    with tf.Graph().as_default():
        cell = cls(**kwargs)
        out, state = v1.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float32, time_major=True)
        names = {v.op.name: v.shape.as_list() for v in v1.global_variables()}
        with v1.Session() as sess:
            for var in v1.global_variables():
                var.load(_value(var.op.name, var.shape), sess)
            want, want_c = sess.run([out, state.c])
            v1.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    channels, kernel = kwargs["output_channels"], kwargs["kernel_shape"]
    expected = {f"rnn/{cell_scope}/kernel": [*kernel, shape[-1] + channels, 4 * channels]}
    if kwargs.get("use_bias", True):
        expected[f"rnn/{cell_scope}/biases"] = [4 * channels]
    assert names == expected
    assert want.shape == (TIME, BATCH, *kwargs["input_shape"][:-1], channels)
    layer_name, weights = rnn_weights.from_checkpoint(
        str(tmp_path / "model.ckpt"),
        f"rnn/{cell_scope}",
        forget_bias=kwargs.get("forget_bias", 1.0),
    )
    assert layer_name == keras_layer
    layer = getattr(tf.keras.layers, layer_name)(
        channels, kernel, padding="same", return_sequences=True, return_state=True
    )
    batch_major = np.moveaxis(x, 0, 1)
    layer.build(batch_major.shape)
    layer.set_weights(weights)
    got, _, got_c = (np.asarray(t) for t in layer(batch_major))
    # Keras adds the input's and the state's convolutions, TF1 convolves their
    # concatenation: float32 rounding apart (measured: 3.6e-7 at most)
    np.testing.assert_allclose(np.moveaxis(got, 1, 0), want, rtol=0, atol=1e-5)
    np.testing.assert_allclose(got_c, want_c, rtol=0, atol=1e-5)
    back = rnn_weights.tf1_conv_lstm(*weights, forget_bias=kwargs.get("forget_bias", 1.0))
    reader = tf.train.load_checkpoint(str(tmp_path / "model.ckpt"))
    np.testing.assert_array_equal(back[0], reader.get_tensor(f"rnn/{cell_scope}/kernel"))


def test_the_wrappers_and_conv_cells_refuse_what_tf1_refused(installed):
    rnn = _contrib_rnn()
    with pytest.raises(ValueError, match="output_size must be > 0"):
        rnn.OutputProjectionWrapper(rnn.GRUCell(4), 0)
    with pytest.raises(ValueError, match="output_size must be > 0"):  # and the TF2 twin's
        tf2_rnn.OutputProjectionWrapper(tf2_rnn.GRUCell(4), 0)
    with pytest.raises(TypeError, match="not RNNCell"):
        rnn.InputProjectionWrapper(tf.keras.layers.Dense(4), 2)
    with pytest.raises(ValueError, match="embedding_classes and embedding_size must be > 0"):
        rnn.EmbeddingWrapper(rnn.GRUCell(4), 0, 3)
    with pytest.raises(ValueError, match="embedding_classes and embedding_size must be > 0"):
        tf2_rnn.EmbeddingWrapper(tf2_rnn.GRUCell(4), 5, 0)
    with pytest.raises(ValueError, match=r"Invalid input_shape \[5, 2\] for conv_ndims=2"):
        rnn.Conv2DLSTMCell(input_shape=[5, 2], output_channels=3, kernel_shape=[3, 3])
    with pytest.raises(ValueError, match=r"Invalid input_shape \[5, 2\] for conv_ndims=2"):
        tf2_rnn.Conv2DLSTMCell(input_shape=[5, 2], output_channels=3, kernel_shape=[3, 3])


@pytest.mark.parametrize("model", ["projection", "conv_rows", "embedded_pixels"])
def test_users_models_on_the_wrappers_and_conv_cell_train_on_the_towers(tmp_path, model):
    # tests/user_models/contrib_cells.py on 2 towers through the CLI. Final
    # losses after 40 steps, from ln(10) = 2.30: 1.25, 1.70 and 1.56, each
    # the same in repeated runs (no dropout); the convolutional one learns
    # slower, the embedded one reads 64 quantized pixels one at a time.
    bar = {"projection": 1.5, "conv_rows": 2.0, "embedded_pixels": 1.9}[model]
    shapes = _trained(tmp_path, model, "parameter_server", max_loss=bar, module="contrib_cells")
    mine = sorted(k for k in shapes if k.startswith("rnn/") and "Adam" not in k)
    if model == "projection":
        out, inp = "rnn/output_projection_wrapper/", "input_projection_wrapper/"
        assert mine == sorted(
            out + n
            for n in (
                "kernel",
                "bias",
                inp + "kernel",
                inp + "bias",
                inp + "gru_cell/gates/kernel",
                inp + "gru_cell/gates/bias",
                inp + "gru_cell/candidate/kernel",
                inp + "gru_cell/candidate/bias",
            )
        )
    elif model == "embedded_pixels":
        gru = ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias")
        wrapper = "rnn/embedding_wrapper/"
        assert mine == sorted([wrapper + "embedding"] + [f"{wrapper}gru_cell/{n}" for n in gru])
        assert shapes[wrapper + "embedding"] == [16, 8]
    else:
        assert mine == ["rnn/conv_1d_lstm_cell/biases", "rnn/conv_1d_lstm_cell/kernel"]
        assert shapes["rnn/conv_1d_lstm_cell/kernel"] == [3, 5, 16]
