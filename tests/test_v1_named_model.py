"""A model module in TF 1.x's own names (``import tensorflow as tf``,
``tf.variable_scope``, ``tf.layers``, ``tf.contrib``) on tf1_train's towers.

tests/legacy_scripts/v1_named_repo is such a code base (taki0112's
ResNet-Tensorflow's way: tf.layers with contrib's regularizer, contrib's
batch norm updating in place). Unchanged, it trains through ``python -m
tf1_train.compat --v1 -m tf1_train.main`` run from its directory, to the
same variables, bit for bit, as the copy a porter edits to
``tf.compat.v1`` names trains through the plain entry point. Unchanged
on the plain entry point it is one error line naming both routes
(tests/bad_input_user_rows.py has those rows).
"""

import os

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
    unchanged, edited = tmp_path / "unchanged", tmp_path / "edited"
    out = run_cli(["--v1", "-m", "tf1_train.main", *FLAGS, f"--train_dir={unchanged}"],
                  module=COMPAT, cwd=REPO, env={"TF_CPP_MIN_LOG_LEVEL": "2"})  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    path = os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])
    copy = _edited_copy(tmp_path / "copy")  # `python -m` puts its directory on sys.path
    plain = run_cli([*FLAGS, f"--train_dir={edited}"], cwd=copy, env={"PYTHONPATH": path},
                    fresh=True)  # fmt: skip
    assert plain.returncode == 0, plain.stderr[-3000:]
    for run in (out, plain):  # every kernel's L2 term, and no update left out
        assert "softmax cross-entropy + 7 REGULARIZATION_LOSSES term(s)" in run.stdout
        assert "warning:" not in run.stderr.replace("warning: no GPU found", "")
    a, b = _variables(unchanged), _variables(edited)
    assert sorted(a) == sorted(b)
    moving = [n for n in a if n.endswith("moving_mean")]
    assert len(moving) == 5 and "network/resblock1_0/conv_init/conv2d/kernel" in a
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    assert not np.array_equal(a[moving[0]], np.zeros_like(a[moving[0]]))  # statistics moved
