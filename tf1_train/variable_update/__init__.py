"""Variable-update modes: how towers share variables and combine gradients.

One class per mode in ``modes.py`` (as tf_cnn_benchmarks' ``VariableMgr``
subclasses and tensorpack's graph builders): each owns its towers' scopes
and device functions, gradient aggregation, batch-norm moving-statistic
updates, post-init ops, checkpoint names, eval scope and start-up lines.
The mode is chosen once, in ``graph.build``; nothing else compares mode
names.

This module imports no TensorFlow (config validation reads ``NAMES`` and
``supports_cluster`` before TensorFlow loads). Adding a mode: a class in
modes.py, a line in ``_MODES`` below, and its tests.
"""

from __future__ import annotations

from typing import NamedTuple


class _Entry(NamedTuple):
    class_name: str  # in modes.py
    supports_cluster: bool  # variables may live on a cluster's parameter servers


_MODES = {
    "parameter_server": _Entry("ParameterServer", supports_cluster=True),
    "replicated": _Entry("Replicated", supports_cluster=False),
}
NAMES = tuple(_MODES)
DEFAULT = "parameter_server"


def supports_cluster(name: str) -> bool:
    """Whether mode ``name`` works with between-graph (ps/worker) training."""
    return _MODES[name].supports_cluster


def get(name: str):
    """The mode object for ``--variable_update=name`` (validated by config)."""
    from tf1_train.variable_update import modes

    return getattr(modes, _MODES[name].class_name)()
