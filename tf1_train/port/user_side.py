"""The TF2 side of a port check for the user's own object (a Keras 3 model
or layer, a ``tf.Module``), in its own process.

It builds the object fresh (so Keras's layer numbering depends on nothing
else), lists its variables by name (Keras ``variable.path`` without the
top-level model's name, or the ``tf.Variable`` name), maps them to TF1 names
(name_map.py) and writes the inventory. Only when every variable matched
with its shape: TF1's initial weights copied in, one forward and backward
pass on the first batch, then the steps on TF1's batches. Towers are the
global batch split in order, each slice's loss and gradients computed in
turn and the gradients averaged (what TF1's towers compute); a Keras batch
norm then updates its moving statistics once per slice.
"""

from __future__ import annotations

import contextlib
import inspect
import json
from typing import Dict

import numpy as np
import tensorflow as tf

from tf1_train import models, saved_scale, towers
from tf1_train.models import calls, outputs
from tf1_train.port import cells, name_map, sides, spec
from tf1_train.tf2 import optim, steps
from tf1_train.tf2 import precision as precisionlib
from tf1_train.tf2.models import Model

KNOWN_KWARGS = ("num_classes", "input_shape", "image_shape")


def fresh_keras_names() -> None:
    """Keras numbers unnamed layers per process (lstm, lstm_1): clearing its
    session before building names an object built after another (a chained
    check case, an in-process convert) as the CLI's fresh process does. It
    also resets Keras' global dtype policy: call it before setting one."""
    import keras

    keras.backend.clear_session()


def build_object(ref: str, image_shape, num_classes: int):
    """``ref``'s object, called with the keyword arguments it accepts."""
    factory = models.resolve(ref if ":" in ref else models.lookup(ref).tf2, "tf2")
    values = {"num_classes": num_classes, "input_shape": tuple(image_shape)}
    values["image_shape"] = values["input_shape"]
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        params = {}
    kwargs = {k: v for k, v in values.items() if k in params}
    return factory(**kwargs)


def named_variables(obj) -> Dict[str, tf.Variable]:
    """Every variable by its TF2 name, in creation order."""
    import keras

    if isinstance(obj, keras.layers.Layer):
        prefix = obj.name + "/"
        return {
            v.path[len(prefix) :] if v.path.startswith(prefix) else v.path: v for v in obj.weights
        }
    return {v.name.split(":")[0]: v for v in obj.variables}


def side_info(obj, mapped: Dict[str, str]) -> Dict:
    """What the hints need: batch-norm settings by TF1 moving-mean name,
    dropout, and the recurrent layers that return sequences but repeat the
    last output past a mask (``zero_output_for_mask=False``, Keras' default)."""
    import keras

    info = {"kind": "module", "batch_norm": {}, "dropout": False, "rnn_carry": []}
    if isinstance(obj, Model):  # tf1_train/tf2/layers.py's BatchNorm: its decay is the momentum
        for tf2, (decay, epsilon) in obj.params.batch_norm.items():
            info["batch_norm"][mapped.get(tf2, tf2)] = {"momentum": decay, "epsilon": epsilon}
    if not isinstance(obj, keras.layers.Layer):
        return info
    info["kind"] = "keras"
    stack = [obj]
    while stack:
        layer = stack.pop()
        stack.extend(getattr(layer, "layers", []))
        if isinstance(layer, keras.layers.BatchNormalization):
            for var in (layer.moving_mean, layer.moving_variance):
                tf2 = next((n for n, v in named_variables(obj).items() if v is var), "")
                info["batch_norm"][mapped.get(tf2, tf2)] = {
                    "momentum": float(layer.momentum),
                    "epsilon": float(layer.epsilon),
                }
        info["dropout"] |= isinstance(layer, keras.layers.Dropout)
        if isinstance(layer, keras.layers.RNN) and layer.return_sequences:
            if not layer.zero_output_for_mask:
                info["rnn_carry"].append(layer.name)
    return info


def keras_optimizer(cfg):
    """The Keras 3 optimizer a porter would write: its own defaults, the flags' lr."""
    import keras

    o, lr = cfg.optimizer, cfg.learning_rate
    if cfg.lr_schedule != "constant":
        line = f"port check: --tf2_optimizer=keras trains at the constant lr {lr}; "
        print(line + f"--lr_schedule={cfg.lr_schedule} applies to the TF1 side only", flush=True)
    if o == "momentum":
        return keras.optimizers.SGD(lr, momentum=cfg.momentum)
    kinds = {"sgd": keras.optimizers.SGD, "adam": keras.optimizers.Adam,
             "rmsprop": keras.optimizers.RMSprop, "adagrad": keras.optimizers.Adagrad}  # fmt: skip
    return kinds[o](lr)


