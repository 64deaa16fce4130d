"""A parameter server lost between the chief's last step and its close.

The steps are done, but what they trained lives on the ps, and the chief has
still to save it, evaluate and close its session. The ps (a task of a real
job, tests/cluster_job.py) is killed by the chief's own process at the exact
moment (tests/fault_worker.py kill_ps: no timer hits these moments): 50
steps, checkpoints at 20 and 40, the third Saver.save being the final one.
"""

import pytest

from tests.cluster_job import Job
from tests.fault_client import Forker
from tests.test_faults import _error_lines, _loadable_step
from tf1_train import checkpoints
from tf1_train.errors import EXIT_CLUSTER

PS_STEPS, PS_EVERY = 50, 20


@pytest.fixture(scope="module")
def forker():
    f = Forker()
    yield f
    f.close()


def _chief_losing_its_ps(tmp_path, forker, at: str, count: int = 3):
    """(exit status, the chief's output, train_dir) of a one-worker job whose
    ps is killed ``at`` its ``count``-th Saver.save or Session.close."""
    train_dir = tmp_path / "train"
    flags = [f"--train_steps={PS_STEPS}", f"--save_checkpoint_steps={PS_EVERY}"]
    flags += ["--display_every=10", "--startup_timeout_secs=5", "--operation_timeout_secs=10"]
    with Job(tmp_path, [*flags, f"--train_dir={train_dir}"], num_workers=1) as job:
        job.start("ps0")
        kill_ps = {"pid": job.procs["ps0"].pid, "at": at, "count": count}
        status, text = forker.run(job.argv("worker0")[3:], tmp_path / "chief.log", kill_ps=kill_ps)
    assert f"fault_worker: killed the parameter server at {at}" in text, text[-3000:]
    return status, text, train_dir


def _error_line(text: str) -> str:
    [line] = _error_lines(text)
    return line


@pytest.mark.timeout(120)
def test_a_ps_lost_before_the_final_save_is_one_line_naming_the_checkpoint_kept(tmp_path, forker):
    # The 10 steps after model.ckpt-40 lived on the ps: gone with it. The
    # chief waits --startup_timeout_secs for it, then gives up, retryable.
    status, text, train_dir = _chief_losing_its_ps(tmp_path, forker, "before_save")
    assert status == EXIT_CLUSTER
    line = _error_line(text)
    assert line.startswith("error: worker0: a parameter server was lost during training (")
    last_periodic = PS_STEPS // PS_EVERY * PS_EVERY  # 40
    kept = train_dir / f"model.ckpt-{last_periodic}"
    assert line.endswith(f"; the newest checkpoint {kept} is intact: a rerun resumes from it")
    assert checkpoints.find(str(train_dir))[0] == str(kept)
    assert _loadable_step(str(kept)) == last_periodic


@pytest.mark.timeout(120)
def test_a_ps_lost_after_the_final_save_keeps_it_and_the_rerun_needs_no_step(tmp_path, forker):
    # Lost during the chief's evaluation: the final checkpoint is saved, the
    # evaluation is what a rerun (with the ps back) still does.
    status, text, train_dir = _chief_losing_its_ps(tmp_path, forker, "after_save")
    assert status == EXIT_CLUSTER
    final = train_dir / f"model.ckpt-{PS_STEPS}"
    assert _error_line(text).endswith(
        f"the newest checkpoint {final} is intact: a rerun resumes from it"
    )
    assert _loadable_step(str(final)) == PS_STEPS


@pytest.mark.timeout(120)
def test_a_ps_lost_once_the_chief_is_done_is_a_warning_not_a_hang(tmp_path, forker):
    # Steps, final save and evaluation are behind; the chief's session
    # closes. Telling a dead ps the worker is done used to wait for the
    # watchdog (15 s) and end a finished job with the retryable 203.
    status, text, train_dir = _chief_losing_its_ps(tmp_path, forker, "before_close", count=1)
    assert status == 0, text[-3000:]
    assert f"eval at step {PS_STEPS}: test accuracy" in text
    assert not _error_lines(text)
    [warning] = [line for line in text.splitlines() if line.startswith("warning: worker0: ps0")]
    assert "gone after the last step (its port refuses connections)" in warning
    assert _loadable_step(str(train_dir / f"model.ckpt-{PS_STEPS}")) == PS_STEPS
