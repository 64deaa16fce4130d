"""``--init_checkpoint``: a fresh run starts from an existing TF1 checkpoint's weights.

What tf_cnn_benchmarks' ``--pretrained_model_checkpoint_path``, TF-slim's
``--checkpoint_path`` with ``--checkpoint_exclude_scopes`` and BERT's
``init_checkpoint`` did: the model's variables (batch-norm statistics
included) are read by name from a checkpoint a porter already has, trained
by their own TF1 code or by tf1_train; the global step and the optimizer's
slots start fresh. ``--init_exclude`` (comma-separated regular expressions,
matched at the start of a checkpoint name) leaves variables at their
initial values, e.g. ``logits/`` when the class count changed.

Every other model variable must be in the checkpoint with the same shape
and dtype: anything missing is one error line, never a silent partial
load. Weight averages (``--moving_average_decay``) start from the loaded
weights, or from the checkpoint's own averages when it has them. A
train_dir that already holds a checkpoint is resumed instead, and the run
says the flag was not used.
"""

from __future__ import annotations

import os
import re
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from tf1_train.errors import UserError

AVERAGE = "/ExponentialMovingAverage"


class Plan(NamedTuple):
    """Which of the run's variables take which checkpoint tensor."""

    path: str  # the checkpoint prefix
    load: Dict[str, str]  # run's checkpoint name -> name in the init checkpoint
    excluded: List[str]


def resolve(path: str, flag: str = "--init_checkpoint") -> str:
    """The checkpoint prefix ``path`` names (a prefix, or a directory: its
    checkpoint of the highest step), or one UserError line naming ``flag``.
    Without TensorFlow: the entry point checks it before TensorFlow loads."""
    where = f"{flag}={path}"
    if os.path.isdir(path):
        prefixes = [f[: -len(".index")] for f in os.listdir(path) if f.endswith(".index")]
        if not prefixes:
            raise UserError(f"{where}: the directory holds no TF1 checkpoint (no .index file)")
        return os.path.join(path, max(prefixes, key=_step))
    if not os.path.exists(path + ".index"):
        raise UserError(
            f"{where}: no checkpoint there; give a prefix such as runs/x/model.ckpt-1000 "
            "(its .index file must exist) or a directory holding one"
        )
    return path


def _step(prefix: str) -> int:
    m = re.search(r"-(\d+)$", prefix)
    return int(m.group(1)) if m else -1


def make_plan(path: str, shapes: Dict[str, Tuple[list, str]], exclude: Sequence[str], reader):
    """The Plan for the run's model variables (``shapes``: checkpoint name ->
    (shape, dtype name)) and their averages; one UserError line naming the
    first variables the checkpoint lacks or holds otherwise."""
    have = reader.get_variable_to_shape_map()
    dtypes = {k: v.name for k, v in reader.get_variable_to_dtype_map().items()}
    patterns = [re.compile(e) for e in exclude]
    load, excluded, wrong = {}, [], []
    for name, (shape, dtype) in sorted(shapes.items()):
        if name.endswith(AVERAGE):
            continue
        if any(p.match(name) for p in patterns):
            excluded.append(name)
        elif name not in have:
            wrong.append(f"{name} is not in it")
        elif list(have[name]) != list(shape) or dtypes[name] != dtype:
            wrong.append(f"{name} is {dtypes[name]}{list(have[name])} there, {dtype}{shape} here")
        else:
            load[name] = name
    if wrong:
        more = f" (+{len(wrong) - 2} more)" if len(wrong) > 2 else ""
        raise UserError(
            f"--init_checkpoint={path}: {'; '.join(wrong[:2])}{more}; leave variables at "
            "their initial values with --init_exclude=REGEX,..."
        )
    for name in shapes:  # averages: the checkpoint's own, else the loaded weight's
        base = name[: -len(AVERAGE)] if name.endswith(AVERAGE) else None
        if base in load:
            load[name] = name if name in have else base
    return Plan(path, load, excluded)


def describe(plan: Plan) -> str:
    """The start-up line."""
    loaded = sum(not n.endswith(AVERAGE) for n in plan.load)
    line = f"init: {loaded} model variable(s) from {plan.path}"
    if plan.excluded:
        shown = ", ".join(plan.excluded[:3]) + (", ..." if len(plan.excluded) > 3 else "")
        line += f"; {len(plan.excluded)} left at their initial values ({shown})"
    return line + "; global step and optimizer slots start fresh"


def apply(plan: Plan, reader, assign: Callable[[str, object], None]) -> None:
    """``assign(run_name, value)`` for every variable the plan loads."""
    for name, source in plan.load.items():
        assign(name, reader.get_tensor(source))


def load_tf1(sess, g, path: str, exclude: Sequence[str]) -> str:
    """Fills a freshly initialised TF1 graph's model variables from ``path``
    and re-runs the post-init ops (replicated mode copies tower 0's values
    to the other towers); returns the start-up line."""
    import tensorflow as tf

    prefix = resolve(path)
    variables = g.saved_variables
    shapes = {
        n: (v.shape.as_list(), v.dtype.base_dtype.name)
        for n, v in variables.items()
        if n in g.model_variables or n.endswith(AVERAGE)
    }
    reader = tf.train.load_checkpoint(prefix)
    plan = make_plan(prefix, shapes, exclude, reader)
    values = {}
    apply(plan, reader, values.__setitem__)
    load_in_one_run(sess, {variables[name]: value for name, value in values.items()})
    sess.run(g.post_init_ops)
    return describe(plan)


def load_in_one_run(sess, values: Dict) -> None:
    """``Variable.load`` of every ``{variable: value}``, in one session run:
    one run per variable costs seconds for a ResNet-50, more when the
    variables live on a parameter server."""
    feeds = {v.initializer.inputs[1]: value for v, value in values.items()}
    sess.run([v.initializer for v in values], feeds)


def load_tf2(variables: Dict, averages: Dict, path: str, exclude: Sequence[str]) -> str:
    """The TF2 path's counterpart of load_tf1: ``variables`` (the model's, by
    TF1 checkpoint name) and ``averages`` assigned in place."""
    import tensorflow as tf

    prefix = resolve(path)
    every = {**variables, **averages}
    shapes = {n: (v.shape.as_list(), v.dtype.base_dtype.name) for n, v in every.items()}
    reader = tf.train.load_checkpoint(prefix)
    plan = make_plan(prefix, shapes, exclude, reader)
    apply(plan, reader, lambda name, value: every[name].assign(value))
    return describe(plan)


def starter(init_checkpoint: str, init_exclude: str) -> Optional[Callable]:
    """What checkpoints.restore_or_init runs after initialising a fresh run:
    None without --init_checkpoint."""
    if not init_checkpoint:
        return None

    def start(sess, g) -> None:
        line = load_tf1(sess, g, init_checkpoint, exclude_list(init_exclude))
        print(line, flush=True)

    return start


def exclude_list(flag_value: str) -> List[str]:
    return [e.strip() for e in flag_value.split(",") if e.strip()]
