"""The runner's ``note:`` on a TF 1.x name read where the v1 API was not
served (tf1_train/compat/_v1_notes.py), for what the first notes missed:
a name in one of TF 2's submodules (OpenSeq2Seq's hooks, ``class
H(tf.train.SessionRunHook)`` in its package beside the scripts), and code a
program runs with ``exec(compile(src, path, "exec"), globals)``, which
--v1 now serves by the code's file when the globals have no ``__file__``
(dennybritz/reinforcement-learning loads its ``lib`` so)."""

from conftest import run_cli

QUIET = {"TF_CPP_MIN_LOG_LEVEL": "2"}
SCRIPT = """
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from pkg.hooks import Hook
print("hook", Hook.__mro__[1].__name__)
"""
HOOKS = "import tensorflow as tf\n\nclass Hook(tf.train.SessionRunHook):\n    pass\n"


def _project(tmp_path):
    """scripts/main.py puts the project on sys.path and imports pkg/hooks.py."""
    project = tmp_path / "project"
    files = {"pkg/__init__.py": "", "pkg/hooks.py": HOOKS, "scripts/main.py": SCRIPT}
    for path, text in files.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    return project


def test_a_name_in_a_tf_submodule_gets_the_note_and_the_option_it_names_serves_it(tmp_path):
    project = _project(tmp_path)
    cwd = project / "scripts"
    out = run_cli(["--v1", "main.py"], module="tf1_train.compat", cwd=cwd, env=QUIET)
    assert out.returncode == 1
    assert "module 'tensorflow._api.v2.train' has no attribute 'SessionRunHook'" in out.stderr
    assert out.stderr.rstrip().splitlines()[-1] == (
        f"note: tf.train.SessionRunHook in {project}/pkg/hooks.py is TF 1.x's, and that file is "
        "outside what --v1 serves (the files under the script's directory, or the current one "
        f"for -m): add --v1_root={project}"
    )
    out = run_cli(["--v1", f"--v1_root={project}", "main.py"], module="tf1_train.compat",
                  cwd=cwd, env=QUIET)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "hook SessionRunHook"


def test_without_v1_a_submodules_name_gets_the_note_too(tmp_path):
    (tmp_path / "main.py").write_text(HOOKS)
    out = run_cli(["main.py"], module="tf1_train.compat", cwd=tmp_path, env=QUIET)
    assert out.returncode == 1
    assert out.stderr.rstrip().splitlines()[-1] == (
        "note: tf.train.SessionRunHook in main.py is TF 1.x's: run with --v1 "
        "(python -m tf1_train.compat --v1 ...)"
    )


LIB = "import tensorflow as tf\nx = tf.placeholder(tf.float32, [None])\nprint('lib', x.shape)\n"
EXEC = """
import os
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib.py")
exec(compile(open(path).read(), path, "exec"), GLOBALS)
"""


def test_code_execd_in_globals_without_a_file_is_served_by_its_code_file(tmp_path):
    (tmp_path / "lib.py").write_text(LIB)
    (tmp_path / "main.py").write_text(EXEC.replace("GLOBALS", '{"__name__": "lib_exec"}'))
    out = run_cli(["--v1", "main.py"], module="tf1_train.compat", cwd=tmp_path, env=QUIET)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "lib (None,)"


def test_code_execd_in_another_files_globals_gets_a_note_that_is_true(tmp_path):
    elsewhere = {"__name__": "other", "__file__": str(tmp_path.parent / "other.py")}
    (tmp_path / "lib.py").write_text(LIB)
    (tmp_path / "main.py").write_text(EXEC.replace("GLOBALS", repr(elsewhere)))
    out = run_cli(["--v1", "main.py"], module="tf1_train.compat", cwd=tmp_path, env=QUIET)
    assert out.returncode == 1
    assert out.stderr.rstrip().splitlines()[-1] == (
        f"note: tf.placeholder in {tmp_path}/lib.py is TF 1.x's, and that file is among those "
        "--v1 serves, but its code ran in globals whose __file__ names another file "
        "(exec(code, globals)), and --v1 goes by that __file__: give those globals the file's own"
    )
