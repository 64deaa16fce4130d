"""contrib.legacy_seq2seq for a TF2 twin: ``rnn_decoder`` and the sequence
losses (the char-rnn models), ``attention_decoder`` and
``embedding_attention_seq2seq`` (the translate tutorial's model). The same
steps and sums as TF1's (tf1_train/compat/_contrib_seq2seq.py), with
tf1_train.tf2.rnn's cells on TF1's names (``rnn_decoder/<cell scope>/...``,
``attention_decoder/AttnW_0``, or under the ``scope`` the TF1 code gave),
so a twin restores the TF1 checkpoint as it is.
"""

from __future__ import annotations

import copy
from typing import Callable, List, Optional, Sequence, Tuple

import tensorflow as tf

from tf1_train.tf2.layers import Params, glorot_uniform, graph_code, read, zeros
from tf1_train.tf2.rnn import DynamicRNN
from tf1_train.tf2.rnn_cells import State, _Cell
from tf1_train.tf2.rnn_wrappers import EmbeddingWrapper, OutputProjectionWrapper


class RNNDecoder:
    """``legacy_seq2seq.rnn_decoder(decoder_inputs, initial_state, cell,
    loop_function=None, scope=None)``: the cell over a list of ``[batch,
    depth]`` steps from ``initial_state``; ``loop_function(prev_output, i)``
    makes each input after the first from the last output (greedy
    sampling). Returns (outputs, final state)."""

    def __init__(self, params: Params, cell: _Cell, depth: int, scope: str = "rnn_decoder"):
        self.cell = cell
        cell.build(params, scope, depth)

    @graph_code
    def __call__(self, decoder_inputs: Sequence[tf.Tensor], initial_state: State,
                 loop_function: Optional[Callable] = None):  # fmt: skip
        state, outputs, prev = initial_state, [], None
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                inp = loop_function(prev, i)
            output, state = self.cell(inp, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
        return outputs, state


class _Linear:
    """TF1's ``_linear(args, size)`` under ``name``: ``concat(args) kernel + bias``."""

    def __init__(self, params: Params, name: str, depth: int, size: int):
        self.kernel = params.create(f"{name}/kernel", [depth, size], glorot_uniform)
        self.bias = params.create(f"{name}/bias", [size], zeros)

    def __call__(self, args: List[tf.Tensor]) -> tf.Tensor:
        x = args[0] if len(args) == 1 else tf.concat(args, 1)
        return tf.nn.bias_add(tf.matmul(x, read(self.kernel, x)), read(self.bias, x))


class AttentionDecoder:
    """``legacy_seq2seq.attention_decoder(decoder_inputs, initial_state,
    attention_states, cell, output_size=None, num_heads=1,
    loop_function=None, scope=None, initial_state_attention=False)``
    (arXiv:1412.7449): each step's input joined with the last attention
    reads and projected, the cell, one read per head with the new state as
    query (``v . tanh(states AttnW + query W)``, softmax), ``[output,
    reads]`` projected to ``output_size``. ``depth``: the inputs' width,
    ``attention_size``: the attended states'. Returns (outputs, final state)."""

    def __init__(self, params: Params, cell: _Cell, depth: int, attention_size: int,
                 output_size: Optional[int] = None, num_heads: int = 1,
                 scope: str = "attention_decoder",
                 initial_state_attention: bool = False):  # fmt: skip
        if num_heads < 1:
            raise ValueError("With less than 1 heads, use a non-attention decoder.")
        size, reads = attention_size, num_heads * attention_size
        self.cell, self.size, self.initial_attention = cell, size, initial_state_attention
        self.heads = [
            (params.create(f"{scope}/AttnW_{a}", [1, 1, size, size], glorot_uniform),
             params.create(f"{scope}/AttnV_{a}", [size], glorot_uniform))
            for a in range(num_heads)
        ]  # fmt: skip
        self.inputs = _Linear(params, scope, depth + reads, depth)
        out = cell.build(params, scope, depth)
        query = sum(int(s.shape[-1]) for s in tf.nest.flatten(cell.zero_state(1, tf.float32)))
        self.queries = [_Linear(params, f"{scope}/Attention_{a}", query, size)
                        for a in range(num_heads)]  # fmt: skip
        self.output = _Linear(params, f"{scope}/AttnOutputProjection", out + reads,
                              output_size or out)  # fmt: skip

    @graph_code
    def __call__(self, decoder_inputs: Sequence[tf.Tensor], initial_state: State,
                 attention_states: tf.Tensor,
                 loop_function: Optional[Callable] = None):  # fmt: skip
        if not decoder_inputs:
            raise ValueError("Must provide at least 1 input to attention decoder.")
        length = attention_states.shape[1] or tf.shape(attention_states)[1]
        hidden = tf.reshape(attention_states, [-1, length, 1, self.size])
        features = [tf.nn.conv2d(hidden, read(k, hidden), [1, 1, 1, 1], "SAME")
                    for k, _ in self.heads]  # fmt: skip

        def attention(query):
            query = tf.concat(tf.nest.flatten(query), 1)
            reads = []
            for (_, v), feature, linear in zip(self.heads, features, self.queries):
                y = tf.reshape(linear([query]), [-1, 1, 1, self.size])
                weights = tf.nn.softmax(tf.reduce_sum(read(v, y) * tf.tanh(feature + y), [2, 3]))
                r = tf.reduce_sum(tf.reshape(weights, [-1, length, 1, 1]) * hidden, [1, 2])
                reads.append(tf.reshape(r, [-1, self.size]))
            return reads

        batch = tf.shape(decoder_inputs[0])[0]
        attns = [tf.zeros(tf.stack([batch, self.size]), attention_states.dtype)] * len(features)
        if self.initial_attention:
            attns = attention(initial_state)
        state, outputs, prev = initial_state, [], None
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                inp = loop_function(prev, i)
            cell_output, state = self.cell(self.inputs([inp] + attns), state)
            attns = attention(state)
            output = self.output([cell_output] + attns)
            prev = output
            outputs.append(output)
        return outputs, state


def argmax_and_embed(embedding: tf.Tensor, output_projection=None, update_embedding=True):
    """The loop function of greedy decoding: the last output's argmax
    symbol (after ``output_projection`` (w, b)), embedded."""

    def loop_function(prev, _):
        if output_projection is not None:
            prev = tf.nn.bias_add(tf.matmul(prev, output_projection[0]), output_projection[1])
        emb_prev = tf.nn.embedding_lookup(embedding, tf.argmax(prev, 1))
        return emb_prev if update_embedding else tf.stop_gradient(emb_prev)

    return loop_function


class EmbeddingAttentionSeq2Seq:
    """``legacy_seq2seq.embedding_attention_seq2seq(encoder_inputs,
    decoder_inputs, cell, num_encoder_symbols, num_decoder_symbols,
    embedding_size, num_heads=1, output_projection=None,
    feed_previous=False, initial_state_attention=False)``, the translate
    tutorial's model: an EmbeddingWrapper encoder on a copy of ``cell``
    (``scope/rnn/embedding_wrapper/...``), whose outputs the decoder attends
    to; the decoder embeds its symbols (``scope/embedding_attention_decoder/
    embedding``) into an AttentionDecoder around ``cell``, wrapped in an
    OutputProjectionWrapper to the symbols unless ``output_projection``
    (your (w, b)). Called with lists of [batch] int symbols;
    ``feed_previous=True`` there: greedy decoding from the first (GO)
    symbol, on the same variables (TF1 took a tensor and built both ways
    under tf.cond; here each call chooses)."""

    def __init__(self, params: Params, cell: _Cell, num_encoder_symbols: int,
                 num_decoder_symbols: int, embedding_size: int, num_heads: int = 1,
                 output_projection: Optional[Tuple[tf.Tensor, tf.Tensor]] = None,
                 scope: str = "embedding_attention_seq2seq",
                 initial_state_attention: bool = False):  # fmt: skip
        # the encoder's outputs, the attended states
        size = getattr(cell, "num_proj", None) or cell.units
        encoder = EmbeddingWrapper(copy.deepcopy(cell), num_encoder_symbols, embedding_size)
        self.encoder = DynamicRNN(params, encoder, 1, scope=f"{scope}/rnn")
        decoder = f"{scope}/embedding_attention_decoder"
        self.embedding = params.create(
            f"{decoder}/embedding", [num_decoder_symbols, embedding_size], glorot_uniform
        )  # get_variable's default initializer, as TF1 made it
        output_size = None
        if output_projection is None:
            cell, output_size = (
                OutputProjectionWrapper(cell, num_decoder_symbols),
                num_decoder_symbols,
            )
        self.decoder = AttentionDecoder(
            params, cell, embedding_size, size, output_size, num_heads,
            f"{decoder}/attention_decoder", initial_state_attention,
        )  # fmt: skip
        self.output_projection = output_projection

    @graph_code
    def __call__(self, encoder_inputs: Sequence[tf.Tensor], decoder_inputs: Sequence[tf.Tensor],
                 feed_previous: bool = False):  # fmt: skip
        ids = tf.stack(encoder_inputs, axis=1)[:, :, None]  # [batch, time, 1]
        encoder_outputs, encoder_state = self.encoder(ids)
        embedding = read(self.embedding, encoder_outputs)
        inputs = [tf.nn.embedding_lookup(embedding, i) for i in decoder_inputs]
        loop = argmax_and_embed(embedding, self.output_projection) if feed_previous else None
        return self.decoder(inputs, encoder_state, encoder_outputs, loop)


@graph_code
def sequence_loss_by_example(
    logits: List[tf.Tensor],
    targets: List[tf.Tensor],
    weights: List[tf.Tensor],
    average_across_timesteps: bool = True,
    softmax_loss_function: Optional[Callable] = None,
) -> tf.Tensor:
    """Per example: the sum over steps of weight * cross-entropy, divided by
    the sum of the weights (+1e-12) when ``average_across_timesteps``."""
    if len(targets) != len(logits) or len(weights) != len(logits):
        raise ValueError(
            "Lengths of logits, weights, and targets must be the same "
            f"{len(logits)}, {len(weights)}, {len(targets)}."
        )
    terms = []
    for logit, target, weight in zip(logits, targets, weights):
        if softmax_loss_function is None:
            crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.reshape(target, [-1]), logits=logit
            )
        else:
            crossent = softmax_loss_function(labels=target, logits=logit)
        terms.append(crossent * weight)
    log_perps = tf.add_n(terms)
    if average_across_timesteps:
        log_perps /= tf.add_n(weights) + 1e-12
    return log_perps


@graph_code
def sequence_loss(
    logits: List[tf.Tensor],
    targets: List[tf.Tensor],
    weights: List[tf.Tensor],
    average_across_timesteps: bool = True,
    average_across_batch: bool = True,
    softmax_loss_function: Optional[Callable] = None,
) -> tf.Tensor:
    """The sum over the batch of sequence_loss_by_example, divided by the
    batch size when ``average_across_batch``."""
    cost = tf.reduce_sum(
        sequence_loss_by_example(
            logits, targets, weights, average_across_timesteps, softmax_loss_function
        )  # fmt: skip
    )
    if average_across_batch:
        return cost / tf.cast(tf.shape(targets[0])[0], cost.dtype)
    return cost
