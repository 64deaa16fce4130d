"""A TF 1.x GPT-2-style language model trained with gradient checkpointing,
in the manner of the recomputation module that GPT-2 fine-tuning code bases
(nshepperd/gpt-2, gpt-2-simple and their forks) carry: ``import
tensorflow.contrib.graph_editor as ge`` at the top, the forward pass between
checkpoint tensors copied with the graph editor, the copies fed the
checkpoints' values through ``tf.stop_gradient`` and made to wait for the
forward pass, and ``tf.gradients`` taken segment by segment on the copies,
from the loss back to the variables. Written for tf1_train's tests, not
taken from those code bases.

The checkpoints are the ``'checkpoints'`` collection (block outputs, as the
GPT-2 trainers mark them), ``speed`` (every MatMul output, found by name) or
a list (each block's output after attention). The model is trained for a few
Adam steps on a deterministic token sequence twice from the same initial
values, once on ``tf.gradients`` and once on the checkpointed gradients;
one JSON line reports how far the two gradient sets are apart at the
initial point and both loss trajectories. Runs through ``python -m
tf1_train.compat --v1``; on TensorFlow 2 alone it stops at the graph editor
import. ``--save_start=DIR`` saves the initial values (tf.train.Saver,
``DIR/start``) and ``--save_grads=FILE`` the ``tf.gradients`` values there
and the token batch (``np.savez``), for the TF 2 port
(grad_checkpoint_style_tf2.py) to compare with.
"""

import argparse
import json
import os

import numpy as np
import tensorflow as tf
import tensorflow.contrib.graph_editor as ge

# Kept before anything could replace tf.gradients process-wide (the GPT-2
# trainers offered to monkey-patch it with the checkpointed version).
TF_GRADIENTS = tf.gradients


def _as_op(x):
    return getattr(x, "op", x)


def _densify(grad):
    """An embedding lookup's IndexedSlices gradient as a dense tensor."""
    if isinstance(grad, tf.IndexedSlices):
        return tf.unsorted_segment_sum(grad.values, grad.indices, grad.dense_shape[0])
    return grad


def _is_variable_read(op):
    # Reads are cheap: the copies read the original ones, as they are not recomputed.
    return op.type == "ReadVariableOp" or op.name.endswith("/read")


def _pick_checkpoints(checkpoints, forward):
    if isinstance(checkpoints, (list, tuple)):
        return list(checkpoints)
    if checkpoints == "collection":
        return tf.get_collection("checkpoints")
    if checkpoints == "speed":  # the costly ops' outputs: recomputing the rest is cheap
        return ge.filter_ts_from_regex(forward, "conv2d|Conv|MatMul")
    raise ValueError(f"checkpoints must be a list, 'collection' or 'speed', not {checkpoints!r}")


def _wait_for(ops, before, report):
    """Makes each of ``ops`` wait for ``before``: the recomputation runs in the
    backward pass, not next to the forward pass it repeats."""
    before = [_as_op(b) for b in before]
    for op in ops:
        missing = [b for b in before if b not in op.control_inputs]
        if missing:
            ge.add_control_inputs(op, missing)
    late = [op for op in ops if any(b not in op.control_inputs for b in before)]
    report["waiting_ops"] = report.get("waiting_ops", 0) + len(ops) - len(late)
    report["not_waiting_ops"] = report.get("not_waiting_ops", 0) + len(late)


def _recompute(seeds, stop_at, forward, frozen, report):
    """Copies the forward ops from ``stop_at`` (excluded) up to ``seeds``; the
    copies read the frozen checkpoints where the originals read the
    checkpoints. Returns {original op: copy}, empty if nothing lies between."""
    seed_ops = [t.op for t in seeds]
    segment = ge.get_backward_walk_ops(
        seed_ops, stop_at_ts=stop_at, inclusive=True, within_ops=forward
    )
    boundary_ops = {t.op for t in stop_at} - set(seed_ops)
    segment = [op for op in segment if op not in boundary_ops]
    if not segment:
        return {}
    _, info = ge.copy_with_input_replacements(ge.sgv(segment), {})
    copies = info._transformed_ops
    for original, copy in copies.items():
        copy._set_device(original.node_def.device)
    if stop_at:
        ge.reroute_ts([frozen[t] for t in stop_at], list(stop_at), can_modify=list(copies.values()))
    report["recomputed_ops"] = report.get("recomputed_ops", 0) + len(copies)
    return copies


