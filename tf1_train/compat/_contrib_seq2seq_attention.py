"""``tensorflow.contrib.legacy_seq2seq``'s attention half, as TF 1.15 defined
it: ``attention_decoder`` (arXiv:1412.7449, TF1's ``AttnW_<head>``,
``AttnV_<head>``, ``Attention_<head>/`` and ``AttnOutputProjection/``
names), ``embedding_attention_decoder`` and the translate tutorial's
``embedding_attention_seq2seq``, on the helpers of _contrib_seq2seq.py
(the decoders without attention, the losses, ``model_with_buckets``).
"""

from __future__ import annotations

import tensorflow as tf

from tf1_train.compat._contrib_attention import _linear  # TF1's _linear, with its bias
from tf1_train.compat._contrib_core_cells import EmbeddingWrapper, OutputProjectionWrapper
from tf1_train.compat._contrib_seq2seq import (
    _argmax_and_embed,
    _decode_either_way,
    _encoder_copy,
)

v1 = tf.compat.v1


def attention_decoder(decoder_inputs, initial_state, attention_states, cell, output_size=None,
                      num_heads=1, loop_function=None, dtype=None, scope=None,
                      initial_state_attention=False):  # fmt: skip
    """rnn_decoder with attention over ``attention_states`` ``[batch, length,
    size]`` (arXiv:1412.7449): each step's input joined with the last
    attention reads and projected (``kernel``, ``bias``), the cell, one read
    per head with the new state as query, ``[output, reads]`` projected to
    ``output_size`` (``AttnOutputProjection/``)."""
    if not decoder_inputs:
        raise ValueError("Must provide at least 1 input to attention decoder.")
    if num_heads < 1:
        raise ValueError("With less than 1 heads, use a non-attention decoder.")
    length, size = (tf.compat.dimension_value(attention_states.shape[i]) for i in (1, 2))
    if size is None:  # dimension_value: Dimension objects too (--v1_shapes)
        raise ValueError(f"Shape[2] of attention_states must be known: {attention_states.shape}")
    output_size = cell.output_size if output_size is None else output_size
    with v1.variable_scope(scope or "attention_decoder", dtype=dtype) as vs:
        dtype = vs.dtype
        batch_size = tf.shape(decoder_inputs[0])[0]
        length = length or tf.shape(attention_states)[1]
        hidden = tf.reshape(attention_states, [-1, length, 1, size])
        heads = []  # per head: (the states' features by a 1x1 convolution, v)
        for a in range(num_heads):
            k = v1.get_variable(f"AttnW_{a}", [1, 1, size, size])
            heads.append((tf.nn.conv2d(hidden, k, [1, 1, 1, 1], "SAME"),
                          v1.get_variable(f"AttnV_{a}", [size])))  # fmt: skip

        def attention(query):
            """Per head: the states weighted by softmax(v . tanh(features + query W))."""
            if tf.nest.is_nested(query):
                query = tf.concat(tf.nest.flatten(query), 1)
            reads = []
            for a, (features, v) in enumerate(heads):
                with v1.variable_scope(f"Attention_{a}"):
                    y = tf.reshape(_linear([query], size), [-1, 1, 1, size])
                    weights = tf.nn.softmax(tf.reduce_sum(v * tf.tanh(features + y), [2, 3]))
                    read = tf.reduce_sum(tf.reshape(weights, [-1, length, 1, 1]) * hidden, [1, 2])
                    reads.append(tf.reshape(read, [-1, size]))
            return reads

        attns = [tf.zeros(tf.stack([batch_size, size]), dtype) for _ in range(num_heads)]
        for read in attns:
            read.set_shape([None, size])
        if initial_state_attention:
            attns = attention(initial_state)
        state, outputs, prev = initial_state, [], None
        for i, inp in enumerate(decoder_inputs):
            if i > 0:
                v1.get_variable_scope().reuse_variables()
            if loop_function is not None and prev is not None:
                with v1.variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            input_size = inp.shape.with_rank(2)[1]
            if input_size is None:
                raise ValueError(f"Could not infer input size from input: {inp.name}")
            cell_output, state = cell(_linear([inp] + attns, input_size), state)
            reuse = True if i == 0 and initial_state_attention else None
            with v1.variable_scope(v1.get_variable_scope(), reuse=reuse):
                attns = attention(state)
            with v1.variable_scope("AttnOutputProjection"):
                output = _linear([cell_output] + attns, output_size)
            if loop_function is not None:
                prev = output
            outputs.append(output)
    return outputs, state


