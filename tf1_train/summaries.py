"""TensorBoard event files in train_dir, the TF1 way (``tf.compat.v1.summary``).

Scalars the loop already fetches (loss, learning rate) and numbers only Python
knows (examples/sec, test accuracy) are written as ``Summary`` protos from
Python: no summary ops in the graph, nothing extra fetched per step. Only the
histograms (``--summary_verbosity=2``) are graph ops, fetched every
``--save_summary_steps``. The graph and the RunMetadata of one profiled step
are added once, so TensorBoard's graph view shows where each op ran and how
long it took.

Verbosity (as tf_cnn_benchmarks' ``--summary_verbosity``): 0 writes no event
file, 1 scalars + graph + run metadata, 2 also histograms of every model
variable.
"""

from __future__ import annotations

from typing import Dict, Optional

import tensorflow as tf

v1 = tf.compat.v1


def build_histograms(graph: tf.Graph, variables: Dict[str, tf.Variable]) -> Optional[tf.Tensor]:
    """One merged histogram op over the model's variables (checkpoint names)."""
    with graph.as_default(), tf.name_scope("summaries"):
        ops = [v1.summary.histogram(name, var) for name, var in sorted(variables.items())]
        return v1.summary.merge(ops) if ops else None


class EventWriter:
    """A FileWriter that does nothing at verbosity 0.

    Args:
      logdir: train_dir.
      graph: the training graph, written once.
      verbosity: 0, 1 or 2 (see the module docstring).
      histograms: the merged histogram op, or None.
    """

    def __init__(
        self, logdir: str, graph: tf.Graph, verbosity: int, histograms: Optional[tf.Tensor]
    ):
        self.histograms = histograms if verbosity >= 2 else None
        self._writer = None
        if verbosity > 0:
            # Built inside the graph: FileWriter refuses to exist in eager mode,
            # and library callers (tests) may still be in it.
            with graph.as_default():
                self._writer = v1.summary.FileWriter(logdir, graph=graph)

    def restarted(self, step: int) -> None:
        """Marks a resume: TensorBoard then drops the old run's events after
        ``step``, which the resumed run writes again."""
        if self._writer:
            self._writer.add_session_log(v1.SessionLog(status=v1.SessionLog.START), step)

    def scalars(self, step: int, values: Dict[str, float]) -> None:
        if self._writer:
            summary = v1.Summary(
                value=[v1.Summary.Value(tag=k, simple_value=float(v)) for k, v in values.items()]
            )
            self._writer.add_summary(summary, step)

    def serialized(self, step: int, summary_bytes: bytes) -> None:
        """A Summary produced by a summary op (the histograms)."""
        if self._writer:
            self._writer.add_summary(summary_bytes, step)

    def run_metadata(self, metadata: v1.RunMetadata, step: int) -> None:
        if self._writer:
            self._writer.add_run_metadata(metadata, f"step_{step}", step)

    def close(self) -> None:
        if self._writer:
            self._writer.close()
