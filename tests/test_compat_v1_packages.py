"""``python -m tf1_train.compat --v1_packages=NAME``: an installed TF 1.x
library the program uses gets the v1 API too.

``--v1`` serves only the program's own files; an installed package keeps
TensorFlow 2's API, so a TF 1.x library installed from PyPI (stable-baselines
2.10, cleverhans 3, tensorpack) stops at its first ``tf.placeholder`` however
the program itself is run. Named with ``--v1_packages``, its files get the v1
API as the program's do, wherever it is installed; other installed packages
keep TensorFlow 2's. ``--v1_root=DIR`` serves the program's own files outside
the script's directory: a code base whose scripts put ``..`` on ``sys.path``
to import its shared package (dennybritz/reinforcement-learning's ``lib``,
SSD-Tensorflow's ``preprocessing`` and ``nets`` from its notebook).
"""

import json
import os

from conftest import run_cli

LIBRARY = """
import tensorflow as tf

def q_values(obs, actions):
    with tf.variable_scope("q"):
        hidden = tf.layers.dense(obs, 16, activation=tf.nn.relu, name="fc")
        return tf.layers.dense(hidden, actions, name="out")

def placeholder(width):
    return tf.placeholder(tf.float32, [None, width], name="obs")
"""
OTHER = """
import tensorflow as tf

def api():
    return "v1" if hasattr(tf, "placeholder") else "v2"
"""
PROGRAM = """
import json
import numpy as np
import tensorflow as tf
import tf1lib, tf2lib
obs = tf1lib.placeholder(4)
q = tf1lib.q_values(obs, 2)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    out = sess.run(q, {obs: np.ones((3, 4), np.float32)})
print(json.dumps({"shape": list(out.shape), "other": tf2lib.api(),
                  "variables": sorted(v.op.name for v in tf.global_variables())}))
"""


def _tree(tmp_path):
    """The program in prog/, the libraries as pip installs them, in a site-packages."""
    site = tmp_path / "venv" / "lib" / "site-packages"
    for name, source in (("tf1lib", LIBRARY), ("tf2lib", OTHER)):
        (site / name).mkdir(parents=True)
        (site / name / "__init__.py").write_text(source)
    (tmp_path / "prog").mkdir()
    (tmp_path / "prog" / "train.py").write_text(PROGRAM)
    return site


def _run(tmp_path, site, *options):
    # the library on PYTHONPATH, as an installed one is on sys.path (the warm
    # server's child puts it there as python does)
    path = os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])
    env = {"TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONPATH": path}
    return run_cli([*options, "train.py"], module="tf1_train.compat", cwd=tmp_path / "prog",
                   env=env)  # fmt: skip


def test_a_named_installed_library_gets_the_v1_api_and_others_keep_tf2s(tmp_path):
    site = _tree(tmp_path)
    out = _run(tmp_path, site, "--v1", "--v1_packages=tf1lib")
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["shape"] == [3, 2] and report["other"] == "v2"
    assert report["variables"] == ["q/fc/bias", "q/fc/kernel", "q/out/bias", "q/out/kernel"]


def test_without_it_the_library_stops_at_its_first_v1_name_with_a_note_naming_it(tmp_path):
    site = _tree(tmp_path)
    out = _run(tmp_path, site, "--v1")
    assert out.returncode == 1
    assert "tf1lib/__init__.py" in out.stderr
    *_, error, note = out.stderr.rstrip().splitlines()
    assert error == "AttributeError: module 'tensorflow' has no attribute 'placeholder'"
    assert note.startswith("note: tf.placeholder in ") and "tf1lib/__init__.py is TF 1.x's" in note
    assert note.endswith("outside what --v1 serves (the files under the script's directory, "
                         "or the current one for -m): add --v1_packages=tf1lib")  # fmt: skip


def test_without_v1_the_note_names_it(tmp_path):
    (tmp_path / "prog").mkdir()
    (tmp_path / "prog" / "train.py").write_text(
        "import tensorflow as tf\nx = tf.placeholder(tf.float32)\n"
    )
    out = run_cli(["train.py"], module="tf1_train.compat", cwd=tmp_path / "prog",
                  env={"TF_CPP_MIN_LOG_LEVEL": "2"})  # fmt: skip
    assert out.returncode == 1
    assert (
        out.stderr.rstrip()
        .splitlines()[-1]
        .endswith("train.py is TF 1.x's: run with --v1 (python -m tf1_train.compat --v1 ...)")
    )


SHARED = """
import tensorflow as tf

def build():
    x = tf.placeholder(tf.float32, [None, 2])
    return x, tf.reduce_sum(x)
"""
SCRIPT = """
import os, sys
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tensorflow as tf
from lib.model import build
x, y = build()
with tf.Session() as s:
    print("sum", s.run(y, {x: [[1.0, 2.0]]}))
"""


def test_a_shared_package_beside_the_scripts_is_served_by_v1_root_as_the_note_says(tmp_path):
    project = tmp_path / "project"
    (project / "lib").mkdir(parents=True)
    (project / "scripts").mkdir()
    (project / "__init__.py").write_text("")  # the whole repository a package, as in dennybritz's
    (project / "lib" / "__init__.py").write_text("")
    (project / "lib" / "model.py").write_text(SHARED)
    (project / "scripts" / "run.py").write_text(SCRIPT)
    env = {"TF_CPP_MIN_LOG_LEVEL": "2"}
    cwd = project / "scripts"
    out = run_cli(["--v1", "run.py"], module="tf1_train.compat", cwd=cwd, env=env)
    assert out.returncode == 1
    note = out.stderr.rstrip().splitlines()[-1]
    assert note == (f"note: tf.placeholder in {project}/lib/model.py is TF 1.x's, and that file "
                    "is outside what --v1 serves (the files under the script's directory, or the "
                    f"current one for -m): add --v1_root={project}")  # fmt: skip
    out = run_cli(["--v1", f"--v1_root={project}", "run.py"], module="tf1_train.compat", cwd=cwd,
                  env=env)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "sum 3.0"


TEST_PROGRAM = """
import os, sys, unittest
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib.model import build

class ModelTest(unittest.TestCase):
    def test_build(self):
        build()

if __name__ == "__main__":
    unittest.main()
"""


def test_a_test_program_that_catches_the_error_still_gets_the_note(tmp_path):
    """unittest catches the AttributeError, prints it as an error and exits 1:
    dennybritz/reinforcement-learning's A3C tests ended with no note."""
    project = tmp_path / "project"
    (project / "lib").mkdir(parents=True)
    (project / "tests").mkdir()
    (project / "lib" / "__init__.py").write_text("")
    (project / "lib" / "model.py").write_text(SHARED)
    (project / "tests" / "model_test.py").write_text(TEST_PROGRAM)
    out = run_cli(["--v1", "model_test.py"], module="tf1_train.compat", cwd=project / "tests",
                  env={"TF_CPP_MIN_LOG_LEVEL": "2"})  # fmt: skip
    assert out.returncode == 1 and "FAILED (errors=1)" in out.stderr
    assert out.stderr.rstrip().splitlines()[-1] == (
        f"note: tf.placeholder in {project}/lib/model.py is TF 1.x's, and that file is outside "
        "what --v1 serves (the files under the script's directory, or the current one for -m): "
        f"add --v1_root={project}"
    )
