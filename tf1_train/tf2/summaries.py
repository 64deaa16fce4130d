"""TensorBoard scalars from the TF2 path: TF1's tags at TF1's steps.

The TF1 loop writes ``loss`` and ``learning_rate`` every
``--save_summary_steps`` and ``test_accuracy`` at the end, as ``Summary``
protos through a ``FileWriter``. Here the same values go through
``tf.summary.create_file_writer`` + ``tf.summary.scalar``, so a run that
moves from one path to the other continues the same curves in TensorBoard.
(TF2 scalars are stored as tensor summaries: TensorBoard's event reader
returns them from ``Tensors(tag)``, not ``Scalars(tag)``.)

``tf.summary.*`` calls inside a user's TF2 model (``--tf2_model``) write
only under a default writer: the training steps run under this one, its
step the global step the step ends at, recording every
``--save_summary_steps``, as TF1 fetches the model's own summary ops.
Under a distribution strategy TensorFlow records them from the first
replica only, as TF1 keeps tower 0's.
"""

from __future__ import annotations

import contextlib
from typing import Dict

import tensorflow as tf


class ScalarWriter:
    """Writes scalars to ``logdir``; at verbosity 0 it writes nothing at all.

    Args:
      logdir: train_dir.
      verbosity: --summary_verbosity (0 turns event files off, as in TF1).
      every: --save_summary_steps.
      last: --train_steps: written at the last step too, as the TF1 loop does.
    """

    def __init__(self, logdir: str, verbosity: int, every: int, last: int):
        self.every, self.last = every, last
        self._writer = tf.summary.create_file_writer(logdir) if verbosity > 0 else None

    def due(self, step: int) -> bool:
        multiple = self.every > 0 and step % self.every == 0
        return self._writer is not None and (multiple or step >= self.last)

    def recording(self, due: tf.Variable):
        """The context the training steps run in: they record while ``due``
        (int64) holds a step, the global step the running step ends at, and
        not while it holds -1."""
        if self._writer is None:
            return contextlib.nullcontext()
        stack = contextlib.ExitStack()
        stack.enter_context(self._writer.as_default(step=due))
        stack.enter_context(tf.summary.record_if(lambda: due > 0))
        return stack

    def scalars(self, step: int, values: Dict[str, float]) -> None:
        if self._writer is None:
            return
        with self._writer.as_default(step=step):
            for tag, value in values.items():
                tf.summary.scalar(tag, float(value))

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
