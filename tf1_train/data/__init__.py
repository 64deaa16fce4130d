"""Input sources by ``--dataset`` name, and the rules around them."""

from __future__ import annotations

import contextlib

from tf1_train.config import DataConfig
from tf1_train.data.source import Source
from tf1_train.errors import UserError


def load_source(cfg: DataConfig) -> Source:
    """Loads the dataset named in ``cfg``; files are found and checked here,
    so a missing or damaged file fails before any graph is built."""
    if cfg.use_synthetic_data:
        return _synthetic(cfg)
    if cfg.dataset == "digits":
        from tf1_train.data import digits

        return digits.load()
    if cfg.dataset == "mnist":
        from tf1_train.data import mnist

        return mnist.load(cfg.data_dir)
    if cfg.dataset == "cifar10":
        from tf1_train.data import cifar10

        return cifar10.load(cfg.data_dir)
    from tf1_train.data import tfrecord

    return tfrecord.load(cfg.data_dir)


def _synthetic(cfg: DataConfig) -> Source:
    from tf1_train.data import synthetic

    spec = None
    if cfg.dataset == "tfrecord" and cfg.data_dir:
        from tf1_train.data import tfrecord

        real = tfrecord.load(cfg.data_dir)
        spec = synthetic.Spec(real.image_shape, real.num_classes, real.num_train)
    return synthetic.source(cfg.dataset, cfg.seed, spec)


def augments(cfg: DataConfig) -> bool:
    """Whether training input is augmented: --augment applies to cifar10 only
    (pad-4 crop and flip suit its 32x32 photos, not digits), never to
    synthetic data or evaluation. A --preprocess function replaces it."""
    return (
        cfg.augment
        and cfg.dataset == "cifar10"
        and not cfg.use_synthetic_data
        and not cfg.preprocess
    )


def check_batch_fits(source: Source, batch_size: int, num_towers: int, num_shards: int = 1) -> None:
    """Refuses a global batch larger than the training set (or a worker's
    shard of it)."""
    global_batch = batch_size * num_towers
    available = source.num_train // num_shards
    if global_batch > available:
        shard = f" (1/{num_shards} of it per worker: {available})" if num_shards > 1 else ""
        raise UserError(
            f"--batch_size={batch_size} x {num_towers} towers = {global_batch} "
            f"examples per step, but {source.name} has only {source.num_train} "
            f"training examples{shard}; lower --batch_size or --num_gpus"
        )


@contextlib.contextmanager
def read_errors(source: Source):
    """Turns a failed read of the data files during the session into the
    source's one-line UserError naming the file (a corrupt TFRecord is only
    found when tf.data reads it). Other failures propagate unchanged."""
    import tensorflow as tf

    try:
        yield
    except (tf.errors.DataLossError, tf.errors.InvalidArgumentError) as e:
        error = source.input_error(e)
        if error is None:
            raise
        raise error from None
