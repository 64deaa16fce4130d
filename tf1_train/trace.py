"""One profiled step: RunOptions, RunMetadata and the Chrome trace.

The same RunMetadata serves three readers: the placement report (its
partition graphs), TensorBoard's graph view (``add_run_metadata``) and
``--trace_file`` (its step stats, through ``tensorflow.python.client.timeline``,
which is not part of the public API but has had no replacement for
graph-mode sessions since TF 1.x).
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.client import timeline

from tf1_train.errors import UserError

v1 = tf.compat.v1


def run_options(trace_step: bool, partition_graphs: bool, gpu: bool) -> v1.RunOptions:
    """RunOptions asking for a step's timings and/or its partition graphs.

    The partition graphs are what the runtime actually placed, after soft
    placement and grappler's rewrites, which ``op.device`` strings do not show.
    Timings: FULL_TRACE on GPUs (it adds the CUDA kernel tracer);
    SOFTWARE_TRACE on CPU, which records the same CPU op timings without the
    GPU tracer's "GPU trace was not collected" warning.
    """
    level = v1.RunOptions.NO_TRACE
    if trace_step:
        level = v1.RunOptions.FULL_TRACE if gpu else v1.RunOptions.SOFTWARE_TRACE
    return v1.RunOptions(trace_level=level, output_partition_graphs=partition_graphs)


def write_chrome_trace(metadata: v1.RunMetadata, path: str) -> None:
    """Writes the step as Chrome-trace JSON (chrome://tracing, Perfetto)."""
    text = timeline.Timeline(metadata.step_stats).generate_chrome_trace_format()
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        raise UserError(f"--trace_file={path}: cannot be written ({e.strerror})") from None
