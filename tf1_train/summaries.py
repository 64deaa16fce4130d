"""TensorBoard event files in train_dir, the TF1 way (``tf.compat.v1.summary``).

Scalars the loop already fetches (loss, learning rate) and numbers only Python
knows (examples/sec, test accuracy) are written as ``Summary`` protos from
Python: no summary ops in the graph, nothing extra fetched per step. Only the
histograms (``--summary_verbosity=2``) and the summary ops the user's model
made itself (``tf.compat.v1.summary.*`` in its SUMMARIES collection, tower
0's) are graph ops, fetched with the train op every
``--save_summary_steps``. The graph and the RunMetadata of one profiled step
are added once, so TensorBoard's graph view shows where each op ran and how
long it took.

Verbosity (as tf_cnn_benchmarks' ``--summary_verbosity``): 0 writes no event
file, 1 scalars + graph + run metadata + the model's own summaries, 2 also
histograms of every model variable.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import tensorflow as tf

v1 = tf.compat.v1


def build_histograms(graph: tf.Graph, variables: Dict[str, tf.Variable]) -> List[tf.Tensor]:
    """A histogram op per model variable (checkpoint names)."""
    with graph.as_default(), tf.name_scope("summaries"):
        return [v1.summary.histogram(name, var) for name, var in sorted(variables.items())]


def merged(graph: tf.Graph, ops: Sequence[tf.Tensor]) -> Optional[tf.Tensor]:
    """One op for the loop to fetch, or None."""
    if not ops:
        return None
    with graph.as_default():
        return v1.summary.merge(list(ops), name="fetched_summaries")


def describe_model_summaries(tower0: int, others: int, verbosity: int, chief: bool) -> str:
    """The start-up line about the model's own summary ops: nothing of the
    user's goes unwritten without a line saying so."""
    line = f"model summaries: {tower0} op(s) in tower 0's SUMMARIES collection"
    if not chief:
        line += " (written by the chief)"
    elif verbosity == 0:
        line += ", not written (--summary_verbosity=0)"
    else:
        line += ", written every --save_summary_steps"
    if others:
        line += f"; the other towers' {others} are not written (the same summaries per tower)"
    return line


class EventWriter:
    """A FileWriter that does nothing at verbosity 0.

    Args:
      logdir: train_dir.
      graph: the training graph, written once.
      verbosity: 0, 1 or 2 (see the module docstring).
      summary_op: the merged summary op the loop fetches (histograms, the
        model's own summaries), or None.
    """

    def __init__(
        self, logdir: str, graph: tf.Graph, verbosity: int, summary_op: Optional[tf.Tensor]
    ):
        self.summary_op = summary_op if verbosity > 0 else None
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
        """A Summary produced by the fetched summary op."""
        if self._writer:
            self._writer.add_summary(summary_bytes, step)

    def run_metadata(self, metadata: v1.RunMetadata, step: int) -> None:
        if self._writer:
            self._writer.add_run_metadata(metadata, f"step_{step}", step)

    def close(self) -> None:
        if self._writer:
            self._writer.close()
