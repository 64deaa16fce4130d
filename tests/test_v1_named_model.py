"""A model module in TF 1.x's own names (``import tensorflow as tf``,
``tf.variable_scope``, ``tf.layers``, ``tf.contrib``) on tf1_train's towers
and in port check.

tests/legacy_scripts/v1_named_repo is such a code base (taki0112's
ResNet-Tensorflow's way: tf.layers with contrib's regularizer, contrib's
batch norm updating in place). Unchanged, it trains with ``--v1`` (and
through ``python -m tf1_train.compat --v1 -m tf1_train.main``) run from its
directory, to the same variables, bit for bit, as the copy a porter edits
to ``tf.compat.v1`` names trains without; ``port check --v1`` compares it,
unchanged, with its TF2 port. Unchanged without ``--v1`` it is one error
line naming both ways (tests/bad_input_user_rows.py has the entry point's
rows). twin.py is that port, on tf1_train.tf2.layers' batch norm.
"""

import os

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import COMPAT, ROOT, run_cli
from tf1_train.port import check, hints, spec

REPO = os.path.join(ROOT, "tests", "legacy_scripts", "v1_named_repo")
FLAGS = ["--model=resnet:build", "--num_gpus=2", "--batch_size=16", "--train_steps=12",
         "--deterministic", "--seed=5", "--optimizer=momentum"]  # fmt: skip
# The porter's edit: the v1 API by its TF 2 name, and contrib once install() serves it.
EDITS = {
    "ops.py": (
        "import tensorflow as tf\nimport tensorflow.contrib as tf_contrib\n",
        "import tf1_train.compat\n\ntf1_train.compat.install()\n"
        "import tensorflow.compat.v1 as tf  # noqa: E402\n\ntf_contrib = tf.contrib\n",
    ),
    "resnet.py": ("import tensorflow as tf\n", "import tensorflow.compat.v1 as tf\n"),
}


def _edited_copy(directory):
    directory.mkdir()
    for name, (old, new) in EDITS.items():
        with open(os.path.join(REPO, name)) as f:
            source = f.read()
        assert source.count(old) == 1, name
        (directory / name).write_text(source.replace(old, new))
    return directory


def _variables(train_dir):
    reader = tf.train.load_checkpoint(os.path.join(train_dir, "model.ckpt-12"))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


def test_unchanged_tf1_names_train_as_the_edited_copy_does(tmp_path):
    copy = _edited_copy(tmp_path / "copy")
    runs = {
        "flag": run_cli(["--v1", *FLAGS, f"--train_dir={tmp_path / 'flag'}"], cwd=REPO),
        "runner": run_cli(["--v1", "-m", "tf1_train.main", *FLAGS, f"--train_dir={tmp_path}/run"],
                          module=COMPAT, cwd=REPO, env={"TF_CPP_MIN_LOG_LEVEL": "2"}),
        "edited": run_cli([*FLAGS, f"--train_dir={tmp_path / 'edited'}"], cwd=copy),
    }  # fmt: skip
    for run in runs.values():  # every kernel's L2 term, and no update left out
        assert run.returncode == 0, run.stderr[-3000:]
        assert "softmax cross-entropy + 7 REGULARIZATION_LOSSES term(s)" in run.stdout
        assert "warning:" not in run.stderr.replace("warning: no GPU found", "")
    edited = _variables(tmp_path / "edited")
    moving = [n for n in edited if n.endswith("moving_mean")]
    assert len(moving) == 5 and "network/resblock1_0/conv_init/conv2d/kernel" in edited
    assert not np.array_equal(edited[moving[0]], np.zeros_like(edited[moving[0]]))  # they moved
    for way in ("flag", "run"):
        unchanged = _variables(tmp_path / way)
        assert sorted(unchanged) == sorted(edited)
        for name in edited:
            np.testing.assert_array_equal(unchanged[name], edited[name], err_msg=f"{way}: {name}")


