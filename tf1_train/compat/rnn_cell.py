"""``tf.compat.v1.nn.rnn_cell`` for Keras 3: TensorFlow's own legacy cells.

Under Keras 3 the public ``tf.compat.v1.nn.rnn_cell`` is a lazy loader that
raises "not available with Keras 3" for every cell. TensorFlow 2.21 still
ships the legacy cells themselves, privately
(``tensorflow.python.ops.rnn_cell_impl``, the module its own
``tf.compat.v1.nn.dynamic_rnn`` imports), and they build in a v1 graph on
``get_variable``: variable scopes, reuse and custom getters work, so towers
share them and old checkpoints restore. This module hands out those very
classes under the public names; it writes no cell of its own, so the
numbers and variable names are the legacy ones by construction, and
tests/test_compat_rnn.py holds them to tf_keras' copies (the goldens in
tests/goldens/compat_rnn). ``tf1_train.compat.install()`` puts this module
where ``tf.compat.v1.nn.rnn_cell`` was. docs/LEGACY_LAYERS.md has the
contract and the TF2 mapping (tf1_train.port.rnn_weights).
"""

from tf1_train.compat._contrib import RNN_CELL_NAMES

try:
    from tensorflow.python.ops import rnn_cell_impl as _impl

    BasicLSTMCell = _impl.BasicLSTMCell
except (ImportError, AttributeError) as e:  # a later TensorFlow without the private copy
    raise ImportError(
        "this TensorFlow no longer ships its legacy RNN cells "
        "(tensorflow.python.ops.rnn_cell_impl); tf1_train.compat.rnn_cell needs them"
    ) from e

BasicRNNCell = _impl.BasicRNNCell
DeviceWrapper = _impl.DeviceWrapper
DropoutWrapper = _impl.DropoutWrapper
GRUCell = _impl.GRUCell
LSTMCell = _impl.LSTMCell
LSTMStateTuple = _impl.LSTMStateTuple
MultiRNNCell = _impl.MultiRNNCell
RNNCell = _impl.RNNCell
ResidualWrapper = _impl.ResidualWrapper

__all__ = list(RNN_CELL_NAMES)
