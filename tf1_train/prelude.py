"""What every route does before it builds anything: the TF1 towers, a
cluster worker, the TF2 custom loop and Keras ``fit`` all start the same way,
so a bad train_dir or a batch too large for the data is the same one line
on each of them.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Iterator

import tensorflow as tf

from tf1_train import data, lock, paths
from tf1_train.config import Config
from tf1_train.data.source import Source


@contextlib.contextmanager
def writing_train_dir(cfg: Config) -> Iterator[None]:
    """For the process that writes train_dir (a single process, the chief):
    checks and creates it, checks --trace_file, and holds train_dir's lock
    for the ``with`` block, so a second writer is refused before anything
    is built."""
    paths.prepare_train_dir(cfg.run.train_dir)
    paths.check_trace_file(cfg.run.trace_file)
    with lock.hold(cfg.run.train_dir):
        yield


def start(cfg: Config, num_shards: int = 1) -> Source:
    """Turns on op determinism if asked, loads the data and checks that a
    global batch fits into each of ``num_shards`` shards of it (train_dir is
    ``writing_train_dir``'s)."""
    if cfg.run.deterministic:
        tf.config.experimental.enable_op_determinism()
    source = data.load_source(cfg.data)
    data.check_batch_fits(
        source, cfg.data.batch_size, cfg.devices.num_towers, num_shards=num_shards
    )
    return source


def warn_about_devices(plan) -> None:
    """The device plan's warning (e.g. virtual CPU devices), one stderr line."""
    if plan.warning:
        print(f"warning: {plan.warning}", file=sys.stderr, flush=True)