def _accumulate(total, part):
    if part is None:
        return total
    part = _densify(part)
    return part if total is None else total + part


def checkpointed_gradients(ys, xs, grad_ys=None, checkpoints="collection", report=None, **kwargs):
    """tf.gradients(ys, xs, grad_ys) that keeps only the checkpoint tensors of
    the forward pass for the backward pass and recomputes the rest."""
    report = {} if report is None else report
    existing = set(tf.get_default_graph().get_operations())
    ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    y_ops = [y.op for y in ys]

    # The candidates for recomputation: ops between the xs and the ys.
    upstream = ge.get_backward_walk_ops(y_ops, inclusive=True)
    forward = ge.get_forward_walk_ops([_as_op(x) for x in xs], inclusive=True, within_ops=upstream)
    x_ops = {_as_op(x) for x in xs}
    forward = [op for op in forward if op.inputs and op not in x_ops and not _is_variable_read(op)]
    produced = set(forward)
    candidates = {t for t in ge.filter_ts(forward, True) if t.op in produced} - set(ys)
    chosen = [t for t in dict.fromkeys(_pick_checkpoints(checkpoints, forward)) if t in candidates]
    report["checkpoints"] = len(chosen)

    frozen = {c: tf.stop_gradient(c, name=c.op.name + "_frozen") for c in chosen}

    # Segment from the checkpoints to the ys.
    copies = _recompute(ys, chosen, forward, frozen, report)
    copied_ys = [copies[y.op]._outputs[y.value_index] for y in ys]
    grads = TF_GRADIENTS(copied_ys, [frozen[c] for c in chosen] + xs, grad_ys=grad_ys, **kwargs)
    done_first = y_ops + list(grad_ys or [])
    _wait_for(list(copies.values()) + [g.op for g in grads if g is not None], done_first, report)
    into_checkpoint = {c: _densify(g) for c, g in zip(chosen, grads)}
    into_x = [_accumulate(None, g) for g in grads[len(chosen) :]]

    # Each checkpoint after all the checkpoints downstream of it: a checkpoint
    # has more forward ops upstream than any checkpoint upstream of it.
    def ancestors(t):
        return len(ge.get_backward_walk_ops(t.op, inclusive=True, within_ops=forward))

    for c in sorted(chosen, key=ancestors, reverse=True):
        incoming = into_checkpoint[c]
        if incoming is None:
            continue
        others = [o for o in chosen if o is not c]
        copies = _recompute([c], others, forward, frozen, report)
        if not copies:
            continue
        top = copies[c.op]._outputs[c.value_index]
        grads = TF_GRADIENTS([top], [frozen[o] for o in others] + xs, grad_ys=[incoming], **kwargs)
        recomputation = list(copies.values()) + [g.op for g in grads if g is not None]
        _wait_for(recomputation, [incoming], report)
        for o, g in zip(others, grads):
            into_checkpoint[o] = _accumulate(into_checkpoint[o], g)
        for j, g in enumerate(grads[len(others) :]):
            into_x[j] = _accumulate(into_x[j], g)

    # What the backward pass keeps of the forward pass: only the checkpoints.
    built = set(tf.get_default_graph().get_operations()) - existing
    kept = {t for op in built for t in op.inputs if t.op in produced} - set(chosen)
    report["kept_activations"] = sorted(t.name for t in kept)
    return into_x


# --- a GPT-2-like language model ---------------------------------------------


def gelu(x):
    return 0.5 * x * (1 + tf.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * tf.pow(x, 3))))