def _side_in_repo(side, cases_file, out_dir, timeout):
    """A port-check side run from the code base's directory, as the CLI's
    side processes are when it is started there (forked: tests/warm_cli.py)."""
    out = run_cli([side, cases_file, out_dir], timeout, module="tf1_train.port.sides", cwd=REPO)
    return out.returncode, out.stderr


def test_port_check_v1_compares_the_unchanged_code_with_its_port(tmp_path, monkeypatch):
    """The unedited code is the reference; the twin's batch norms move as the
    TF1 ones, and the epsilon TF 1.x's kernel used (1.001e-5, not the 1e-5
    ops.py asks for) is in both sides' records, which the hint reads."""
    monkeypatch.syspath_prepend(REPO)  # the CLI finds --tf1 and --tf2 from there
    flags = ["--tf1=resnet:build", "--tf2=twin:ResNetTwin", "--steps=3", "--optimizer=momentum"]
    case = check.case_from_flags(check.parse([*flags, "--v1"]))
    assert case["v1"] and not check.case_from_flags(check.parse(flags))["v1"]
    cases = [
        {**case, "id": "floor"},
        {**case, "id": "as_written", "tf2": "twin:AsWritten"},
        {**case, "id": "plain", "v1": False},
    ]
    with pytest.raises(check.SideFailed) as failed:  # the plain one's TF1 side
        check.run_chains(cases, str(tmp_path), shards=3, run_side=_side_in_repo)
    assert failed.value.line == (
        "error: --model=resnet:build: importing 'resnet' failed: TensorFlow 2 has no module "
        "'tensorflow.contrib' (TF 1.x's): run your code's TF 1.x names unchanged with --v1 "
        "(python -m tf1_train.main --v1, port check --v1) from the directory that holds it, or "
        "call tf1_train.compat.install() at the top of your module, then import "
        f"tensorflow.compat.v1 as tf (at {REPO}/ops.py:12)"
    )
    forward = {"phase": "forward", "step": 0, "tensor": "logits"}
    evidence = {}
    for c in cases[:2]:
        report = check.report(c, str(tmp_path))
        assert report["ok"], check.format_report(report)  # moving statistics too
        assert report["inventory"]["tf1_variables"] == report["inventory"]["tf2_variables"] == 34
        tf1, tf2, info = check.load(spec.complete(c), str(tmp_path))
        assert list(tf1["fwd:bn_epsilon"]) == [1.001e-5]  # TF 1.x's floor, under --v1
        ctx = hints.Context(spec.complete(c), info, tf1, tf2)
        evidence[c["id"]] = [h["evidence"] for h in hints.find(forward, ctx)]
    assert evidence["floor"] == []
    assert evidence["as_written"] == [
        "batch-norm epsilon: TF1 1.001e-05, TF2 1e-05; TF 1.x's fused kernel raised any epsilon "
        "below 1.001e-05 to it (cuDNN's minimum): give the port's batch norms epsilon=1.001e-05"
    ]


def test_dimension_value_runs_with_tf1xs_shapes_through_the_runner(tmp_path):
    """dims.py reads x.shape[i].value: one --model line naming the fixes with
    --v1 alone (a bad-input row), trained with the runner's --v1_shapes."""
    args = ["-m", "tf1_train.main", "--model=dims:build", "--num_gpus=2", "--train_steps=5"]
    env = {"TF_CPP_MIN_LOG_LEVEL": "2"}
    runs = {
        shapes: run_cli(["--v1", *shapes, *args, f"--train_dir={tmp_path}/{len(shapes)}"],
                        module=COMPAT, cwd=REPO, env=env)
        for shapes in ((), ("--v1_shapes",))
    }  # fmt: skip
    assert runs[()].returncode == 2
    assert "'int' object has no attribute 'value' (x.shape[i].value is TF 1.x's" in runs[()].stderr
    done = runs[("--v1_shapes",)]
    assert done.returncode == 0, done.stderr[-3000:]
    assert "done: global step 5" in done.stdout
