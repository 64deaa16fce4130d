"""Shared test helpers: configs for small runs, and the CLI in a subprocess."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from tf1_train import config as cfglib
from tf1_train.env import choose_onednn
from tf1_train.port.spec import make_config

# Before anything imports TensorFlow: in-process tests run the kernels the
# command line runs, whatever the CPU (docs/SPEED.md, oneDNN).
choose_onednn(None)

# Every process of the run (this one, its workers, the CLI runs they start)
# writes its temporary files under one folder, removed at the end: AutoGraph
# leaves its generated modules in the temporary folder of a process that is
# killed or forked and never reaches exit (hundreds per suite otherwise).
# pytest's own tmp_path folders stay where they were (kept after the run).
os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", tempfile.gettempdir())
_OWNS_TMP = "TF1_TRAIN_TEST_TMP" not in os.environ  # the first process: pytest's own
if _OWNS_TMP:
    os.environ["TF1_TRAIN_TEST_TMP"] = tempfile.mkdtemp(prefix="tf1_train-tests.")
os.environ["TMPDIR"] = tempfile.tempdir = os.environ["TF1_TRAIN_TEST_TMP"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def small_config(train_dir, model="mlp", towers=1, batch=16, steps=5, **kw) -> cfglib.Config:
    """A short run; keyword args override fields of the sub-configs by name."""
    return make_config(train_dir, model, towers, batch, steps, **kw)


# What TensorFlow reads once, when it loads (or at its first log line): a run
# forks from a warm server that loaded TensorFlow with the same values; one
# with a flag the entry point turns into one of them before TensorFlow
# loads runs in a fresh interpreter.
LOAD_TIME = ("TF_ENABLE_ONEDNN_OPTS", "TF_CPP_MIN_LOG_LEVEL", "TF_CPP_MAX_VLOG_LEVEL",
             "TF_CPP_VMODULE", "ONEDNN_", "DNNL_", "OMP_", "KMP_", "TF_XLA_")  # fmt: skip
LOAD_TIME_FLAGS = ("--onednn", "--log_device_placement", "--xla")
COMPAT = "tf1_train.compat"


def _load_time(environ, module="tf1_train.main") -> dict:
    """The load-time variables ``python -m module`` would start TensorFlow
    with (the entry points' tf1_train.env.quiet_tensorflow default log level
    included; the compat runner sets none)."""
    found = {k: v for k, v in environ.items() if k.startswith(LOAD_TIME)}
    if module != COMPAT:
        found.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    return found


def _warm_cli(args, env, module, fresh):
    """The warm server this run may be a forked child of, or None; the
    environment the child runs with. The entry points fork from
    tests/warm_cli.py, the compat runner from tests/warm_compat.py (whose
    legacy programs' absl flags would clash with the entry points'); each
    is one server per load-time environment, started on first use with the
    session's environment and the run's load-time variables, so a run that
    sets TF_CPP_MIN_LOG_LEVEL=2 (most compat tests) forks too. What a fresh
    interpreter prints as TensorFlow loads is not in a forked run's stderr:
    a test of that passes ``fresh=True``."""
    from tests import warm_cli, warm_compat

    full_env = {**os.environ, **(env or {})}
    if module in warm_cli.ENTRY_POINTS:
        script = "warm_cli.py"
        fresh = fresh or any(a.startswith(LOAD_TIME_FLAGS) for a in args)
    elif module in warm_compat.MODULES:
        script = "warm_compat.py"  # its options change nothing TensorFlow reads as it loads
    else:
        return None, full_env
    if fresh:
        return None, full_env
    load_time = _load_time(full_env, module)
    server_env = {k: v for k, v in SESSION_ENV.items() if not k.startswith(LOAD_TIME)}
    key = tuple(sorted(load_time.items()))
    return warm_cli.shared({**server_env, **load_time}, script, key), full_env


# The environment the entry points' runs start with (the warm server's),
# taken again when collection ends (pytest_collection_finish), once the test
# modules and the libraries they import are loaded: libraries set variables
# as they load (Keras 3 imports scikit-learn where installed, which sets
# KMP_DUPLICATE_LIB_OK and KMP_INIT_AT_FORK), and every later run has them.
# Taken only here, before collection, it lacked them, and _warm_cli sent the
# runs to fresh interpreters instead (51 and 67 in two suites, 3 s of CPU each).
SESSION_ENV = dict(os.environ)


def pytest_collection_finish(session):
    """Every test module, TensorFlow and the users' models are imported:
    they live to the end, and the full collections of the in-process tests
    need not walk them (tf1_train.env.freeze_imports, as the entry points)."""
    from tf1_train import env

    for module in (sys.modules.get("conftest"), sys.modules.get("tests.conftest")):
        if module is not None:  # this file, imported under both names
            module.SESSION_ENV.clear()
            module.SESSION_ENV.update(os.environ)
    env.freeze_imports()


def pytest_sessionfinish(session, exitstatus):
    from tests import warm_cli

    warm_cli.close_shared()
    if _OWNS_TMP:
        shutil.rmtree(os.environ["TF1_TRAIN_TEST_TMP"], ignore_errors=True)


def run_cli(args, timeout=240, env=None, module="tf1_train.main", cwd=None, fresh=False):
    """Runs ``python -m <module> args`` and returns the CompletedProcess.

    The entry points and the compat runner run as children forked from a
    process that has imported TensorFlow once (tests/warm_cli.py,
    tests/warm_compat.py): the same ``run`` on the same argv and
    environment, without the 3 s import; a run whose flags change what
    TensorFlow reads when it loads (``_warm_cli``), or ``fresh=True``,
    starts a fresh interpreter. ``env``: variables added to this process's
    environment."""
    warm, full_env = _warm_cli(args, env, module, fresh)
    if warm is not None:
        return warm.run(args, module, timeout, cwd or ROOT, full_env)
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd or ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def warm_side(side: str, cases_file: str, out_dir: str, timeout: float):
    """check.run_chains' ``run_side`` for the tests: the port check's side
    forked from the warm server (``python -m tf1_train.port.sides``, without
    the import: 26 side processes in the suite), a fresh interpreter where
    ``run_cli`` would start one."""
    out = run_cli([side, cases_file, out_dir], timeout, module="tf1_train.port.sides")
    return out.returncode, out.stderr


@pytest.fixture(autouse=True)
def _op_determinism_ends_with_its_test():
    """Op determinism is process-wide: a test that runs train.run with
    deterministic=True in this process would leave it on, and every later
    test's unseeded random op would raise (or take another kernel)."""
    yield
    from tensorflow.python.framework import config as tf_config

    if tf_config.is_op_determinism_enabled():
        tf_config.disable_op_determinism()


