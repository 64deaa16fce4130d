"""``tensorflow.contrib.legacy_seq2seq``'s decoders, seq2seq models and
sequence losses, as TF 1.15 defined them.

The character-level language models copied from char-rnn-tensorflow step a
MultiRNNCell with ``rnn_decoder`` and train on ``sequence_loss_by_example``;
the translate tutorial's models were ``embedding_attention_seq2seq`` (or
``embedding_rnn_seq2seq``) and ``model_with_buckets``. All of it was core
ops around the cells, nothing of contrib's own, so these are those ops
again, under TF 1.15's scopes (so a checkpoint of such a model restores):
``rnn_decoder`` steps the cell under ``rnn_decoder/``, reusing its
variables after the first step; the encoders are the core ``static_rnn``
(``rnn/``); embeddings are ``embedding`` variables, and the wrappers
tf1_train.compat._contrib_core_cells' EmbeddingWrapper and
OutputProjectionWrapper; the attention decoders and model are in
_contrib_seq2seq_attention.py; ``embedding_tied_rnn_seq2seq`` shares one
``embedding`` and one cell between encoder and decoder, and
``one2many_rnn_seq2seq`` (multi-task) decodes one encoder state with a
decoder per name, ``one2many_decoder_<name>/``.
"""

from __future__ import annotations

import copy

import tensorflow as tf

from tf1_train.compat import rnn_cell
from tf1_train.compat._contrib_core_cells import EmbeddingWrapper, OutputProjectionWrapper
from tf1_train.tf2 import seq2seq as twin  # the losses, greedy decoding: the same ops

v1 = tf.compat.v1


def _encoder_copy(cell, where: str):
    """``copy.deepcopy(cell)`` as TF1 made the encoder's cell. A cell that
    has run holds variables, which do not copy in a graph (TF1 raised "can't
    pickle _thread.lock objects" here): one line saying what to do instead."""
    try:
        return copy.deepcopy(cell)
    except (NotImplementedError, TypeError) as e:
        raise ValueError(
            f"{where} copies the cell for its encoder (copy.deepcopy, as TF1 did), and this "
            "cell has already run: it holds variables, which do not copy (TF1 failed here "
            'too, with "can\'t pickle _thread.lock objects"); make a new cell for each call, '
            "as in model_with_buckets(..., lambda x, y: basic_rnn_seq2seq(x, y, make_cell()))"
        ) from e


def rnn_decoder(decoder_inputs, initial_state, cell, loop_function=None, scope=None):
    """The cell over a list of ``[batch, input]`` inputs from
    ``initial_state``; ``loop_function(prev_output, i)`` makes each input
    after the first from the last output. Returns (outputs, final state)."""
    with v1.variable_scope(scope or "rnn_decoder"):
        state, outputs, prev = initial_state, [], None
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                with v1.variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            if i > 0:
                v1.get_variable_scope().reuse_variables()
            output, state = cell(inp, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
    return outputs, state


def basic_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, dtype=tf.float32, scope=None):
    """A copy of ``cell`` encodes (``static_rnn``), ``cell`` decodes from its
    final state: two sets of variables, ``rnn/`` and ``rnn_decoder/``."""
    with v1.variable_scope(scope or "basic_rnn_seq2seq"):
        enc_cell = _encoder_copy(cell, "basic_rnn_seq2seq")
        _, enc_state = v1.nn.static_rnn(enc_cell, encoder_inputs, dtype=dtype)
        return rnn_decoder(decoder_inputs, enc_state, cell)


def tied_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, loop_function=None,
                     dtype=tf.float32, scope=None):  # fmt: skip
    """One cell encodes and decodes: one set of variables under ``scope``."""
    with v1.variable_scope("combined_tied_rnn_seq2seq"):
        scope = scope or "tied_rnn_seq2seq"
        _, enc_state = v1.nn.static_rnn(cell, encoder_inputs, dtype=dtype, scope=scope)
        v1.get_variable_scope().reuse_variables()
        return rnn_decoder(decoder_inputs, enc_state, cell, loop_function, scope=scope)


# The loop function of greedy decoding (xw_plus_b is bias_add(matmul)).
_argmax_and_embed = twin.argmax_and_embed


def _check_projection(output_projection, num_symbols, dtype) -> None:
    weights = tf.convert_to_tensor(output_projection[0], dtype=dtype)
    weights.shape.assert_is_compatible_with([None, num_symbols])
    biases = tf.convert_to_tensor(output_projection[1], dtype=dtype)
    biases.shape.assert_is_compatible_with([num_symbols])


