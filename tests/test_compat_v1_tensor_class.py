"""``tf.Tensor`` in a program run with ``python -m tf1_train.compat --v1``.

TF 1.x made graph tensors of class ``tf.Tensor`` itself, and code bases
checked ``type(t) is tf.Tensor``: OpenAI baselines' ``tf_util.function``
asserts it of every input, so its DQN, DDPG, TRPO and GAIL stopped at
"inputs should all be placeholders, constants, or have a make_feed_dict
method" on TensorFlow 2, whose graph tensors are a subclass. Under ``--v1``
the program's own files see ``tf.Tensor`` as that class in graph mode and
as the base class once the program turns eager execution on; installed
packages keep TensorFlow 2's.
"""

import json
import os

import pytest
from conftest import ROOT, run_cli

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "rl_tf_util_style.py")
QUIET = {"TF_CPP_MIN_LOG_LEVEL": "2"}

PROBE = """
import sys
import tensorflow as tf
from tensorflow import Tensor
x = tf.placeholder(tf.float32, [None, 3])
v = tf.get_variable("v", [3])
seen = {"graph_is": type(x) is tf.Tensor, "from_import": Tensor is tf.Tensor,
        "isinstance": isinstance(x + v, tf.Tensor),
        "library": sys.modules["tensorflow"].Tensor.__name__}
tf.gradients_of_mine = "kept"
import helper
seen["shared"] = helper.read()
print(seen)
"""

EAGER = """
import tensorflow as tf
tf.enable_eager_execution()
print({"eager_isinstance": isinstance(tf.constant([1.0]), tf.Tensor),
       "eager_name": tf.Tensor.__name__})
"""


def _run(args, cwd, timeout=240):
    return run_cli(args, timeout, env=QUIET, module="tf1_train.compat", cwd=cwd)


def test_graph_tensors_are_tf_tensor_in_the_programs_files_and_eager_ones_after(tmp_path):
    (tmp_path / "probe.py").write_text(PROBE)
    (tmp_path / "eager.py").write_text(EAGER)
    (tmp_path / "helper.py").write_text(
        "import tensorflow as tf\n\ndef read():\n    return tf.gradients_of_mine\n"
    )
    seen = {}
    for probe in ("probe.py", "eager.py"):
        out = _run(["--v1", probe], tmp_path)
        assert out.returncode == 0, out.stderr[-3000:]
        seen.update(eval(out.stdout.strip().splitlines()[-1]))  # noqa: S307 (our probe's dict)
    assert seen == {
        "graph_is": True, "from_import": True, "isinstance": True,
        "library": "Tensor",  # TensorFlow 2's own class for installed code
        "eager_isinstance": True, "eager_name": "Tensor",
        "shared": "kept",  # an assignment to tf is seen by the program's other files
    }  # fmt: skip


def test_a_baselines_style_q_learner_trains_through_its_type_checked_function(tmp_path):
    out = _run(["--v1", SCRIPT], tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    optimal = 1.0 - 0.01 * 4  # 6 states: 4 steps at -0.01, then 1 at the end
    assert report["return_before"] < 0 and report["return_after"] == pytest.approx(optimal)
    assert report["loss_last"] < 0.1 * report["loss_first"]
    assert report["flat_params"] == 6 * 32 + 32 + 32 * 2 + 2  # the online Q network
    assert report["flat_roundtrip"] < 1e-6
