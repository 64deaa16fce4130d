"""tf.contrib.cudnn_rnn's CPU cells, core_rnn_cell's ``_Linear`` and the
private seq2seq helpers after tf1_train.compat.install(), held to TF 1.15.5.

tests/contrib_cudnn_cases.py runs CudnnCompatibleLSTMCell and
CudnnCompatibleGRUCell under dynamic_rnn and ``_Linear`` / ``_linear`` on
weights drawn from the variables' names; TF 1.15.5 made the variables
``VARIABLES`` and computed ``GOLDEN`` (three sums of each output and
gradient). On 2.21 they agree to 1e-6 relative (float32 rounding; the GRU's
and ``_Linear``'s ops are TF 1.15's, the LSTM runs TensorFlow's fused kernel).
"""

import contrib_cudnn_cases as cases
import numpy as np
import pytest
import tensorflow as tf

# measured on TF 1.15.5, 2026-12-07 (python tests/contrib_cudnn_cases.py)
VARIABLES = [
    ("lstm/rnn/cudnn_compatible_lstm_cell/kernel", [11, 24]),
    ("lstm/rnn/cudnn_compatible_lstm_cell/bias", [24]),
    ("gru/rnn/cudnn_compatible_gru_cell/gates/kernel", [11, 12]),
    ("gru/rnn/cudnn_compatible_gru_cell/gates/bias", [12]),
    ("gru/rnn/cudnn_compatible_gru_cell/candidate/input_projection/kernel", [5, 6]),
    ("gru/rnn/cudnn_compatible_gru_cell/candidate/hidden_projection/kernel", [6, 6]),
    ("gru/rnn/cudnn_compatible_gru_cell/candidate/input_projection/bias", [6]),
    ("gru/rnn/cudnn_compatible_gru_cell/candidate/hidden_projection/bias", [6]),
    ("linear/kernel", [8, 7]),
    ("linear/bias", [7]),
    ("linear_nobias/kernel", [5, 4]),
    ("linear_fn/kernel", [10, 3]),
    ("linear_fn/bias", [3]),
]
GOLDEN = {
    "grad:Const": (1.05727289, -2.46957944, 40.8937556),
    "grad:gru/rnn/cudnn_compatible_gru_cell/candidate/hidden_projection/bias": (
        4.68953711,
        1.91193738,
        11.2728708,
    ),
    "grad:gru/rnn/cudnn_compatible_gru_cell/candidate/hidden_projection/kernel": (
        1.14487124,
        1.14364239,
        1.43309046,
    ),
    "grad:gru/rnn/cudnn_compatible_gru_cell/candidate/input_projection/bias": (
        9.24444902,
        4.26849688,
        36.108997,
    ),
    "grad:gru/rnn/cudnn_compatible_gru_cell/candidate/input_projection/kernel": (
        1.1742564,
        3.38858787,
        25.3191434,
    ),
    "grad:gru/rnn/cudnn_compatible_gru_cell/gates/bias": (-2.67720192, -0.0416410726, 2.49715983),
    "grad:gru/rnn/cudnn_compatible_gru_cell/gates/kernel": (-2.48422636, -0.533404309, 2.27725673),
    "grad:linear/bias": (-0.74177447, 2.06744892, 8.36088638),
    "grad:linear/kernel": (2.53350355, -0.148997741, 41.0103202),
    "grad:linear_fn/bias": (-3.46459699, 0.64893422, 4.20200986),
    "grad:linear_fn/kernel": (-1.9293227, -1.48724113, 10.8978436),
    "grad:linear_nobias/kernel": (8.60251988, 1.62595439, 17.8781401),
    "grad:lstm/rnn/cudnn_compatible_lstm_cell/bias": (-1.6029553, -0.489791002, 9.30100679),
    "grad:lstm/rnn/cudnn_compatible_lstm_cell/kernel": (-1.21209025, 0.402259575, 5.24515311),
    "gru_out": (4.47561659, 1.35055775, 3.36244268),
    "gru_state0": (2.41056965, -0.238205163, 1.30914818),
    "init:gru/rnn/cudnn_compatible_gru_cell/candidate/hidden_projection/bias": (0, 0, 0),
    "init:gru/rnn/cudnn_compatible_gru_cell/candidate/input_projection/bias": (0, 0, 0),
    "init:gru/rnn/cudnn_compatible_gru_cell/gates/bias": (12, 0.718097967, 12),
    "init:linear/bias": (0, 0, 0),
    "init:linear_fn/bias": (0, 0, 0),
    "init:lstm/rnn/cudnn_compatible_lstm_cell/bias": (0, 0, 0),
    "linear": (-0.37088719, -0.367422966, 3.67098323),
    "linear_fn": (-1.73229852, -0.290751598, 0.97788058),
    "linear_nobias": (-2.1270107, -0.0527485586, 2.39696973),
    "lstm_out": (-1.16590212, 0.526012562, 0.446355519),
    "lstm_state0": (-1.07642, 0.568931715, 0.720605018),
    "lstm_state1": (-0.499314655, 0.240934349, 0.152457704),
}