def run(case: Dict, out: str) -> None:
    case = spec.complete(case)
    cfg = spec.config(case, out + "_tf2")
    ref = np.load(out + "_tf1.npz")
    tf.random.set_seed(case["seed"])
    scale = float(ref["scale"])
    compute = precisionlib.compute_type(case["precision"])  # the images the model is given
    inputs = [
        precisionlib.to_compute(
            tf.cast(x, tf.float32) * (1.0 / scale) if scale else tf.constant(x), compute
        )
        for x in ref["images"]
    ]
    fresh_keras_names()
    with _policy(case["precision"]):  # Keras layers take the mixed policy when made
        ref_tf2 = case["tf2"] or case["model"]
        obj = build_object(ref_tf2, inputs[0].shape[1:], int(ref["num_classes"]))
        first_call(obj, inputs[0][:1])
    named = named_variables(obj)
    tf1_shapes = {k[5:]: list(ref[k].shape) for k in ref.files if k.startswith("init:")}
    cell_list = cells.load(case["name_map"].get("cells", []), "--name_map")
    inv, mapped = _inventory(case, cell_list, named, tf1_shapes)
    info = {"inventory": inv, "names": mapped, **side_info(obj, mapped)}
    if inv["failed"]:
        _write(out, info, {})
        return
    # Cell variables keep their TF2 names here (cells.to_tf1_arrays renames what is written).
    by_tf1 = {mapped.get(n, n): v for n, v in named.items()}
    initial = _initial(ref, cell_list, by_tf1)
    for name, var in by_tf1.items():
        var.assign(initial[name])
    loss_fn = _loss_fn(case, obj)
    trainable = {n: v for n, v in by_tf1.items() if v.trainable}
    factor = sides.first_scale(cfg.precision)
    arrays = _forward(obj, loss_fn, trainable, inputs[0], ref["labels"][0], factor)
    for name, var in by_tf1.items():  # undo a batch norm's updates in the forward pass
        var.assign(initial[name])
    step, info["optimizer"], scale_state = _step_fn(cfg, case, loss_fn, trainable, obj)
    losses, scales = [], []
    for k, (x, y) in enumerate(zip(inputs, ref["labels"]), 1):
        losses.append(float(step(x, tf.constant(y))))
        scales.append(scale_state(k))
        if case["record"] == "all":
            arrays.update({f"step{k}:{n}": np.asarray(v.numpy()) for n, v in by_tf1.items()})
    arrays.update({"final:" + n: np.asarray(v.numpy()) for n, v in by_tf1.items()})
    arrays = cells.to_tf1_arrays(cell_list, arrays)
    _write(out, info, {"losses": np.array(losses), **arrays, **sides.scale_record(scales)})


def _inventory(case, cell_list, named, tf1_shapes):
    """(inventory, TF2 name -> TF1 name for the one-to-one variables): the
    name map's pairs and rules for those, the cells for theirs."""
    in_cells = {n for c in cell_list for n in c.tf2_names()}
    tf1_in_cells = {n for c in cell_list for n in c.tf1_names()}
    rename = name_map.Mapper(case["name_map"])
    mapped = {n: rename(n) for n in named if n not in in_cells}
    tf1_rest = {k: s for k, s in tf1_shapes.items() if k not in tf1_in_cells}
    inv = name_map.inventory(tf1_rest, {n: (mapped[n], list(named[n].shape)) for n in mapped})
    shapes = {n: list(v.shape) for n, v in named.items()}
    inv["cell_problems"] = cells.problems(cell_list, tf1_shapes, shapes)
    inv["cells"] = [c.tf1 for c in cell_list]
    inv["tf1_variables"], inv["tf2_variables"] = len(tf1_shapes), len(named)  # cells included
    inv["failed"] = inv["failed"] or bool(inv["cell_problems"])
    return inv, mapped


def _initial(ref, cell_list, by_tf1) -> Dict[str, np.ndarray]:
    """Each TF2 variable's starting value: TF1's, rearranged for the cells."""
    values = {n: ref["init:" + n] for n in by_tf1 if "init:" + n in ref.files}
    for cell in cell_list:
        values.update(cell.to_tf2({n: ref["init:" + n] for n in cell.tf1_names()}))
    return values


def first_call(obj, images) -> None:
    """Builds a Keras model's variables: one call in inference, with labels
    for a twin that takes them (models/calls.py)."""
    given = {"labels": tf.zeros(images.shape[:1], tf.int32)} if calls.twin_takes_labels(obj) else {}
    obj(images, training=False, **given)


def _policy(precision: str):
    """Keras' mixed policy for bf16/fp16 (float32 variables, layers
    computing in the type), as a porter sets it; nothing for fp32."""
    if precision == "fp32":
        return contextlib.nullcontext()
    from tf1_train.tf2.keras_fit import dtype_policy

    return dtype_policy(precision)


def _loss_fn(case, obj):
    """(images, labels) -> (logits, data loss, the model's own loss terms)."""
    user = models.resolve(case["tf2_loss"], "tf2_loss") if case["tf2_loss"] else None

    def loss(x, y, stats=None):
        given = {"labels": y} if calls.twin_takes_labels(obj) else {}  # models/calls.py
        if stats is not None:  # a Model's batch norms record their batch statistics
            given["stats"] = stats
        out = obj(x, training=True, **given)
        logits, end_points = outputs.split(out, user, "the TF2 model")
        logits, end_points = tf.cast(logits, tf.float32), outputs.float32_end_points(end_points)
        data = towers.data_loss(y, logits, user, end_points)
        terms = list(getattr(obj, "losses", None) or [])
        if hasattr(obj, "extra_losses"):
            terms += list(obj.extra_losses())
        own = tf.add_n([tf.cast(t, tf.float32) for t in terms]) if terms else tf.constant(0.0)
        return logits, data, own

    return loss