def layer_norm(x, scope, epsilon=1e-5):
    with tf.variable_scope(scope):
        width = x.shape.as_list()[-1]
        gain = tf.get_variable("g", [width], initializer=tf.constant_initializer(1))
        bias = tf.get_variable("b", [width], initializer=tf.constant_initializer(0))
        mean = tf.reduce_mean(x, axis=-1, keepdims=True)
        variance = tf.reduce_mean(tf.square(x - mean), axis=-1, keepdims=True)
        return (x - mean) * tf.rsqrt(variance + epsilon) * gain + bias


def position_wise(x, scope, width):
    """A [1, in, out] weight applied at every position (GPT-2's conv1d)."""
    with tf.variable_scope(scope):
        *lead, width_in = x.shape.as_list()
        init = tf.random_normal_initializer(stddev=0.02)
        w = tf.get_variable("w", [1, width_in, width], initializer=init)
        b = tf.get_variable("b", [width], initializer=tf.constant_initializer(0))
        flat = tf.matmul(tf.reshape(x, [-1, width_in]), tf.reshape(w, [width_in, width])) + b
        return tf.reshape(flat, lead + [width])


def causal_attention(x, scope, heads):
    batch, length, width = x.shape.as_list()
    with tf.variable_scope(scope):

        def split_heads(t):
            t = tf.reshape(t, [batch, length, heads, width // heads])
            return tf.transpose(t, [0, 2, 1, 3])

        q, k, v = map(split_heads, tf.split(position_wise(x, "c_attn", 3 * width), 3, axis=2))
        scores = tf.matmul(q, k, transpose_b=True) / np.sqrt(width // heads).astype(np.float32)
        seen = tf.cast(tf.range(length)[:, None] >= tf.range(length)[None, :], tf.float32)
        weights = tf.nn.softmax(scores * seen - 1e10 * (1 - seen))
        merged = tf.transpose(tf.matmul(weights, v), [0, 2, 1, 3])
        return position_wise(tf.reshape(merged, [batch, length, width]), "c_proj", width)


def block(x, scope, heads):
    width = x.shape.as_list()[-1]
    with tf.variable_scope(scope):
        x = x + causal_attention(layer_norm(x, "ln_1"), "attn", heads)
        tf.add_to_collection("after_attention", x)
        with tf.variable_scope("mlp"):
            hidden = gelu(position_wise(layer_norm(x, "ln_2"), "c_fc", 4 * width))
            return x + position_wise(hidden, "c_proj", width)


def language_model(tokens, vocab, width, layers, heads, reuse=False):
    batch, length = tokens.shape.as_list()
    with tf.variable_scope("model", reuse=reuse):
        wte = tf.get_variable(
            "wte", [vocab, width], initializer=tf.random_normal_initializer(stddev=0.02)
        )
        wpe = tf.get_variable(
            "wpe", [length, width], initializer=tf.random_normal_initializer(stddev=0.01)
        )
        h = tf.gather(wte, tokens) + wpe
        for layer in range(layers):
            h = block(h, f"h{layer}", heads)
            if layer < layers - 1:
                tf.add_to_collection("checkpoints", h)
        h = layer_norm(h, "ln_f")
        logits = tf.matmul(tf.reshape(h, [-1, width]), wte, transpose_b=True)
        return tf.reshape(logits, [batch, length, vocab])


def greedy_sampler(window, steps, vocab, width, layers, heads):
    """The next ``steps`` tokens after each row of ``window``, argmax by argmax,
    in a while loop whose body calls the model again, as the GPT-2 trainers
    build their sampler before the gradients: the body's block outputs join
    the 'checkpoints' collection too (tensors of the loop's body graph)."""

    def body(i, window, tokens):
        logits = language_model(window, vocab, width, layers, heads, reuse=tf.AUTO_REUSE)
        next_token = tf.argmax(logits[:, -1], axis=-1, output_type=tf.int32)[:, None]
        return i + 1, tf.concat([window[:, 1:], next_token], 1), tf.concat([tokens, next_token], 1)

    batch = window.shape.as_list()[0]
    start = tf.zeros([batch, 0], tf.int32)
    _, _, tokens = tf.while_loop(
        lambda i, w, t: i < steps,
        body,
        [tf.constant(0), window, start],
        shape_invariants=[tf.TensorShape([]), window.shape, tf.TensorShape([batch, None])],
    )
    return tokens


def token_batch(batch, length, vocab):
    """Windows of one deterministic sequence: each token a function of the two before."""
    sequence = [1, 2]
    while len(sequence) < batch * 3 + length + 1:
        sequence.append((sequence[-1] + 2 * sequence[-2] + 1) % vocab)
    return np.array([sequence[3 * i : 3 * i + length + 1] for i in range(batch)], np.int32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoints", default="collection", help="collection|speed|list")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--learning_rate", type=float, default=0.01)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--width", type=int, default=32)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--length", type=int, default=16)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--vocab", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--sample_steps", type=int, default=4)
    parser.add_argument("--save_start", help="DIR: the initial values as a checkpoint, DIR/start")
    parser.add_argument("--save_grads", help="FILE: tf.gradients at the initial point, np.savez")
    args = parser.parse_args()

    tf.set_random_seed(args.seed)
    tokens = tf.placeholder(tf.int32, [args.batch, args.length + 1], name="tokens")
    logits = language_model(tokens[:, :-1], args.vocab, args.width, args.layers, args.heads)
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tokens[:, 1:], logits=logits)
    )
    params = tf.trainable_variables()
    size = (args.vocab, args.width, args.layers, args.heads)
    sample = greedy_sampler(tokens[:, :-1], args.sample_steps, *size)

    graph = tf.get_default_graph()
    in_loop = [t for t in tf.get_collection("checkpoints") if t.graph is not graph]
    with tf.name_scope("plain_gradients"):
        plain = [_densify(g) for g in tf.gradients(loss, params)]
    mode = args.checkpoints
    if mode == "list":
        mode = tf.get_collection("after_attention")
    report = {}
    with tf.name_scope("checkpointed_gradients"):
        saved = checkpointed_gradients(loss, params, checkpoints=mode, report=report)
    report["plain_gradient_ops"] = len(ge.select_ops("plain_gradients/.*", graph=graph))

    train_plain = tf.train.AdamOptimizer(args.learning_rate, name="adam_plain").apply_gradients(
        zip(plain, params)
    )
    train_saved = tf.train.AdamOptimizer(args.learning_rate, name="adam_saved").apply_gradients(
        zip(saved, params)
    )
    start_values = [tf.placeholder(p.dtype.base_dtype, p.shape) for p in params]
    saver = tf.train.Saver(params) if args.save_start else None
    restart = tf.group(*[tf.assign(p, v) for p, v in zip(params, start_values)])

    feed = {tokens: token_batch(args.batch, args.length, args.vocab)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        start = sess.run(params)
        if saver:
            saver.save(sess, os.path.join(args.save_start, "start"))
        grads_plain, grads_saved = sess.run([plain, saved], feed)
        if args.save_grads:
            named = {p.op.name: g for p, g in zip(params, grads_plain)}
            np.savez(args.save_grads, __tokens__=feed[tokens], **named)
        report["sample"] = sess.run(sample, feed).tolist()
        losses = {}
        for name, train_op in (("plain", train_plain), ("checkpointed", train_saved)):
            sess.run(restart, dict(zip(start_values, start)))
            losses[name] = [float(sess.run([loss, train_op], feed)[0]) for _ in range(args.steps)]
            losses[name].append(float(sess.run(loss, feed)))
    diffs = [np.max(np.abs(a - b)) for a, b in zip(grads_plain, grads_saved)]
    result = {
        "checkpoint_mode": args.checkpoints,
        "grad_max_abs_diff": float(max(diffs)),
        "grad_max_abs": float(max(np.max(np.abs(a)) for a in grads_plain)),
        "grad_tensors": len(params),
        "checkpoints_in_loop_body": len(in_loop),
        "loss_plain": losses["plain"],
        "loss_checkpointed": losses["checkpointed"],
        **report,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