def run_clis(arg_lists, timeout=240, module="tf1_train.main", fresh=False):
    """Runs ``python -m <module> args`` for each list side by side (each
    builds a graph and trains: the machine's two cores overlap them);
    returns their CompletedProcesses in order. ``module``: one for all, or
    one per list. Forked from the warm server as ``run_cli``'s runs are."""
    modules = [module] * len(arg_lists) if isinstance(module, str) else list(module)
    warm = [_warm_cli(args, None, mod, fresh) for args, mod in zip(arg_lists, modules)]
    if all(w for w, _ in warm):
        started = [w.start(a, mod, ROOT, e) for (w, e), a, mod in zip(warm, arg_lists, modules)]
        return [
            w.finish(s, a, mod, timeout)
            for (w, _), s, a, mod in zip(warm, started, arg_lists, modules)
        ]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", mod, *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for mod, args in zip(modules, arg_lists)
    ]
    done = []
    for proc in procs:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
            raise
        done.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return done


def run_legacy_script(script: str, cwd, *args) -> dict:
    """Runs a legacy TF1 program of tests/legacy_scripts through ``python -m
    tf1_train.compat``, as a user would (forked from the warm server, as
    ``run_cli``'s runs are); its ``name = value`` lines."""
    argv = [str(a) for a in (script, *args)]
    out = run_cli(argv, module=COMPAT, cwd=cwd, env={"TF_CPP_MIN_LOG_LEVEL": "2"})
    assert out.returncode == 0, out.stderr[-3000:]
    return dict(line.split(" = ", 1) for line in out.stdout.splitlines() if " = " in line)