def _forward(obj, loss_fn, trainable, x, y, factor: float = 1.0) -> Dict:
    """The first batch's logits, loss and gradients; fp16's gradients as
    training takes them: of the loss times the first scale, divided by it."""
    with tf.GradientTape() as tape:
        logits, data, own = loss_fn(x, tf.constant(y))
        total = (data + own) * factor
    grads = tape.gradient(total, list(trainable.values()))
    found = {f"grad:{n}": g.numpy() / factor for n, g in zip(trainable, grads) if g is not None}
    return {
        "fwd:logits": logits.numpy(),
        "fwd:data_loss": data.numpy(),
        "fwd:own_losses": own.numpy(),
        **found,
    }


def _step_fn(cfg, case, loss_fn, trainable, obj):
    """One training step over ``case['towers']`` slices, what optimizer it
    uses, and ``state(step)``: fp16's loss scale and skipped steps after it.
    A tf1_train ``Model``'s moving statistics move as the TF2 path moves
    them: once a step, by the mean over the slices (tf2/steps.py)."""
    variables = list(trainable.values())
    n = case["towers"]
    moving = obj.moving_by_name if isinstance(obj, Model) else {}
    decays = obj.moving_decays if moving else []
    if case["tf2_optimizer"] == "keras":
        about, scaled, apply, state = _keras_route(cfg, case, variables)
    else:
        about, scaled, apply, state = _v1_route(cfg, case, trainable)

    @tf.function
    def step(x, y):
        b = x.shape[0] // n
        losses, per_tower, stats = [], [], []
        for i in range(n):
            stats.append({} if moving else None)
            with tf.GradientTape() as tape:
                _, data, own = loss_fn(x[i * b : (i + 1) * b], y[i * b : (i + 1) * b], stats[i])
                loss = data + own
                target = scaled(loss)
            losses.append(loss)
            per_tower.append(tape.gradient(target, variables))
        grads = [
            g[0] if n == 1 else tf.multiply(tf.add_n(list(g)), 1.0 / n) for g in zip(*per_tower)
        ]
        apply(grads)
        for (name, var), decay in zip(moving.items(), decays):
            steps.moving_average(var, tf.add_n([s[name] for s in stats]), n, decay)
        return tf.reduce_mean(tf.stack(losses))

    return step, about, state


def _keras_route(cfg, case, variables):
    """The Keras 3 optimizer; for fp16 in Keras' LossScaleOptimizer (dynamic:
    apply_gradients unscales, skips a non-finite step, moves the scale)."""
    import keras

    opt = keras_optimizer(cfg.optimizer)
    about = {"kind": "keras", **{k: v for k, v in opt.get_config().items() if _plain(v)}}
    scaled, state = _same, _none
    if case["precision"] == "fp16":
        opt = keras.optimizers.LossScaleOptimizer(opt)
        scaled = opt.scale_loss

        def state(k: int) -> Dict[str, float]:
            skipped = k - int(opt.iterations.numpy())  # a skipped step does not move them
            scale = float(opt.dynamic_scale.numpy())
            return {saved_scale.SCALE: scale, saved_scale.SKIPPED: skipped}

    return about, scaled, lambda g: opt.apply_gradients(zip(g, variables)), state


def _v1_route(cfg, case, trainable):
    """tf1_train's exact TF2 versions of the v1 optimizers; for fp16 with
    tf1_train's loss scale (the v1 rule the TF1 side follows)."""
    names = list(trainable)
    raw = {k: v if isinstance(v, tf.Variable) else v.value for k, v in trainable.items()}
    opt = optim.make(cfg.optimizer, raw)
    about = {"kind": "v1", "optimizer": cfg.optimizer.optimizer}
    strategy = tf.distribute.get_strategy()

    def update(grads):
        opt.apply(strategy, list(zip(grads, names)), raw)

    if case["precision"] != "fp16":
        return about, _same, update, _none
    ls = precisionlib.LossScale(case["loss_scale"] or "dynamic")

    def apply(grads):
        precisionlib.apply_if_finite(strategy, grads, ls, update, lambda: opt.step.assign_add(1))

    def state(step: int) -> Dict[str, float]:
        del step
        return {n: float(v.numpy()) for n, v in ls.by_name().items() if n in sides.SCALE_STATE}

    return about, ls.scaled, apply, state


def _same(loss):
    return loss


def _none(k: int) -> Dict:
    return {}


def _plain(value) -> bool:
    return isinstance(value, (int, float, str))


def _write(out: str, info: Dict, arrays: Dict) -> None:
    with open(out + "_tf2.json", "w") as f:
        json.dump(info, f, indent=1)
    np.savez(out + "_tf2.npz", **arrays)
