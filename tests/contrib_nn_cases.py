"""The graphs of tests/goldens/contrib_nn.npz: every name of ``tf.contrib.nn``
on fixed inputs, with the gradients a training step takes of each.

Shared by scripts/make_contrib_nn_goldens.py, which runs it on TensorFlow
1.15.5 itself (Python 3.7: no syntax newer than that here), and by
tests/test_compat_contrib_nn.py, which runs it on tf1_train.compat's module.
``build`` takes the TensorFlow and the ``tf.contrib.nn`` to use.
"""

import numpy as np

SEED = 20261205
GRAPH_SEED, OP_SEED = 1, 7  # alpha_dropout's draw
SAMPLED = np.array([3, 7, 11, 0, 15], np.int64)  # candidates fixed: no sampler draws
RESAMPLE_FROM = np.array([3, 7, 11, 0, 15, 18], np.int64)


def inputs():
    rng = np.random.RandomState(SEED)
    soft = np.exp(rng.randn(4, 5))

    def f32(*shape):
        return rng.randn(*shape).astype(np.float32)

    return {
        "logits": f32(4, 5),
        "soft_labels": (soft / soft.sum(1, keepdims=True)).astype(np.float32),
        "sparse_labels": rng.randint(0, 5, size=4).astype(np.int32),
        "targets": rng.rand(4, 5).astype(np.float32),
        "x": f32(64, 32),
        "signal": f32(2, 7, 3),
        "filter": f32(3, 4, 3),  # width, output channels, input channels
        "values": f32(3, 6),
        "sp_x": 2 * f32(4, 5),
        "alpha": np.float32(0.3),
        "alpha_cols": (rng.rand(5) + 0.1).astype(np.float32),
        "clip": np.float32(0.5),
        "weights": f32(20, 6),
        "biases": f32(20),
        "class_labels": rng.randint(0, 20, size=(4, 1)).astype(np.int64),
        "emb": f32(4, 6),
        "true_expected": (rng.rand(4, 1) + 0.5).astype(np.float32),
        "sampled_expected": (rng.rand(6) + 0.5).astype(np.float32),
    }


def build(tf, nn, data):
    """{name: tensor}: each case's output and its gradients (``/d_<input>``;
    an input the op passes no gradient to has no entry)."""
    tf.compat.v1.set_random_seed(GRAPH_SEED)
    c = {k: tf.constant(v, name=k) for k, v in data.items()}
    out = {}

    def case(name, y, *wrt):
        out[name] = y
        for key, grad in zip(wrt, tf.gradients(tf.reduce_sum(y * y), [c[k] for k in wrt])):
            if grad is not None:  # dense, also where the gradient is IndexedSlices (a lookup)
                out[name + "/d_" + key] = tf.convert_to_tensor(grad)

    flipped = "deprecated_flipped_"
    logits = c["logits"]
    case("softmax", getattr(nn, flipped + "softmax_cross_entropy_with_logits")(
        logits, c["soft_labels"]), "logits", "soft_labels")  # fmt: skip
    case("softmax_dim0", getattr(nn, flipped + "softmax_cross_entropy_with_logits")(
        logits, c["soft_labels"], dim=0), "logits")  # fmt: skip
    case("sparse", getattr(nn, flipped + "sparse_softmax_cross_entropy_with_logits")(
        logits, c["sparse_labels"]), "logits")  # fmt: skip
    case("sigmoid", getattr(nn, flipped + "sigmoid_cross_entropy_with_logits")(
        logits, c["targets"]), "logits", "targets")  # fmt: skip
    case("alpha_dropout", nn.alpha_dropout(c["x"], 0.8, seed=OP_SEED), "x")
    case("alpha_dropout_noise_shape",
         nn.alpha_dropout(c["x"], 0.5, noise_shape=[1, 32], seed=OP_SEED + 1), "x")  # fmt: skip
    case("conv1d_transpose", nn.conv1d_transpose(c["signal"], c["filter"], [2, 14, 4], 2, "SAME"),
         "signal", "filter")  # fmt: skip
    out["nth_element"] = nn.nth_element(c["values"], 2)
    out["nth_element_reverse"] = nn.nth_element(c["values"], 2, reverse=True)
    case("scaled_softplus", nn.scaled_softplus(c["sp_x"], c["alpha"]), "sp_x", "alpha")
    case("scaled_softplus_clip", nn.scaled_softplus(c["sp_x"], c["alpha_cols"], clip=c["clip"]),
         "sp_x", "alpha_cols", "clip")  # fmt: skip
    _sampled_cases(tf, nn, c, case)
    return out


def _sampled_cases(tf, nn, c, case):
    fixed = (tf.constant(SAMPLED), c["true_expected"], c["sampled_expected"][:5])
    case("sampled_sparse", nn.sampled_sparse_softmax_loss(
        c["weights"], c["biases"], c["class_labels"], c["emb"], 5, 20, sampled_values=fixed),
        "weights", "biases", "emb")  # fmt: skip
    shards = [c["weights"][:10], c["weights"][10:]]
    case("sampled_sparse_div", nn.sampled_sparse_softmax_loss(
        shards, c["biases"], c["class_labels"], c["emb"], 5, 20, sampled_values=fixed,
        partition_strategy="div"), "weights", "biases", "emb")  # fmt: skip
    six = (tf.constant(RESAMPLE_FROM), c["true_expected"], c["sampled_expected"])
    case("rank_sampled", nn.rank_sampled_softmax_loss(
        shards, c["biases"], c["class_labels"], c["emb"], num_sampled=6, num_resampled=3,
        num_classes=20, num_true=1, sampled_values=six, resampling_temperature=2.0,
        remove_accidental_hits=True, partition_strategy="div"),
        "weights", "biases", "emb")  # fmt: skip
