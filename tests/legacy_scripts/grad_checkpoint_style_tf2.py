"""The TF 2 port of grad_checkpoint_style.py's GPT-2-like language model,
as a TF 2 user writes it: ``tf.Module``s over ``tf.Variable``s, a
``tf.GradientTape``, eager or in a ``tf.function``, and the graph-editor
gradient checkpointing replaced by ``tf.recompute_grad`` around each
transformer block (the blocks whose outputs the TF 1 program puts in its
'checkpoints' collection; the last one's output too: its input is the
previous block's output, which the tape keeps).

The weights come from the TF 1 program's ``--save_start`` checkpoint, read
by their TF 1 names (``tf.train.load_checkpoint(path).get_tensor(name)``),
the token batch from its ``--save_grads`` file; the loss and the gradients
are computed four ways (with and without ``tf.recompute_grad``, eager and in
a ``tf.function``) and compared, variable by variable, with the TF 1
program's ``tf.gradients`` values. One JSON line.

``tf.recompute_grad`` and variables: the blocks read their variables as
Python attributes, not arguments. The decorator runs the block under
``stop_recording`` (the tape keeps only its input and output), while
``tf.custom_gradient``'s variable watcher still sees each variable read and
hands the list to the gradient function as ``variables=``; the recomputation
watches them on its own tape and returns their gradients. So each variable
read in a block gets its gradient through the block's custom gradient, with
no explicit arguments (``block_runs`` counts the block's Python calls: twice
per block with ``tf.recompute_grad``, once without).
"""

import argparse
import json
import re

import numpy as np
import tensorflow as tf

TOKENS = "__tokens__"


def gelu(x):
    return 0.5 * x * (1 + tf.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * tf.pow(x, 3))))


class Weights:
    """The TF 1 checkpoint's values as ``tf.Variable``s, by TF 1 name."""

    def __init__(self, checkpoint):
        self.reader = tf.train.load_checkpoint(checkpoint)
        self.names = sorted(self.reader.get_variable_to_shape_map())
        self.variables = {}

    def __call__(self, name):
        if name not in self.variables:
            self.variables[name] = tf.Variable(self.reader.get_tensor(name), name=name)
        return self.variables[name]


class LayerNorm(tf.Module):
    def __init__(self, weights, scope, epsilon=1e-5):
        super().__init__()
        self.g, self.b = weights(scope + "/g"), weights(scope + "/b")
        self.epsilon = epsilon

    def __call__(self, x):
        mean = tf.reduce_mean(x, axis=-1, keepdims=True)
        variance = tf.reduce_mean(tf.square(x - mean), axis=-1, keepdims=True)
        return (x - mean) * tf.math.rsqrt(variance + self.epsilon) * self.g + self.b


class PositionWise(tf.Module):
    """A [1, in, out] weight applied at every position (GPT-2's conv1d)."""

    def __init__(self, weights, scope):
        super().__init__()
        self.w, self.b = weights(scope + "/w"), weights(scope + "/b")

    def __call__(self, x):
        *lead, width_in = x.shape.as_list()
        width = self.w.shape[-1]
        flat = tf.matmul(tf.reshape(x, [-1, width_in]), tf.reshape(self.w, [width_in, width]))
        return tf.reshape(flat + self.b, lead + [width])