def embedding_attention_decoder(decoder_inputs, initial_state, attention_states, cell,
                                num_symbols, embedding_size, num_heads=1, output_size=None,
                                output_projection=None, feed_previous=False,
                                update_embedding_for_previous=True, dtype=None, scope=None,
                                initial_state_attention=False):  # fmt: skip
    """attention_decoder on ``embedding`` lookups of 1-D int symbol inputs;
    ``feed_previous``: greedy decoding from the first (GO) symbol."""
    if output_size is None:
        output_size = cell.output_size
    if output_projection is not None:
        biases = tf.convert_to_tensor(output_projection[1], dtype=dtype)
        biases.shape.assert_is_compatible_with([num_symbols])
    with v1.variable_scope(scope or "embedding_attention_decoder", dtype=dtype):
        embedding = v1.get_variable("embedding", [num_symbols, embedding_size])
        loop_function = None
        if feed_previous:
            loop_function = _argmax_and_embed(
                embedding, output_projection, update_embedding_for_previous
            )
        emb_inp = [tf.nn.embedding_lookup(embedding, i) for i in decoder_inputs]
        return attention_decoder(
            emb_inp, initial_state, attention_states, cell, output_size=output_size,
            num_heads=num_heads, loop_function=loop_function,
            initial_state_attention=initial_state_attention,
        )  # fmt: skip


def embedding_attention_seq2seq(encoder_inputs, decoder_inputs, cell, num_encoder_symbols,
                                num_decoder_symbols, embedding_size, encoder_cell=None,
                                num_heads=1, output_projection=None, feed_previous=False,
                                dtype=None, scope=None,
                                initial_state_attention=False):  # fmt: skip
    """The translate tutorial's model: an EmbeddingWrapper encoder (a copy
    of ``cell`` unless ``encoder_cell``) whose outputs the
    embedding_attention_decoder attends to, through an
    OutputProjectionWrapper to the symbols unless ``output_projection``."""
    with v1.variable_scope(scope or "embedding_attention_seq2seq", dtype=dtype) as vs:
        dtype = vs.dtype
        if encoder_cell is None:
            encoder_cell = _encoder_copy(cell, "embedding_attention_seq2seq")
        encoder_cell = EmbeddingWrapper(
            encoder_cell, embedding_classes=num_encoder_symbols, embedding_size=embedding_size
        )
        encoder_outputs, encoder_state = v1.nn.static_rnn(encoder_cell, encoder_inputs, dtype=dtype)
        top_states = [tf.reshape(e, [-1, 1, cell.output_size]) for e in encoder_outputs]
        attention_states = tf.concat(top_states, 1)
        output_size = None
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_decoder_symbols)
            output_size = num_decoder_symbols

        def decoder(feed, update_embedding=True):
            return embedding_attention_decoder(
                decoder_inputs, encoder_state, attention_states, cell, num_decoder_symbols,
                embedding_size, num_heads=num_heads, output_size=output_size,
                output_projection=output_projection, feed_previous=feed,
                update_embedding_for_previous=update_embedding,
                initial_state_attention=initial_state_attention,
            )  # fmt: skip

        if isinstance(feed_previous, bool):
            return decoder(feed_previous)
        return _decode_either_way(feed_previous, decoder, len(decoder_inputs), encoder_state)


KEPT = {
    f.__name__: f
    for f in (attention_decoder, embedding_attention_decoder, embedding_attention_seq2seq)
}
