"""Your eval metrics (--eval_metrics): an Estimator's eval_metric_ops, reset
before each eval, updated on every test batch, the same on both entry points.

The metrics live in tests/user_models/eval_metrics.py, named as a user names
them: tf.compat.v1.metrics' accuracy, recall_at_k and mean_per_class_accuracy,
and an example counter of the user's own on local variables. The user's
accuracy must equal tf1_train's test accuracy at every eval (the same labels
and logits, every batch once) and the counter the test split's size (reset
between evals, no batch twice); the bad functions are rows of the bad-input
table (tests/bad_input_user_rows.py).
"""

import json
import re

import pytest
import tensorflow as tf

from tests.conftest import run_clis, small_config
from tf1_train import data, train

EM = "tests.user_models.eval_metrics:metric_ops"
NAMES = ["accuracy", "recall_at_3", "mean_per_class_accuracy", "examples"]
EVAL_LINE = re.compile(r"^eval at step (\d+): test accuracy ([\d.]+); (.*)$", re.M)


def _evals(out: str):
    """[(step, test accuracy, {name: value})] of the eval lines."""
    found = []
    for step, accuracy, rest in EVAL_LINE.findall(out):
        values = dict(item.rsplit(" ", 1) for item in rest.split(", "))
        found.append((int(step), float(accuracy), {k: float(v) for k, v in values.items()}))
    return found


def _event_tags(train_dir) -> set:
    tags = set()
    for path in tf.io.gfile.glob(f"{train_dir}/events.out.tfevents.*"):
        for event in tf.compat.v1.train.summary_iterator(path):
            tags.update(v.tag for v in event.summary.value)
    return tags


@pytest.mark.parametrize(
    "towers,variable_update", [(1, "parameter_server"), (2, "parameter_server"), (2, "replicated")]
)
def test_each_eval_resets_and_counts_the_whole_test_split(
    tmp_path, capsys, towers, variable_update
):
    cfg = small_config(
        str(tmp_path / "run"), towers=towers, steps=12, eval_every=6,
        eval_metrics=EM, variable_update=variable_update, learning_rate=0.1,
    )  # fmt: skip
    result = train.run(cfg, gpus_found=0)
    out = capsys.readouterr().out
    assert f"eval metrics (--eval_metrics={EM}): {', '.join(NAMES)}; reset before each" in out
    evals = _evals(out)
    assert [step for step, _, _ in evals] == [6, 12]
    test_size = data.load_source(cfg.data).num_test
    for _, accuracy, values in evals:
        assert list(values) == NAMES
        assert values["examples"] == test_size
        assert values["accuracy"] == pytest.approx(accuracy, abs=1e-4)  # printed to 4 places
        assert accuracy <= values["recall_at_3"] <= 1
    assert evals[0][1] != evals[1][1]  # a metric left unreset would show a mean of both
    final = result.summary["eval_metrics"]
    assert final["accuracy"] == pytest.approx(result.summary["test_accuracy"], abs=1e-7)
    assert final["examples"] == test_size
    assert {f"eval/{name}" for name in NAMES} <= _event_tags(cfg.run.train_dir)


def test_both_entry_points_give_the_same_metrics(tmp_path):
    args = ["--model=mlp", f"--eval_metrics={EM}", "--num_gpus=2", "--deterministic",
            "--train_steps=10", "--batch_size=8", "--learning_rate=0.1"]  # fmt: skip
    modules = ("tf1_train.main", "tf1_train.tf2.main")
    runs = run_clis([[*args, f"--train_dir={tmp_path / m}"] for m in modules], module=modules)
    summaries, lines = {}, {}
    for module, run in zip(modules, runs):
        assert run.returncode == 0, run.stderr[-3000:]
        summaries[module] = json.loads((tmp_path / module / "run_summary.json").read_text())
        lines[module] = _evals(run.stdout)
    tf1, tf2 = (summaries[m]["eval_metrics"] for m in modules)
    assert list(tf1) == list(tf2) == NAMES
    for name in NAMES:
        assert tf2[name] == pytest.approx(tf1[name], abs=1e-6), name
    assert tf1["accuracy"] == pytest.approx(summaries[modules[0]]["test_accuracy"], abs=1e-7)
    assert lines[modules[0]] == lines[modules[1]]  # the same eval line, at step 10


BERT = "tests.user_models.eval_metrics:bert_metric_fn"


def _mean_cross_entropy(train_dir, loss=None) -> float:
    """The final weights' mean data loss over the digits test split, computed
    here from the checkpoint (mlp; ``loss``: per example, default softmax CE)."""
    from tf1_train import models

    source = data.load_source(small_config(str(train_dir)).data)
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        images, labels = source.eval_batches(10_000).get_single_element()
        x = tf.cast(images, tf.float32) / source.scale
        logits = models.get_model("mlp")(x, False, source.num_classes)
        per_example = (loss or tf.nn.sparse_softmax_cross_entropy_with_logits)(
            labels=labels, logits=logits
        )
        with v1.Session() as sess:
            v1.train.Saver().restore(sess, tf.train.latest_checkpoint(str(train_dir)))
            return float(sess.run(tf.reduce_mean(per_example)))


@pytest.mark.parametrize("loss", ["", "tests.user_models.regularized:mean_squared_error"])
def test_berts_metric_fn_runs_as_written_on_both_entry_points(tmp_path, loss):
    """metric_fn(per_example_loss, label_ids, logits, is_real_example), by
    name; per_example_loss is --loss's when it gives one value per example."""
    args = ["--model=mlp", f"--eval_metrics={BERT}", "--train_steps=6", "--batch_size=8"]
    args += [f"--loss={loss}"] if loss else []
    per_example = None
    if loss:
        from tests.user_models.regularized import mean_squared_error as per_example
    modules = ("tf1_train.main", "tf1_train.tf2.main")
    runs = run_clis([[*args, f"--train_dir={tmp_path / m}"] for m in modules], module=modules)
    for module, run in zip(modules, runs):
        assert run.returncode == 0, run.stderr[-3000:]
        summary = json.loads((tmp_path / module / "run_summary.json").read_text())
        values = summary["eval_metrics"]
        assert list(values) == ["eval_accuracy", "eval_loss"]
        assert values["eval_accuracy"] == pytest.approx(summary["test_accuracy"], abs=1e-7)
        expected = _mean_cross_entropy(tmp_path / module, per_example)
        assert values["eval_loss"] == pytest.approx(expected, rel=1e-5)
