"""`python -m tf1_train.port convert`: a TF1 checkpoint into a TF2 port, and back.

    python -m tf1_train.port convert runs/x/model.ckpt-500 model.weights.h5 --to=keras \
        --tf2=my_port:build --input_shape=24,24,3 --num_classes=10 [--name_map=FILE]
    python -m tf1_train.port convert model.weights.h5 tf1_dir --to=tf1 --tf2=my_port:build ...

``--to=keras``: a TF1 ``Saver`` checkpoint (a prefix, or a train_dir: its
newest) -> the Keras 3 model's ``.weights.h5``; ``--to=tf2``: -> a
``tf.train.Checkpoint(model=...)``; ``--to=tf1``: a ``.weights.h5`` or a TF2
checkpoint -> a TF1-layout checkpoint (``DST/model.ckpt-0`` and the
``checkpoint`` file: what a ``Saver`` and tf1_train restore). The TF2 object is
built as the check builds it, its variables named by the same map. Every
tensor restored, left over or missing is listed; nothing is written unless
every model variable found its value (``--allow_missing`` to write anyway).
``--optimizer=momentum|adam|...`` carries the v1 optimizer's state too
(``<var>/Momentum``, ``<var>/Adam``, ``<var>/Adam_1``, the beta powers,
``global_step``) into tf1_train's exact TF2 optimizer (tf1_train/tf2/optim.py,
the same names), saved next to the model in the TF2 checkpoint, and back;
without it, slots are listed as left over. An fp16 run's loss-scale state
(tf1_train's ``loss_scale/*``, v1's ``current_loss_scale`` and
``good_steps``) is listed with its values on a line of its own: a TF2 port
keeps it in its own ``LossScaleOptimizer``, which can start at that scale.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, Optional, Sequence

from tf1_train import saved_scale
from tf1_train.errors import UserError
from tf1_train.port import cells, name_map

V1_LOSS_SCALE = ("current_loss_scale", "good_steps")  # v1 DynamicLossScale's variables


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UserError(f"port convert: {message}")


def parse(argv: Sequence[str]) -> argparse.Namespace:
    p = _Parser(prog="python -m tf1_train.port convert")
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--to", required=True, choices=["keras", "tf2", "tf1"])
    p.add_argument("--tf2", required=True, help="the TF2 object: package.module:factory")
    p.add_argument("--name_map", default="")
    p.add_argument("--input_shape", required=True, help="H,W,C the model takes")
    p.add_argument("--num_classes", type=int, required=True)
    p.add_argument("--allow_missing", action="store_true")
    p.add_argument(
        "--optimizer",
        default="",
        choices=["", "sgd", "momentum", "adam", "rmsprop", "adagrad"],
        help="carry this v1 optimizer's slots (--to=tf2, and back from a TF2 checkpoint)",
    )
    args = p.parse_args(list(argv))
    try:
        args.shape = tuple(int(x) for x in args.input_shape.split(","))
        assert len(args.shape) == 3 and min(args.shape) > 0
    except (ValueError, AssertionError):
        raise UserError(f"--input_shape={args.input_shape}: expected H,W,C") from None
    if args.to == "keras" and not args.dst.endswith(".weights.h5"):
        raise UserError(f"--to=keras: DST {args.dst} must end with .weights.h5 (Keras 3)")
    args.map = name_map.load(args.name_map) if args.name_map else {}
    args.cells = cells.load(args.map.get("cells", []), "--name_map")
    if args.cells and args.optimizer:
        raise UserError(
            f"--optimizer={args.optimizer} with RNN cells in --name_map: their weights are "
            "rearranged, their optimizer slots would need the same; convert without --optimizer "
            "(the slots then start afresh)"
        )
    return args


def build(args):
    """The TF2 object, its optimizer (or None), and TF1 name -> variable
    (the model's, then the optimizer's state)."""
    import tensorflow as tf

    from tf1_train.config import OptimizerConfig
    from tf1_train.port import user_side
    from tf1_train.tf2 import optim

    user_side.fresh_keras_names()
    obj = user_side.build_object(args.tf2, args.shape, args.num_classes)
    user_side.first_call(obj, tf.zeros([1, *args.shape]))
    rename = name_map.Mapper(args.map)
    named = user_side.named_variables(obj)
    in_cells = {n for c in args.cells for n in c.tf2_names()}
    by_tf1 = {rename(n): v for n, v in named.items() if n not in in_cells}
    absent = sorted(n for n in in_cells if n not in named)
    if absent:
        raise UserError(f"--name_map: its cells name variables the TF2 model lacks: {absent}")
    args.cell_vars = {n: named[n] for n in in_cells}
    opt = None
    if args.optimizer and args.to != "keras" and not args.src.endswith(".weights.h5"):
        raw = {n: v if isinstance(v, tf.Variable) else v.value for n, v in by_tf1.items()}
        trainable = {n: v for n, v in raw.items() if v.trainable}
        opt = optim.make(OptimizerConfig(optimizer=args.optimizer), trainable)
        by_tf1.update(opt.state_by_name())
    return obj, opt, by_tf1


def _checkpoint(obj, opt):
    import tensorflow as tf

    return tf.train.Checkpoint(model=obj, **({"optimizer": opt} if opt is not None else {}))


def tf1_values(src: str) -> Dict:
    import tensorflow as tf

    path = tf.train.latest_checkpoint(src) if os.path.isdir(src) else src
    if not path or not tf.io.gfile.exists(path + ".index"):
        raise UserError(f"SRC {src}: no TF1 checkpoint there (a prefix such as model.ckpt-500)")
    reader = tf.train.load_checkpoint(path)
    return {n: reader.get_tensor(n) for n in reader.get_variable_to_shape_map()}


def to_tf2(args) -> int:

    values = tf1_values(args.src)
    obj, opt, by_tf1 = build(args)
    made, missing_cells = _cells_to_tf2(args, values)
    missing = sorted(n for n in by_tf1 if n not in values) + missing_cells
    shapes = [
        f"{n}: shape {list(values[n].shape)} in SRC, {list(tuple(v.shape))} in the model"
        for n, v in by_tf1.items()
        if n in values and tuple(values[n].shape) != tuple(v.shape)
    ]
    shapes += [
        f"{n}: shape {list(v.shape)} from SRC's cell, {list(args.cell_vars[n].shape)} in the model"
        for n, v in made.items()
        if tuple(v.shape) != tuple(args.cell_vars[n].shape)
    ]
    in_cells = {n for c in args.cells for n in c.tf1_names()}
    leftover = sorted(n for n in values if n not in by_tf1 and n not in in_cells)
    scale = [n for n in leftover if _is_loss_scale(n)]
    leftover = [n for n in leftover if n not in scale]
    restored = sorted([n for n in by_tf1 if n in values] + [n for n in in_cells if n in values])
    _print(restored, leftover, missing + shapes)
    if scale:
        print(loss_scale_line({n: values[n] for n in scale}))
    if shapes or (missing and not args.allow_missing):
        return 1
    for name, var in by_tf1.items():
        if name in values:
            var.assign(values[name])
    for name, value in made.items():
        args.cell_vars[name].assign(value)
    if args.to == "keras":
        obj.save_weights(args.dst)
    else:
        _checkpoint(obj, opt).write(args.dst)
    print(f"wrote {args.dst}")
    return 0


def to_tf1(args) -> int:
    import tensorflow as tf

    from tf1_train.tf2 import checkpoint

    obj, opt, by_tf1 = build(args)
    if args.src.endswith(".weights.h5"):
        obj.load_weights(args.src)
    else:
        _checkpoint(obj, opt).read(args.src).assert_existing_objects_matched()
    variables = {n: v if isinstance(v, tf.Variable) else v.value for n, v in by_tf1.items()}
    for cell in args.cells:  # the TF1 cell's layout, under its names
        back = cell.to_tf1({n: args.cell_vars[n].numpy() for n in cell.tf2_names()}, False)
        variables.update({n: tf.constant(v) for n, v in back.items()})
    _print(sorted(variables), [], [])
    os.makedirs(args.dst, exist_ok=True)
    print(f"wrote {checkpoint.save(args.dst, variables, 0)}")
    return 0


def _cells_to_tf2(args, values: Dict):
    """(TF2 cell variable -> value, the TF1 cell variables SRC lacks)."""
    made, missing = {}, []
    for cell in args.cells:
        absent = [n for n in cell.tf1_names() if n not in values]
        if absent:
            missing += absent
            continue
        try:
            made.update(cell.to_tf2({n: values[n] for n in cell.tf1_names()}))
        except ValueError as e:  # SRC's cell is not the kind the map says
            raise UserError(f"--name_map: cell {cell.tf1} ({cell.kind}) in SRC: {e}") from None
    return made, missing


def _is_loss_scale(name: str) -> bool:
    return saved_scale.is_loss_scale(name) or name.rsplit("/", 1)[-1] in V1_LOSS_SCALE


def loss_scale_line(values: Dict) -> str:
    """The fp16 loss-scale state a TF2 port does not take, with its values,
    and how its own ``LossScaleOptimizer`` goes on at that scale."""
    shown = ", ".join(f"{n} = {float(v):g}" for n, v in sorted(values.items()))
    line = f"loss scale, not carried (a TF2 port keeps it in its LossScaleOptimizer): {shown}"
    current = [
        float(v)
        for n, v in values.items()
        if n == saved_scale.SCALE or n.rsplit("/", 1)[-1] == "current_loss_scale"
    ]
    if current:
        line += f"; to go on at it: LossScaleOptimizer(..., initial_scale={current[0]:g})"
    return line


def _print(restored, leftover, missing) -> None:
    print(f"restored {len(restored)} variable(s): {', '.join(restored)}")
    if leftover:
        print(f"left over {len(leftover)} (not in the TF2 model): {', '.join(leftover)}")
    if missing:
        print(f"missing {len(missing)}: {', '.join(missing)}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        args = parse(sys.argv[1:] if argv is None else argv)
        if not os.path.exists(args.src) and not os.path.exists(args.src + ".index"):
            raise UserError(f"SRC {args.src}: no such file or checkpoint")
        return to_tf1(args) if args.to == "tf1" else to_tf2(args)
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
