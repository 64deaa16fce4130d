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
rows).
"""

import os
import subprocess
import sys

import numpy as np
import tensorflow as tf

from tests.conftest import COMPAT, ROOT, run_cli

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
    # Fresh interpreters: `python -m` puts the working directory on sys.path.
    env = {"PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])}
    copy = _edited_copy(tmp_path / "copy")
    runs = {
        "flag": run_cli(["--v1", *FLAGS, f"--train_dir={tmp_path / 'flag'}"], cwd=REPO, env=env,
                        fresh=True),
        "runner": run_cli(["--v1", "-m", "tf1_train.main", *FLAGS, f"--train_dir={tmp_path}/run"],
                          module=COMPAT, cwd=REPO, env={"TF_CPP_MIN_LOG_LEVEL": "2"}),
        "edited": run_cli([*FLAGS, f"--train_dir={tmp_path / 'edited'}"], cwd=copy, env=env,
                          fresh=True),
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


def test_port_check_v1_compares_the_unchanged_code_with_its_port(tmp_path):
    flags = ["--tf1=resnet:plain", "--tf2=twin:PlainTwin", "--steps=3", "--optimizer=momentum"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    procs = {
        v1: subprocess.Popen(
            [sys.executable, "-m", "tf1_train.port", "check", *flags, *(["--v1"] if v1 else [])],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for v1 in (True, False)
    }  # fmt: skip
    out = {v1: proc.communicate(timeout=300) for v1, proc in procs.items()}
    assert procs[True].returncode == 0, out[True][1][-3000:]
    assert "inventory: 4 TF1 and 4 TF2 variables: all matched" in out[True][0]
    assert out[True][0].rstrip().endswith("result: agree")
    assert procs[False].returncode == 2
    error = [line for line in out[False][1].splitlines() if line.startswith("error:")]
    assert error == [
        "error: --model=resnet:plain: importing 'resnet' failed: TensorFlow 2 has no module "
        "'tensorflow.contrib' (TF 1.x's): run your code's TF 1.x names unchanged with --v1 "
        "(python -m tf1_train.main --v1, port check --v1) from the directory that holds it, or "
        "call tf1_train.compat.install() at the top of your module, then import "
        f"tensorflow.compat.v1 as tf (at {REPO}/ops.py:12)"
    ]
