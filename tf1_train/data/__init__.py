"""Input sources by ``--dataset`` name."""

from __future__ import annotations

from tf1_train.config import DataConfig
from tf1_train.data.source import ArraySource
from tf1_train.errors import UserError


def load_source(cfg: DataConfig) -> ArraySource:
    """Loads the dataset named in ``cfg`` (files are checked here)."""
    if cfg.dataset == "digits":
        from tf1_train.data import digits

        return digits.load()
    raise UserError(f"--dataset={cfg.dataset}: not available in this build")


def check_batch_fits(
    source: ArraySource, batch_size: int, num_towers: int, num_shards: int = 1
) -> None:
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
