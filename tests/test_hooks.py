"""The user's SessionRunHooks (--hooks) run as MonitoredSession ran them.

The hooks live in tests/user_models/hooks.py and are named as a user names
them; each run is ``train.run`` in this process, so the tests read the hook
objects the run made. Expected values come from the run's own results.
"""

import json
import logging
import re

import pytest
import tensorflow as tf

from tests.conftest import small_config
from tests.user_models import hooks as user_hooks
from tf1_train import checkpoints, train
from tf1_train.errors import UserError

UM = "tests.user_models.hooks"
STEPS = 6


@pytest.fixture(autouse=True)
def _tensorflow_logger_level_ends_with_its_test():
    """--hooks turns TensorFlow's logger to INFO for the process."""
    level = tf.get_logger().level
    yield
    tf.get_logger().setLevel(level)


def _run(tmp_path, hooks, **kw):
    cfg = small_config(str(tmp_path / "run"), steps=STEPS, hooks=hooks, **kw)
    return cfg, train.run(cfg, gpus_found=0)


def _summary(cfg):
    with open(f"{cfg.run.train_dir}/run_summary.json") as f:
        return json.load(f)


@pytest.mark.parametrize("resume_from", [0, 2])
def test_every_hook_method_runs_in_order_around_each_step(tmp_path, resume_from):
    if resume_from:
        _run(tmp_path, "", train_steps=resume_from)
    cfg, result = _run(tmp_path, f"{UM}:counting")
    (hook,) = user_hooks.MADE
    ran = STEPS - resume_from
    assert len(result.losses) == ran
    assert dict(hook.calls) == {
        "begin": 1,
        "after_create_session": 1,
        "before_run": ran,
        "after_run": ran,
        "end": 1,
    }
    assert hook.created_at == resume_from
    assert hook.steps_after_run == list(range(resume_from + 1, STEPS + 1))
    assert hook.ended_at == STEPS == _summary(cfg)["global_step"]


def test_a_hooks_fetches_join_the_steps_own_run(tmp_path):
    _, result = _run(tmp_path, f"{UM}:fetching")
    (hook,) = user_hooks.MADE
    # The same Session.run as tf1_train's step: the very values it reported.
    assert hook.mean_losses == list(result.losses)
    assert hook.tower_losses == hook.mean_losses  # one tower


def test_stop_at_step_hook_ends_the_run_like_its_last_step(tmp_path, capsys):
    cfg, result = _run(tmp_path, f"{UM}:stop_at_step")
    k = user_hooks.STOP_AT
    assert k < STEPS
    assert len(result.losses) == k
    summary = _summary(cfg)
    assert summary["stopped_by"] == "hook" and summary["global_step"] == k
    assert summary["test_accuracy"] is not None
    assert checkpoints.find(cfg.run.train_dir)[0].endswith(f"model.ckpt-{k}")
    assert result.stop_signal is None  # exits 0
    assert f"StopAtStepHook (--hooks={UM}:stop_at_step) asked to stop" in capsys.readouterr().out
    counting = user_hooks.MADE[1]
    assert counting.calls["end"] == 1 and counting.ended_at == k


def test_logging_tensor_hook_logs_the_global_step(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="tensorflow")
    _run(tmp_path, f"{UM}:logging_step")
    logged = [int(m[1]) for m in re.finditer(r"step = (\d+)", caplog.text)]
    # every_n_iter=2: iterations 0, 2, 4, each read in its step's run (before
    # or after the update), then the final step at end().
    assert len(logged) == STEPS // 2 + 1
    for i, step in zip(range(0, STEPS, 2), logged):
        assert step in (i, i + 1)
    assert logged[-1] == STEPS


def test_a_signal_stop_still_ends_the_hooks(tmp_path):
    cfg, result = _run(tmp_path, f"{UM}:signalling")
    (hook,) = user_hooks.MADE
    assert result.stop_signal == "SIGTERM"
    assert _summary(cfg)["stopped_by"] == "signal"
    assert hook.calls["after_run"] == 2 and hook.calls["end"] == 1 and hook.ended_at == 2


@pytest.mark.parametrize(
    "name, message",
    [
        ("not_a_list", "returned a CountingHook; expected a list of"),
        ("not_hooks", "item 1 is a str, not a tf.compat.v1.train.SessionRunHook"),
        ("raises", "raised ValueError: this hook wants an Estimator"),
        ("makes_a_variable", "makes variable 'hook_counter'"),
    ],
)
def test_bad_hooks_are_one_line_before_anything_is_written(tmp_path, name, message):
    with pytest.raises(UserError, match=re.escape(f"--hooks={UM}:{name}: ")) as e:
        _run(tmp_path, f"{UM}:{name}")
    assert message in str(e.value)
    assert not tf.io.gfile.glob(str(tmp_path / "run" / "*ckpt*"))