def embedding_rnn_decoder(decoder_inputs, initial_state, cell, num_symbols, embedding_size,
                          output_projection=None, feed_previous=False,
                          update_embedding_for_previous=True, scope=None):  # fmt: skip
    """rnn_decoder on ``embedding`` ``[num_symbols, embedding_size]`` lookups
    of 1-D int symbol inputs; ``feed_previous``: greedy decoding from the
    first (GO) symbol."""
    with v1.variable_scope(scope or "embedding_rnn_decoder") as vs:
        if output_projection is not None:
            _check_projection(output_projection, num_symbols, vs.dtype)
        embedding = v1.get_variable("embedding", [num_symbols, embedding_size])
        loop_function = None
        if feed_previous:
            loop_function = _argmax_and_embed(
                embedding, output_projection, update_embedding_for_previous
            )
        emb_inp = (tf.nn.embedding_lookup(embedding, i) for i in decoder_inputs)
        return rnn_decoder(emb_inp, initial_state, cell, loop_function=loop_function)


def embedding_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, num_encoder_symbols,
                          num_decoder_symbols, embedding_size, output_projection=None,
                          feed_previous=False, dtype=None, scope=None):  # fmt: skip
    """An EmbeddingWrapper around a copy of ``cell`` encodes
    (``rnn/embedding_wrapper/``); embedding_rnn_decoder decodes, through an
    OutputProjectionWrapper to the symbols unless ``output_projection`` is
    given. ``feed_previous`` a bool tensor: both decoders, chosen by tf.cond."""
    with v1.variable_scope(scope or "embedding_rnn_seq2seq") as vs:
        if dtype is not None:
            vs.set_dtype(dtype)
        else:
            dtype = vs.dtype
        encoder_cell = EmbeddingWrapper(
            _encoder_copy(cell, "embedding_rnn_seq2seq"), embedding_classes=num_encoder_symbols,
            embedding_size=embedding_size,
        )  # fmt: skip
        _, encoder_state = v1.nn.static_rnn(encoder_cell, encoder_inputs, dtype=dtype)
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_decoder_symbols)

        def decoder(feed, update_embedding=True):
            return embedding_rnn_decoder(
                decoder_inputs, encoder_state, cell, num_decoder_symbols, embedding_size,
                output_projection=output_projection, feed_previous=feed,
                update_embedding_for_previous=update_embedding,
            )  # fmt: skip

        if isinstance(feed_previous, bool):
            return decoder(feed_previous)
        return _decode_either_way(feed_previous, decoder, len(decoder_inputs), encoder_state)


def embedding_tied_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, num_symbols,
                               embedding_size, num_decoder_symbols=None, output_projection=None,
                               feed_previous=False, dtype=None, scope=None):  # fmt: skip
    """tied_rnn_seq2seq on lookups of one ``embedding`` ``[num_symbols,
    embedding_size]`` for both sides: one cell, one embedding. Outputs over
    the first ``num_decoder_symbols`` symbols (all of them if None) through
    an OutputProjectionWrapper unless ``output_projection`` is given."""
    with v1.variable_scope(scope or "embedding_tied_rnn_seq2seq", dtype=dtype) as vs:
        dtype = vs.dtype
        if output_projection is not None:
            _check_projection(output_projection, num_symbols, dtype)
        embedding = v1.get_variable("embedding", [num_symbols, embedding_size], dtype=dtype)
        emb_encoder_inputs = [tf.nn.embedding_lookup(embedding, x) for x in encoder_inputs]
        emb_decoder_inputs = [tf.nn.embedding_lookup(embedding, x) for x in decoder_inputs]
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_decoder_symbols or num_symbols)

        def decoder(feed, update_embedding=True):
            loop = (
                _argmax_and_embed(embedding, output_projection, update_embedding) if feed else None
            )
            return tied_rnn_seq2seq(
                emb_encoder_inputs, emb_decoder_inputs, cell, loop_function=loop, dtype=dtype
            )

        if isinstance(feed_previous, bool):
            return decoder(feed_previous)
        # TF1 packed the state as the cell's zero state: the structure of its state_size.
        return _decode_either_way(feed_previous, decoder, len(decoder_inputs), cell.state_size)


def one2many_rnn_seq2seq(encoder_inputs, decoder_inputs_dict, enc_cell, dec_cells_dict,
                         num_encoder_symbols, num_decoder_symbols_dict, embedding_size,
                         feed_previous=False, dtype=None, scope=None):  # fmt: skip
    """Multi-task seq2seq (arXiv:1511.06114): ``enc_cell`` in an
    EmbeddingWrapper encodes once (``rnn/embedding_wrapper/``); each named
    decoder is an embedding_rnn_decoder from that state, its cell in an
    OutputProjectionWrapper, under ``one2many_decoder_<name>/``. Returns
    (outputs by name, final state by name). The cells are used as given,
    not copied."""
    if not isinstance(enc_cell, rnn_cell.RNNCell):
        raise TypeError(f"enc_cell is not an RNNCell: {type(enc_cell)}")
    if set(dec_cells_dict) != set(decoder_inputs_dict):
        raise ValueError("keys of dec_cells_dict != keys of decoder_inputs_dict")
    for dec_cell in dec_cells_dict.values():
        if not isinstance(dec_cell, rnn_cell.RNNCell):
            raise TypeError(f"dec_cell is not an RNNCell: {type(dec_cell)}")
    outputs_dict, state_dict = {}, {}
    with v1.variable_scope(scope or "one2many_rnn_seq2seq", dtype=dtype) as vs:
        enc_cell = EmbeddingWrapper(
            enc_cell, embedding_classes=num_encoder_symbols, embedding_size=embedding_size
        )
        _, encoder_state = v1.nn.static_rnn(enc_cell, encoder_inputs, dtype=vs.dtype)
        for name, decoder_inputs in decoder_inputs_dict.items():
            symbols = num_decoder_symbols_dict[name]
            with v1.variable_scope(f"one2many_decoder_{name}"):
                dec_cell = OutputProjectionWrapper(dec_cells_dict[name], symbols)
                decoder = _one2many_decoder(
                    decoder_inputs, encoder_state, dec_cell, symbols, embedding_size
                )
                if isinstance(feed_previous, bool):
                    outputs, state = decoder(feed_previous)
                else:
                    outputs, state = _decode_either_way(
                        feed_previous, decoder, len(decoder_inputs), encoder_state
                    )
            outputs_dict[name], state_dict[name] = outputs, state
    return outputs_dict, state_dict


