"""``tf.contrib.rnn``'s two stacking functions, built on the core ones again:
``stack_bidirectional_dynamic_rnn`` and ``stack_bidirectional_rnn`` were
layers of the core ``bidirectional_dynamic_rnn`` and
``static_bidirectional_rnn`` under ``stack_bidirectional_rnn/cell_<i>/``,
each layer fed the last one's outputs concatenated (TF 1.15's
``tensorflow/contrib/rnn/python/ops/rnn.py``)."""


def stack_bidirectional_dynamic_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None,
                                    initial_states_bw=None, dtype=None, sequence_length=None,
                                    parallel_iterations=None, time_major=False, scope=None,
                                    swap_memory=False):  # fmt: skip
    """``tf.contrib.rnn.stack_bidirectional_dynamic_rnn``: (outputs, the
    forward states, the backward states), one bidirectional layer per pair
    of cells, variables under ``scope``/``cell_<i>``/``bidirectional_rnn``/."""
    import tensorflow as tf

    def layer(fw, bw, x, init_fw, init_bw, _):
        outputs, (state_fw, state_bw) = tf.compat.v1.nn.bidirectional_dynamic_rnn(
            fw, bw, x, initial_state_fw=init_fw, initial_state_bw=init_bw,
            sequence_length=sequence_length, parallel_iterations=parallel_iterations,
            dtype=dtype, swap_memory=swap_memory, time_major=time_major,
        )  # fmt: skip
        return tf.concat(outputs, 2), state_fw, state_bw

    return _stack(layer, cells_fw, cells_bw, inputs, initial_states_fw, initial_states_bw, scope)


def stack_bidirectional_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None,
                            initial_states_bw=None, dtype=None, sequence_length=None,
                            scope=None):  # fmt: skip
    """``tf.contrib.rnn.stack_bidirectional_rnn``, the static one: (a list
    of each step's outputs, the forward states, the backward states), each
    layer the core ``static_bidirectional_rnn`` on the last one's outputs,
    variables under ``scope``/``cell_<i>``/``fw|bw``/ (TF 1.15 passed the
    layer's scope on, so no ``bidirectional_rnn`` level as in the dynamic one)."""
    import tensorflow as tf

    def layer(fw, bw, x, init_fw, init_bw, cell_scope):
        return tf.compat.v1.nn.static_bidirectional_rnn(
            fw, bw, x, initial_state_fw=init_fw, initial_state_bw=init_bw,
            sequence_length=sequence_length, dtype=dtype, scope=cell_scope,
        )  # fmt: skip

    return _stack(layer, cells_fw, cells_bw, inputs, initial_states_fw, initial_states_bw, scope)


def _stack(layer, cells_fw, cells_bw, inputs, initial_states_fw, initial_states_bw, scope):
    """The stacking both contrib functions shared: TF 1.15's checks (one list
    of cells per direction, as long), then ``layer(fw, bw, x, initial states,
    the cell_<i> scope) -> (outputs, state_fw, state_bw)`` per pair of cells
    under ``scope``/``cell_<i>``, each fed the last one's outputs."""
    import tensorflow as tf

    if not isinstance(cells_fw, list) or not isinstance(cells_bw, list):
        raise ValueError("cells_fw and cells_bw must be lists of RNNCells (one per layer).")
    if not cells_fw or len(cells_fw) != len(cells_bw):
        raise ValueError("cells_fw and cells_bw must be lists of one cell per layer, as long")
    states_fw, states_bw, x = [], [], inputs
    with tf.compat.v1.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (fw, bw) in enumerate(zip(cells_fw, cells_bw)):
            with tf.compat.v1.variable_scope(f"cell_{i}") as cell_scope:
                x, state_fw, state_bw = layer(
                    fw, bw, x,
                    initial_states_fw[i] if initial_states_fw else None,
                    initial_states_bw[i] if initial_states_bw else None,
                    cell_scope,
                )  # fmt: skip
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return x, tuple(states_fw), tuple(states_bw)
