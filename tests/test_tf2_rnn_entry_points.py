"""A user's recurrent TF1 models and their TF2 twins through both entry
points (tf1_train.main and tf1_train.tf2.main), from one TF1 checkpoint:
tests/user_models/row_rnn.py against row_rnn_twin.py, fused_rnn.py's
models against fused_rnn_twin.py's. The cells themselves are held to TF1's
in tests/test_tf2_rnn.py.
"""

import json

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import load_random_weights, run_clis

v1 = tf.compat.v1


MAINS = ("tf1_train.main", "tf1_train.tf2.main")
WEIGHT_ATOL_BF16 = 1e-2


@pytest.fixture(scope="module")
def start(tmp_path_factory):
    """A checkpoint of row_rnn's variables with random values: the weights
    a user's TF1 run trained (the twin's own initial values are not the TF1
    graph's draws)."""
    from tests.user_models import row_rnn

    return _start_checkpoint(tmp_path_factory.mktemp("start"), row_rnn.plain)


def _start_checkpoint(out, build):
    """Random values, scaled down, for the variables ``build`` makes."""
    with tf.Graph().as_default():
        build(tf.zeros([2, 8, 8, 1]), True, 10)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            values = load_random_weights(sess, 4)
            for var in v1.trainable_variables():  # smaller: the gates do not saturate
                var.load(0.3 * values[var.op.name], sess)
            return v1.train.Saver().save(sess, str(out / "model.ckpt"), global_step=0)


@pytest.mark.parametrize("model, precision", [("plain", "fp32"), ("masked", "fp32"),
                                              ("plain", "bf16")])  # fmt: skip
def test_both_entry_points_train_a_recurrent_model_the_same(tmp_path, start, model, precision):
    twin = "RowRnn" if model == "plain" else "masked"
    args = [f"--precision={precision}", f"--model=tests.user_models.row_rnn:{model}",
            f"--init_checkpoint={start}", f"--tf2_model=tests.user_models.row_rnn_twin:{twin}",
            "--num_gpus=2", "--batch_size=8", "--train_steps=8", "--display_every=1",
            "--seed=3", "--optimizer=momentum", "--learning_rate=0.1"]  # fmt: skip
    runs = [[*args, f"--train_dir={tmp_path / m}"] for m in MAINS]
    outs = run_clis(runs, module=list(MAINS))
    for out in outs:
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    losses = [
        [float(line.split()[3]) for line in o.stdout.splitlines() if line.startswith("step ")]
        for o in outs
    ]
    # fp32: the same losses as printed, final weights to float32 rounding
    # (measured: final losses 1e-7 apart, the gradients' sums over time steps
    # in another order: test_cells_compute_the_legacy_cells_numbers_...).
    # bf16: those sums are rounded to bfloat16 on both sides, so the paths
    # part by bf16 rounding (measured: losses up to 1.6e-3 relative after
    # 8 steps, weights 5.0e-3 apart at most).
    rel, atol = (1e-5, 1e-6) if precision == "fp32" else (5e-3, WEIGHT_ATOL_BF16)
    assert len(losses[0]) == 8
    if precision == "fp32":
        assert losses[1] == losses[0]
    else:
        assert losses[1] == pytest.approx(losses[0], rel=rel)
    tf1, tf2 = (json.loads((tmp_path / m / "run_summary.json").read_text()) for m in MAINS)
    assert tf2["final_loss"] == pytest.approx(tf1["final_loss"], rel=rel)
    assert tf2["test_accuracy"] == pytest.approx(tf1["test_accuracy"], abs=0.02)
    # One checkpoint format: the twin saved the TF1 names (weights and their
    # Momentum slots), and the values agree.
    ckpts = [tf.train.load_checkpoint(str(tmp_path / m)) for m in MAINS]
    names = [
        sorted(n for n in c.get_variable_to_shape_map() if n.startswith(("rnn/", "soft")))
        for c in ckpts
    ]
    assert names[1] == names[0] and len(names[0]) == 16
    gaps = {n: np.abs(ckpts[1].get_tensor(n) - ckpts[0].get_tensor(n)).max() for n in names[0]}
    assert max(gaps.values()) <= atol, gaps


def train_both_ways(tmp_path, module, build, twin, prefixes, *flags):
    """Runs ``--model=module:build`` and its ``--tf2_model=twin`` through
    both entry points from one checkpoint of random weights, 8 steps on 2
    towers; returns (their printed losses, the checkpoint names under
    ``prefixes`` they both saved, the largest gap between the two)."""
    start = _start_checkpoint(tmp_path / "start", getattr(module, build))
    args = [f"--model={module.__name__}:{build}", f"--init_checkpoint={start}",
            f"--tf2_model={twin}", "--num_gpus=2", "--batch_size=8", "--train_steps=8",
            "--display_every=1", "--seed=3", *flags]  # fmt: skip
    outs = run_clis([[*args, f"--train_dir={tmp_path / m}"] for m in MAINS], module=list(MAINS))
    for out in outs:
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    losses = [[line.split()[3] for line in o.stdout.splitlines() if line.startswith("step ")]
              for o in outs]  # fmt: skip
    ckpts = [tf.train.load_checkpoint(str(tmp_path / m)) for m in MAINS]
    names = [sorted(n for n in c.get_variable_to_shape_map() if n.startswith(prefixes))
             for c in ckpts]  # fmt: skip
    assert names[1] == names[0]
    gaps = [np.abs(ckpts[1].get_tensor(n) - ckpts[0].get_tensor(n)).max() for n in names[0]]
    return losses, names[0], max(gaps)


def test_both_entry_points_train_a_fused_cell_model_the_same(tmp_path, installed):
    # tests/user_models/fused_rnn.py (contrib's LSTMBlockFusedCell both ways,
    # GRUBlockCell) against its twin fused_rnn_twin.py, from one checkpoint.
    from tests.user_models import fused_rnn

    losses, names, gap = train_both_ways(
        tmp_path, fused_rnn, "build", "tests.user_models.fused_rnn_twin:FusedRnn",
        ("fw/", "bw/", "rnn/"), "--optimizer=momentum", "--learning_rate=0.1",
    )  # fmt: skip
    assert len(losses[0]) == 8 and losses[1] == losses[0]  # as printed
    assert len(names) == 16  # 8 weights, their Momentum slots
    assert gap <= 1e-6


def test_both_entry_points_train_a_research_cell_model_the_same(tmp_path, installed):
    # fused_rnn.py's ``research`` (contrib's IndRNNCell under a NASCell) and
    # its twin fused_rnn_twin.py:Research, from one checkpoint.
    from tests.user_models import fused_rnn

    losses, names, gap = train_both_ways(
        tmp_path, fused_rnn, "research", "tests.user_models.fused_rnn_twin:Research",
        ("rnn/", "softmax"), "--optimizer=momentum", "--learning_rate=0.1",
    )  # fmt: skip
    assert len(losses[0]) == 8 and losses[1] == losses[0]  # as printed
    assert len(names) == 14  # IndRNN 3, NAS 2, softmax 2; their Momentum slots
    assert gap <= 1e-6