def test_the_cells_and_linear_make_tf_1_15_5s_variables_and_numbers(installed):
    got, shapes = cases.run(tf.compat.v1)
    assert list(shapes.items()) == VARIABLES
    assert sorted(got) == sorted(GOLDEN)
    for key, want in GOLDEN.items():
        np.testing.assert_allclose(got[key], want, rtol=2e-6, atol=2e-6, err_msg=key)


def test_the_ops_module_imports_with_tf_1_15_5s_constants_and_the_gpu_layers_raise(installed):
    from tensorflow.contrib.cudnn_rnn.python.ops import cudnn_rnn_ops

    assert (cudnn_rnn_ops.CUDNN_RNN_BIDIRECTION, cudnn_rnn_ops.CUDNN_GRU) == (
        "bidirectional",
        "gru",
    )
    assert cudnn_rnn_ops.CUDNN_INPUT_LINEAR_MODE == "linear_input"
    assert cudnn_rnn_ops.CUDNN_LSTM_PARAMS_PER_LAYER == 8  # TF 1.15.5's values
    assert cudnn_rnn_ops.CudnnCompatibleLSTMCell is tf.contrib.cudnn_rnn.CudnnCompatibleLSTMCell
    assert cudnn_rnn_ops.CudnnLSTM is cudnn_rnn_ops.CudnnLSTM  # one stand-in per name
    with pytest.raises(NotImplementedError, match="CudnnLSTM ran only on cuDNN.*Compatible"):
        tf.contrib.cudnn_rnn.CudnnLSTM(num_layers=1, num_units=4)
    with pytest.raises(NotImplementedError, match="cudnn_gru ran only on cuDNN"):
        cudnn_rnn_ops.cudnn_gru(None, None, None)


def test_core_rnn_cell_serves_tf_1_15s_names(installed):
    from tensorflow.contrib.rnn.python.ops import core_rnn_cell

    assert core_rnn_cell.OutputProjectionWrapper is tf.contrib.rnn.OutputProjectionWrapper
    assert core_rnn_cell.RNNCell is tf.compat.v1.nn.rnn_cell.RNNCell
    assert (core_rnn_cell._WEIGHTS_VARIABLE_NAME, core_rnn_cell._BIAS_VARIABLE_NAME) == (
        "kernel",
        "bias",
    )
    with pytest.raises(AttributeError, match="other private helpers are not kept"):
        core_rnn_cell._no_such_helper  # noqa: B018


def test_the_seq2seq_private_helpers_tensorflow_still_has_are_served(installed):
    from tensorflow.contrib.seq2seq.python.ops import decoder, helper
    from tensorflow.python.ops import rnn

    # TF 1.15.5: `decoder._transpose_batch_time is rnn._transpose_batch_time` (and helper's)
    assert decoder._transpose_batch_time is rnn._transpose_batch_time
    assert helper._transpose_batch_time is rnn._transpose_batch_time
    with tf.Graph().as_default():
        zeros = decoder._create_zero_outputs((3, tf.TensorShape([2])), (tf.float32, tf.int32), 4)
        ta = helper._unstack_ta(tf.reshape(tf.range(6.0), [3, 2]))
        with tf.compat.v1.Session() as sess:
            first, second, row = sess.run([*zeros, ta.read(1)])
    assert first.shape == (4, 3) and second.shape == (4, 2) and second.dtype == np.int32
    assert row.tolist() == [2.0, 3.0]
    with pytest.raises(AttributeError, match="other private helpers are not kept"):
        helper._call_sampler  # noqa: B018
