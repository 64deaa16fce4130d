"""Shared test helpers: configs for small runs, and the CLI in a subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from tf1_train import config as cfglib
from tf1_train.env import choose_onednn
from tf1_train.port.spec import make_config

# Before anything imports TensorFlow: in-process tests run the kernels the
# command line runs, whatever the CPU (docs/SPEED.md, oneDNN).
choose_onednn(None)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def small_config(train_dir, model="mlp", towers=1, batch=16, steps=5, **kw) -> cfglib.Config:
    """A short run; keyword args override fields of the sub-configs by name."""
    return make_config(train_dir, model, towers, batch, steps, **kw)


def run_cli(args, timeout=240, env=None, module="tf1_train.main", cwd=None):
    """Runs ``python -m <module> args`` and returns the CompletedProcess."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd or ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(autouse=True)
def _op_determinism_ends_with_its_test():
    """Op determinism is process-wide: a test that runs train.run with
    deterministic=True in this process would leave it on, and every later
    test's unseeded random op would raise (or take another kernel)."""
    yield
    from tensorflow.python.framework import config as tf_config

    if tf_config.is_op_determinism_enabled():
        tf_config.disable_op_determinism()


def run_clis(arg_lists, timeout=240, module="tf1_train.main"):
    """Runs ``python -m <module> args`` for each list side by side (each
    process mostly imports TensorFlow and builds a graph: the machine's two
    cores overlap them); returns their CompletedProcesses in order.
    ``module``: one for all, or one per list."""
    modules = [module] * len(arg_lists) if isinstance(module, str) else list(module)
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


@pytest.fixture
def cli():
    return run_cli


def start_cli(args, out_path, module="tf1_train.main"):
    """Starts ``python -m <module> args`` with stdout+stderr going to out_path.

    For tests that signal a running process; pair with ``wait_for_line`` and
    ``Popen.wait(timeout=...)``.
    """
    out = open(out_path, "w")
    try:
        return subprocess.Popen(
            [sys.executable, "-m", module, *args],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    finally:
        out.close()  # the child holds its own copy of the descriptor


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
            values[var.op.name] = rng.randn(*var.shape.as_list()).astype(np.float32)
            var.load(values[var.op.name], sess)
    return values
