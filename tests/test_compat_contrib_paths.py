"""``tensorflow.contrib.seq2seq.python.ops.*`` and
``tensorflow.contrib.tensorboard.plugins.projector`` after install().

Rayhane-mamah's Tacotron-2 subclasses contrib's decoder from its
implementation module (``from tensorflow.contrib.seq2seq.python.ops import
decoder, helper as helper_py``); a decoder written that way (ours, in its
manner) decodes what ``BasicDecoder`` decodes. TensorFlow's word2vec
tutorial writes its embedding projector config through a ``FileWriter``.
"""

import numpy as np
import pytest
import tensorflow as tf

from tf1_train.compat import _contrib_paths

v1 = tf.compat.v1


def _custom_decoder_class():
    import tensorflow.contrib.seq2seq as seq2seq
    from tensorflow.contrib.seq2seq.python.ops import decoder
    from tensorflow.contrib.seq2seq.python.ops import helper as helper_py

    class CustomDecoder(decoder.Decoder):  # Tacotron-2's custom_decoder.py, in short
        def __init__(self, cell, helper, initial_state):
            if not isinstance(helper, helper_py.Helper):
                raise TypeError(f"helper must be a Helper, received: {type(helper)}")
            self._cell, self._helper, self._initial_state = cell, helper, initial_state

        @property
        def batch_size(self):
            return self._helper.batch_size

        @property
        def output_size(self):
            return seq2seq.BasicDecoderOutput(self._cell.output_size, tf.TensorShape([]))

        @property
        def output_dtype(self):
            return seq2seq.BasicDecoderOutput(tf.float32, self._helper.sample_ids_dtype)

        def initialize(self, name=None):
            return self._helper.initialize() + (self._initial_state,)

        def step(self, time, inputs, state, name=None):
            outputs, state = self._cell(inputs, state)
            ids = self._helper.sample(time=time, outputs=outputs, state=state)
            finished, inputs, state = self._helper.next_inputs(
                time=time, outputs=outputs, state=state, sample_ids=ids
            )
            return seq2seq.BasicDecoderOutput(outputs, ids), state, inputs, finished

    return CustomDecoder


def test_a_decoder_subclassed_from_the_implementation_module_decodes_as_basic_decoder(
    installed,
):
    import tensorflow.contrib.seq2seq as seq2seq

    custom = _custom_decoder_class()
    data = np.random.RandomState(0).uniform(-1, 1, [3, 5, 4]).astype(np.float32)
    with tf.Graph().as_default():
        inputs = tf.constant(data)
        cell = v1.nn.rnn_cell.GRUCell(6)
        results = []
        for kind in (seq2seq.BasicDecoder, custom):
            helper = seq2seq.TrainingHelper(inputs, tf.constant([5, 3, 4]))
            state = cell.zero_state(3, tf.float32)
            (outputs, _), _, lengths = seq2seq.dynamic_decode(kind(cell, helper, state))
            results.append((outputs, lengths))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            (basic, basic_lengths), (ours, our_lengths) = sess.run(results)
    np.testing.assert_array_equal(our_lengths, [5, 3, 4])
    np.testing.assert_array_equal(our_lengths, basic_lengths)
    np.testing.assert_allclose(ours, basic, atol=0)


def test_a_private_helper_and_an_unknown_module_are_refused(installed):
    from tensorflow.contrib.seq2seq.python.ops import attention_wrapper

    with pytest.raises(AttributeError, match="serves this module's public names only"):
        attention_wrapper._bahdanau_score  # noqa: B018
    with pytest.raises(ImportError):
        import tensorflow.contrib.seq2seq.python.ops.no_such_module  # noqa: F401


def test_the_projector_config_is_written_through_a_file_writer(installed, tmp_path):
    from tensorflow.contrib.tensorboard.plugins import projector

    assert set(_contrib_paths.PROJECTOR_NAMES) <= set(dir(projector))
    with tf.Graph().as_default():
        embeddings = v1.get_variable("embeddings", [10, 4])
        writer = v1.summary.FileWriter(str(tmp_path))
        config = projector.ProjectorConfig()
        embedding = config.embeddings.add()
        embedding.tensor_name = embeddings.name
        embedding.metadata_path = "metadata.tsv"
        tf.contrib.tensorboard.plugins.projector.visualize_embeddings(writer, config)
        writer.close()
    written = (tmp_path / "projector_config.pbtxt").read_text()
    assert 'tensor_name: "embeddings:0"' in written
    assert 'metadata_path: "metadata.tsv"' in written


def test_ssd_tensorflows_implementation_module_imports_give_tf_1_15s_answers(installed):
    """SSD-Tensorflow's tf_extended imports contrib's implementation modules
    by their paths; TF 1.15.5 gives [2] and 'acc:0' for these lines
    (measured 2026-12-07). The from-import of framework's ``variables``
    raised ImportError, and metrics had no ``python`` level."""
    import tensorflow.contrib.framework.python.ops.variables as same
    import tensorflow.contrib.metrics as contrib_metrics
    from tensorflow.contrib.framework.python.ops import variables as contrib_variables
    from tensorflow.contrib.metrics.python.ops import metric_ops, set_ops

    assert contrib_variables is same
    assert metric_ops.streaming_mean is contrib_metrics.streaming_mean
    assert len([n for n in dir(metric_ops) if n.startswith("streaming_")]) == 40  # as TF 1.15's
    with tf.Graph().as_default():
        a, b = tf.constant([[1, 2, 3]]), tf.constant([[2, 3, 4]])
        size = set_ops.set_size(set_ops.set_intersection(a, b))
        name = contrib_variables.local_variable(tf.zeros([2]), name="acc").name
        with v1.Session() as sess:
            assert sess.run(size).tolist() == [2] and name == "acc:0"