def _one2many_decoder(decoder_inputs, encoder_state, cell, symbols: int, embedding_size: int):
    """One of one2many_rnn_seq2seq's decoders, either way. TF1 left the
    fed-back symbols' embeddings trainable here, under tf.cond too (the other
    models stop their gradient there)."""

    def decoder(feed, update_embedding=True):
        return embedding_rnn_decoder(
            decoder_inputs, encoder_state, cell, symbols, embedding_size, feed_previous=feed
        )

    return decoder


def _decode_either_way(feed_previous, decoder, steps: int, structure):
    """TF 1.15's tf.cond over both decoders (greedy one first, creating the
    variables; the other reusing them), the state packed as ``structure``."""

    def branch(feed):
        with v1.variable_scope(v1.get_variable_scope(), reuse=None if feed else True):
            outputs, state = decoder(feed, update_embedding=False)
            return outputs + tf.nest.flatten(state)

    both = tf.cond(feed_previous, lambda: branch(True), lambda: branch(False))
    state = both[steps:]
    if tf.nest.is_nested(structure):
        return both[:steps], tf.nest.pack_sequence_as(structure, state)
    return both[:steps], state[0]


def sequence_loss_by_example(logits, targets, weights, average_across_timesteps=True,
                             softmax_loss_function=None, name=None):  # fmt: skip
    """Per example: the sum over steps of weight * cross-entropy, divided by
    the sum of the weights (+1e-12) when ``average_across_timesteps`` (the
    TF2 twin's function, tf1_train/tf2/seq2seq.py, under TF1's name scope)."""
    with tf.name_scope(name or "sequence_loss_by_example"):
        return twin.sequence_loss_by_example(
            logits, targets, weights, average_across_timesteps, softmax_loss_function
        )


def sequence_loss(logits, targets, weights, average_across_timesteps=True,
                  average_across_batch=True, softmax_loss_function=None, name=None):  # fmt: skip
    """The sum over the batch of sequence_loss_by_example, divided by the
    batch size when ``average_across_batch``."""
    with tf.name_scope(name or "sequence_loss"):
        return twin.sequence_loss(
            logits, targets, weights, average_across_timesteps, average_across_batch,
            softmax_loss_function,
        )  # fmt: skip


def model_with_buckets(encoder_inputs, decoder_inputs, targets, weights, buckets, seq2seq,
                       softmax_loss_function=None, per_example_loss=False,
                       name=None):  # fmt: skip
    """``seq2seq`` built once per (input, output) length bucket on the first
    inputs, the variables shared; (outputs per bucket, loss per bucket)."""
    for what, items, index in (("encoder_inputs", encoder_inputs, 0), ("targets", targets, 1),
                               ("weights", weights, 1)):  # fmt: skip
        if len(items) < buckets[-1][index]:
            raise ValueError(
                f"Length of {what} ({len(items)}) must be at least that of the last bucket "
                f"({buckets[-1][index]})."
            )
    loss = sequence_loss_by_example if per_example_loss else sequence_loss
    outputs, losses = [], []
    with tf.name_scope(name or "model_with_buckets"):
        for j, (enc_len, dec_len) in enumerate(buckets):
            with v1.variable_scope(v1.get_variable_scope(), reuse=True if j > 0 else None):
                bucket_outputs, _ = seq2seq(encoder_inputs[:enc_len], decoder_inputs[:dec_len])
                outputs.append(bucket_outputs)
                losses.append(
                    loss(bucket_outputs, targets[:dec_len], weights[:dec_len],
                         softmax_loss_function=softmax_loss_function)
                )  # fmt: skip
    return outputs, losses


KEPT = {
    f.__name__: f
    for f in (
        rnn_decoder,
        basic_rnn_seq2seq,
        tied_rnn_seq2seq,
        embedding_rnn_decoder,
        embedding_rnn_seq2seq,
        embedding_tied_rnn_seq2seq,
        one2many_rnn_seq2seq,
        sequence_loss_by_example,
        sequence_loss,
        model_with_buckets,
    )
}
