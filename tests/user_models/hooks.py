"""SessionRunHooks a porting user brings from MonitoredTrainingSession,
named as ``--hooks=tests.user_models.hooks:function``: each function is
called with no arguments inside the training graph and returns a list."""

import collections
import os
import signal

import tensorflow as tf

v1 = tf.compat.v1

NOT_CALLABLE = [v1.train.SessionRunHook()]
STOP_AT = 4  # stop_at_step's last step
MADE = []  # the hooks the latest call made, for the tests to read


class CountingHook(v1.train.SessionRunHook):
    """Counts every call; reads the global step after each step and at the end."""

    def __init__(self):
        self.calls = collections.Counter()
        self.steps_after_run = []
        self.created_at = self.ended_at = None

    def begin(self):
        self.calls["begin"] += 1
        self._step = v1.train.get_global_step()

    def after_create_session(self, session, coord):
        del coord
        self.calls["after_create_session"] += 1
        self.created_at = int(session.run(self._step))

    def before_run(self, run_context):
        self.calls["before_run"] += 1
        return None

    def after_run(self, run_context, run_values):
        self.calls["after_run"] += 1
        self.steps_after_run.append(int(run_context.session.run(self._step)))

    def end(self, session):
        self.calls["end"] += 1
        self.ended_at = int(session.run(self._step))


class FetchingHook(v1.train.SessionRunHook):
    """Fetches the mean loss and tower 0's loss by name in the step's own run."""

    def __init__(self):
        self.mean_losses, self.tower_losses = [], []

    def before_run(self, run_context):
        return v1.train.SessionRunArgs({"mean": "mean_loss:0", "tower": "tower_0/xent:0"})

    def after_run(self, run_context, run_values):
        self.mean_losses.append(float(run_values.results["mean"]))
        self.tower_losses.append(float(run_values.results["tower"]))


class SignalHook(CountingHook):
    """Sends SIGTERM to its own process after the second step."""

    def after_run(self, run_context, run_values):
        super().after_run(run_context, run_values)
        if self.calls["after_run"] == 2:
            os.kill(os.getpid(), signal.SIGTERM)


def _made(hooks):
    MADE[:] = hooks
    return hooks


def counting():
    return _made([CountingHook()])


def fetching():
    return _made([FetchingHook()])


def signalling():
    return _made([SignalHook()])


def stop_at_step():
    return _made([v1.train.StopAtStepHook(last_step=STOP_AT), CountingHook()])


def logging_step():
    step = v1.train.get_global_step()
    return _made([v1.train.LoggingTensorHook({"step": step}, every_n_iter=2, at_end=True)])


def not_a_list():
    return CountingHook()


def not_hooks():
    return [CountingHook(), "print the loss"]


def raises():
    raise ValueError("this hook wants an Estimator")


def makes_a_variable():
    v1.get_variable("hook_counter", [], initializer=v1.zeros_initializer())
    return []
