"""TensorBoard scalars from the TF2 path: TF1's tags at TF1's steps.

The TF1 loop writes ``loss`` and ``learning_rate`` every
``--save_summary_steps`` and ``test_accuracy`` at the end, as ``Summary``
protos through a ``FileWriter``. Here the same values go through
``tf.summary.create_file_writer`` + ``tf.summary.scalar``, so a run that
moves from one path to the other continues the same curves in TensorBoard.
(TF2 scalars are stored as tensor summaries: TensorBoard's event reader
returns them from ``Tensors(tag)``, not ``Scalars(tag)``.)
"""

from __future__ import annotations

from typing import Dict

import tensorflow as tf


class ScalarWriter:
    """Writes scalars to ``logdir``; at verbosity 0 it writes nothing at all.

    Args:
      logdir: train_dir.
      verbosity: --summary_verbosity (0 turns event files off, as in TF1).
      every: --save_summary_steps.
    """

    def __init__(self, logdir: str, verbosity: int, every: int):
        self.every = every
        self._writer = tf.summary.create_file_writer(logdir) if verbosity > 0 else None

    def due(self, step: int) -> bool:
        return self._writer is not None and self.every > 0 and step % self.every == 0

    def scalars(self, step: int, values: Dict[str, float]) -> None:
        if self._writer is None:
            return
        with self._writer.as_default(step=step):
            for tag, value in values.items():
                tf.summary.scalar(tag, float(value))

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
