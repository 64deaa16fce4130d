"""What every route does before it builds anything: the TF1 towers, a
cluster worker, the TF2 custom loop and Keras ``fit`` all start the same way,
so a bad train_dir or a batch too large for the data is the same one line
on each of them.
"""

from __future__ import annotations

import sys

import tensorflow as tf

from tf1_train import data, paths
from tf1_train.config import Config
from tf1_train.data.source import Source


def start(cfg: Config, num_shards: int = 1, writes_train_dir: bool = True) -> Source:
    """Checks and creates train_dir (when this process writes it), turns on
    op determinism if asked, loads the data and checks that a global batch
    fits into each of ``num_shards`` shards of it."""
    if writes_train_dir:
        paths.prepare_train_dir(cfg.run.train_dir)
        paths.check_trace_file(cfg.run.trace_file)
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