def raising_lines(source: str, errors=(AttributeError, ImportError, NameError)) -> set:
    """The lines of ``source`` that raise one of ``errors``, each run on its
    own after the ones above (a NameError: a line above that should have
    bound the name raised): what a scanner's ``breaks`` lines are held to."""
    names, raised = {}, set()
    for number, line in enumerate(source.splitlines(), 1):
        try:
            exec(line, names)
        except errors:
            raised.add(number)
    return raised


@pytest.fixture
def installed():
    """tf1_train.compat.install() for one test (legacy cells, contrib placeholders)."""
    import tf1_train.compat

    tf1_train.compat.install()
    yield
    tf1_train.compat.uninstall()


@pytest.fixture
def cli():
    return run_cli


def start_cli(args, out_path, module="tf1_train.main", env=None, cwd=None, err_path=None):
    """Starts ``python -m <module> args`` with stdout+stderr going to out_path
    (stderr to ``err_path`` if given); ``env``: variables added to this
    process's environment.

    For tests that signal a running process or run several side by side;
    pair with ``wait_for_line`` and ``Popen.wait(timeout=...)``. Forked from
    the warm server as ``run_cli``'s runs are (a ``ForkedChild``: Popen's
    poll, wait, send_signal, kill), a fresh interpreter where ``run_cli``
    would start one.
    """
    from tests.fork_server import ForkedChild

    warm, full_env = _warm_cli(args, env, module, False)
    if warm is not None:
        pid, _ = warm.start(args, module, cwd or ROOT, full_env, out_path, err_path)
        return ForkedChild(warm, pid)
    with open(out_path, "w") as out, open(err_path or os.devnull, "w") as err:
        return subprocess.Popen(
            [sys.executable, "-m", module, *args],
            cwd=cwd or ROOT,
            env=full_env,
            stdout=out,
            stderr=err if err_path else subprocess.STDOUT,
            text=True,
        )  # the child holds its own copies of the descriptors


def wait_for_line(proc, out_path, pattern, timeout=120.0) -> str:
    """Polls out_path until a line matches the regex; returns that line.

    Fails (with the output so far) if the process exits first or on timeout.
    """
    deadline = time.monotonic() + timeout
    regex = re.compile(pattern, re.M)
    while time.monotonic() < deadline:
        with open(out_path) as f:
            m = regex.search(f.read())
        if m:
            return m.group(0)
        if proc.poll() is not None:
            break
        time.sleep(0.01)
    proc.kill()
    with open(out_path) as f:
        text = f.read()
    raise AssertionError(f"no line matching {pattern!r}; output:\n{text[-3000:]}")


def load_random_weights(sess, seed: int) -> dict:
    """Gives each trainable variable of ``sess``'s graph random values, as
    a user's trained TF1 weights; returns name -> value."""
    import numpy as np
    import tensorflow as tf

    rng = np.random.RandomState(seed)
    values = {}
    with sess.graph.as_default():
        for var in tf.compat.v1.trainable_variables():
            values[var.op.name] = np.asarray(rng.randn(*var.shape.as_list()), np.float32)
            var.load(values[var.op.name], sess)
    return values


def one_training_step(g, watched: dict, fetched) -> tuple:
    """Runs one step of ``graph.build``'s handle ``g`` on 2 CPU devices:
    (``watched`` before, ``fetched`` during, ``watched`` after)."""
    import tensorflow as tf

    v1 = tf.compat.v1
    with v1.Session(graph=g.graph, config=v1.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run([g.init_op])
        sess.run(g.post_init_ops)
        sess.run(g.input_init)
        before = sess.run(watched)
        during, _ = sess.run([fetched, g.train_op])
        return before, during, sess.run(watched)
