"""A step counter made as ``tf.Variable(0, name='global_step')`` (Kyubyong's
Tacotron and many TF1 tutorials) after tf1_train.compat.install().

On TensorFlow 2.21's resource variables ``global_step:0`` is the variable's
handle, so TensorFlow's lookups by that name raise TypeError or, in the
Supervisor, find nothing: each case below fails that way without install()
and counts steps as TF 1.x did with it. A counter in the GLOBAL_STEP
collection is looked up as before, and uninstall() puts TensorFlow's
functions back."""

import glob

import pytest
import tensorflow as tf

from tf1_train.compat import _global_step

v1 = tf.compat.v1
RESOURCE = "Existing \"global_step\" does not have integer type: <dtype: 'resource'>"


def _graph(collected=False):
    graph = tf.Graph()
    with graph.as_default():
        step = v1.Variable(0, name="global_step", trainable=False)
        if collected:
            v1.add_to_collection(v1.GraphKeys.GLOBAL_STEP, step)
        weight = v1.Variable(1.0)
        loss = weight * weight
        v1.summary.scalar("loss", loss)
        train = v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return graph, step, train


def _train_with(hook, steps=3):
    graph, step, train = _graph()
    with graph.as_default(), v1.train.MonitoredSession(hooks=[hook()]) as sess:
        for _ in range(steps):
            if sess.should_stop():
                break
            sess.run(train)
        return sess.run(step) if not sess.should_stop() else None


HOOKS = {
    "StopAtStepHook": lambda d: v1.train.StopAtStepHook(last_step=2),
    "CheckpointSaverHook": lambda d: v1.train.CheckpointSaverHook(d, save_steps=1),
    "SummarySaverHook": lambda d: v1.train.SummarySaverHook(
        save_steps=1, output_dir=d, summary_op=v1.summary.merge_all()
    ),
    "StepCounterHook": lambda d: v1.train.StepCounterHook(every_n_steps=1, output_dir=d),
}


@pytest.mark.parametrize("name", sorted(HOOKS))
def test_the_hooks_that_count_steps_raise_without_install(tmp_path, name):
    with pytest.raises(TypeError, match="does not have integer type"):
        _train_with(lambda: HOOKS[name](str(tmp_path)))


def test_with_install_the_hooks_count_the_named_variable(installed, tmp_path):
    for name in sorted(HOOKS):
        _train_with(lambda: HOOKS[name](str(tmp_path / name)))  # noqa: B023
    assert sorted(glob.glob(str(tmp_path / "CheckpointSaverHook" / "model.ckpt-*.index"))) == [
        str(tmp_path / "CheckpointSaverHook" / f"model.ckpt-{i}.index") for i in (0, 1, 2, 3)
    ]
    steps = [e.step for e in _events(tmp_path / "SummarySaverHook") if e.summary.value]
    assert sorted(set(steps)) == [1, 2, 3], steps  # without install() the hook raises
    assert _train_with(lambda: HOOKS["StopAtStepHook"](None), steps=5) is None  # stopped at 2


@pytest.mark.parametrize("lookup", ["get_global_step", "get_or_create_global_step"])
def test_the_lookups_find_the_variable_itself(installed, lookup):
    graph, step, _ = _graph()
    with graph.as_default():
        assert getattr(v1.train, lookup)() is step
        assert v1.train.get_global_step(graph) is step


def test_without_install_the_lookups_raise_and_the_supervisor_has_no_step(tmp_path):
    graph, step, _ = _graph()
    with graph.as_default():
        with pytest.raises(TypeError, match=RESOURCE.replace("(", r"\(").replace(")", r"\)")):
            v1.train.get_global_step()
        assert v1.train.Supervisor(logdir=str(tmp_path), save_model_secs=0).global_step is None


def test_with_install_the_supervisor_writes_summaries_and_checkpoints_at_their_steps(
    installed, tmp_path
):
    graph, step, train = _graph()
    with graph.as_default():
        sv = v1.train.Supervisor(logdir=str(tmp_path), save_summaries_secs=0, save_model_secs=0)
        assert sv.global_step is step
        with sv.managed_session() as sess:
            for _ in range(3):
                sess.run(train)
                sv.summary_computed(sess, sess.run(sv.summary_op))
            sv.saver.save(sess, str(tmp_path / "model.ckpt"), global_step=sv.global_step)
    assert [e.step for e in _events(tmp_path) if e.summary.value] == [1, 2, 3]
    assert glob.glob(str(tmp_path / "model.ckpt-3.index"))


def test_a_collected_counter_and_a_program_without_one_are_looked_up_as_before(installed):
    graph, step, _ = _graph(collected=True)
    with graph.as_default():
        assert v1.train.get_global_step() is step
    with tf.Graph().as_default():
        assert v1.train.get_global_step() is None
        made = v1.train.get_or_create_global_step()
        assert v1.train.get_global_step() is made and made.dtype == tf.int64


def test_uninstall_puts_tensorflows_functions_back():
    from tensorflow.python.training import supervisor, training_util

    import tf1_train.compat

    before = (
        training_util.get_global_step,
        v1.train.get_global_step,
        supervisor.Supervisor._default_global_step_tensor,
    )
    tf1_train.compat.install()
    tf1_train.compat.install()  # a second install() wraps TensorFlow's function, not ours
    assert training_util.get_global_step._tf1_train_original is before[0]
    tf1_train.compat.uninstall()
    after = (
        training_util.get_global_step,
        v1.train.get_global_step,
        supervisor.Supervisor._default_global_step_tensor,
    )
    assert after == before
    assert _global_step.named_step(tf.Graph()) is None


def _events(directory):
    for path in sorted(glob.glob(str(directory / "events.out.tfevents.*"))):
        yield from v1.train.summary_iterator(path)