class CausalAttention(tf.Module):
    def __init__(self, weights, scope, heads):
        super().__init__()
        self.c_attn = PositionWise(weights, scope + "/c_attn")
        self.c_proj = PositionWise(weights, scope + "/c_proj")
        self.heads = heads

    def __call__(self, x):
        batch, length, width = x.shape.as_list()

        def split_heads(t):
            t = tf.reshape(t, [batch, length, self.heads, width // self.heads])
            return tf.transpose(t, [0, 2, 1, 3])

        q, k, v = map(split_heads, tf.split(self.c_attn(x), 3, axis=2))
        scale = np.sqrt(width // self.heads).astype(np.float32)
        scores = tf.matmul(q, k, transpose_b=True) / scale
        seen = tf.cast(tf.range(length)[:, None] >= tf.range(length)[None, :], tf.float32)
        attention = tf.nn.softmax(scores * seen - 1e10 * (1 - seen))
        merged = tf.transpose(tf.matmul(attention, v), [0, 2, 1, 3])
        return self.c_proj(tf.reshape(merged, [batch, length, width]))


class Block(tf.Module):
    runs = 0  # Python calls (traces in a tf.function): forward, and recomputation

    def __init__(self, weights, scope, heads):
        super().__init__()
        self.ln_1 = LayerNorm(weights, scope + "/ln_1")
        self.attn = CausalAttention(weights, scope + "/attn", heads)
        self.ln_2 = LayerNorm(weights, scope + "/mlp/ln_2")  # TF 1 built it in "mlp"
        self.c_fc = PositionWise(weights, scope + "/mlp/c_fc")
        self.c_proj = PositionWise(weights, scope + "/mlp/c_proj")

    def __call__(self, x):
        Block.runs += 1
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(gelu(self.c_fc(self.ln_2(x))))


class LanguageModel(tf.Module):
    def __init__(self, weights, layers, heads):
        super().__init__()
        self.wte, self.wpe = weights("model/wte"), weights("model/wpe")
        self.blocks = [Block(weights, f"model/h{i}", heads) for i in range(layers)]
        self.ln_f = LayerNorm(weights, "model/ln_f")

    def __call__(self, tokens, recompute):
        batch, length = tokens.shape.as_list()
        h = tf.gather(self.wte, tokens) + self.wpe
        for block in self.blocks:
            h = (tf.recompute_grad(block) if recompute else block)(h)
        h = self.ln_f(h)
        width = h.shape[-1]
        logits = tf.matmul(tf.reshape(h, [-1, width]), self.wte, transpose_b=True)
        return tf.reshape(logits, [batch, length, -1])

    def loss(self, tokens, recompute):
        logits = self(tokens[:, :-1], recompute)
        return tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tokens[:, 1:], logits=logits)
        )


def loss_and_gradients(model, variables, tokens, recompute):
    with tf.GradientTape() as tape:
        loss = model.loss(tokens, recompute)
    grads = tape.gradient(loss, variables)
    return loss, {k: None if g is None else tf.convert_to_tensor(g) for k, g in grads.items()}


def compare(expected, loss, grads):
    """Max abs difference per variable to ``expected`` (name -> array)."""
    diffs = {k: float(np.max(np.abs(grads[k].numpy() - expected[k]))) for k in expected}
    worst = max(diffs, key=diffs.get)
    return {
        "grad_max_abs_diff": diffs[worst],
        "worst_variable": worst if diffs[worst] else None,
        "grad_max_abs": float(max(np.max(np.abs(g.numpy())) for g in grads.values())),
        "loss": float(loss),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", required=True, help="the TF 1 --save_start DIR/start")
    parser.add_argument("--grads", required=True, help="the TF 1 --save_grads file")
    parser.add_argument("--heads", type=int, default=4)
    args = parser.parse_args()

    saved = np.load(args.grads)
    tokens = tf.constant(saved[TOKENS])
    expected = {k: saved[k] for k in saved.files if k != TOKENS}
    weights = Weights(args.checkpoint)
    layers = len([n for n in weights.names if re.fullmatch(r"model/h\d+/ln_1/g", n)])
    model = LanguageModel(weights, layers, args.heads)
    variables = dict(weights.variables)

    result = {
        "layers": layers,
        "checkpoint_variables": len(weights.names),
        "tf2_variables": len(variables),
        "tf1_gradients": len(expected),
        "not_in_tf2": sorted(set(expected) - set(variables)),
        "not_in_tf1": sorted(set(variables) - set(expected)),
        "unread_in_checkpoint": sorted(set(weights.names) - set(variables)),
        "tf1_grad_max_abs": float(max(np.max(np.abs(g)) for g in expected.values())),
    }
    compiled = tf.function(loss_and_gradients)
    runs = {}
    for recompute in (True, False):
        for mode, run in (("function", compiled), ("eager", loss_and_gradients)):
            Block.runs = 0
            loss, grads = run(model, variables, tokens, recompute)
            name = ("recompute_grad" if recompute else "plain") + "_" + mode
            no_gradient = sorted(k for k, g in grads.items() if g is None)
            runs[name] = {"no_gradient": no_gradient, "block_runs": Block.runs}
            if not no_gradient and not result["not_in_tf2"]:
                runs[name].update(compare(expected, loss, grads))
            runs[name]["grads"] = {k: g for k, g in grads.items() if g is not None}
    # with against without tf.recompute_grad, in the same process
    for mode in ("function", "eager"):
        a, b = runs[f"recompute_grad_{mode}"]["grads"], runs[f"plain_{mode}"]["grads"]
        diff = max(float(np.max(np.abs(a[k].numpy() - b[k].numpy()))) for k in a.keys() & b.keys())
        result[f"recompute_vs_plain_{mode}_max_abs_diff"] = diff
    for run in runs.values():
        del run["grads"]
    print(json.dumps({**result, **runs}))


if __name__ == "__main__":
    main()
