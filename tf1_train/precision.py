"""Mixed precision the TF1 way: float32 variables, towers in bfloat16 or float16.

As tf_cnn_benchmarks' ``--use_fp16`` did: every variable stays float32 (the
checkpoint is the same whatever the precision), and a custom getter on the
tower's variable scope hands the model a cast of each trainable variable in
the compute type. The cast runs on the tower's device; its gradient is the
cast back, so gradients reach the aggregation and the optimizer in float32.
The tower's input is cast to the compute type, its logits back to float32:
the softmax, the loss and every loss term are summed in float32.

Batch norm's scale and offset (``.../gamma``, ``.../beta``) and every
non-trainable variable (the moving statistics) are not cast: the fused
kernel takes them in float32 and computes the batch statistics in float32.

float16 needs loss scaling (its smallest normal is 6e-5: small gradients
flush to zero). ``LossScale`` is the v1 ``DynamicLossScale`` rule: the loss
is multiplied by the scale before the gradients, the mean gradient divided
by it; a non-finite gradient in any tower halves the scale (not below 1)
and skips that step's update everywhere; ``period`` finite steps in a row
double it. Unlike v1's ``MixedPrecisionLossScaleOptimizer`` the global step
advances on a skipped step (the step consumed its batch; resuming stays
exact) and skipped steps are counted. The scale's state is saved in the
checkpoint, as v1's global variables were (saved_scale.py). bfloat16 has
float32's exponent range and needs none. With ``--precision=fp32`` none of
this adds a single op.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Callable, Dict, NamedTuple, Optional

import tensorflow as tf

from tf1_train import saved_scale
from tf1_train.config import COMPUTE_TYPES

v1 = tf.compat.v1

DTYPES = {name: tf.as_dtype(t) for name, t in COMPUTE_TYPES.items()}
KEEP_FLOAT32 = ("/gamma", "/beta")  # batch norm's scale and offset
INITIAL_SCALE = 2.0**15  # v1 DynamicLossScale's defaults
PERIOD = 2000


class LossScale(NamedTuple):
    """The loss scale's state: global, non-trainable variables, saved in the
    checkpoint (a resumed run goes on with the scale it stopped at)."""

    scale: tf.Variable
    good_steps: tf.Variable  # finite steps since the last change
    skipped: tf.Variable  # steps whose update was skipped, over all restarts
    dynamic: bool
    period: int
    initial: float = INITIAL_SCALE


class Precision(NamedTuple):
    """What a tower computes in, and the loss scale if any."""

    name: str = "fp32"
    loss_scale: Optional[LossScale] = None
    auto: Optional[object] = None  # --auto_mixed_precision: the v1 DynamicLossScale

    @property
    def compute(self) -> tf.DType:
        return DTYPES[self.name]

    @property
    def mixed(self) -> bool:
        return self.name != "fp32"


FP32 = Precision()


def loss_scale_value(precision: str, loss_scale: str) -> Optional[str]:
    """'dynamic', a number as text, or None (no loss scaling): fp16 defaults
    to dynamic; fp32 and bf16 take none."""
    if precision != "fp16":
        return None
    return loss_scale or "dynamic"


def make(
    precision: str, loss_scale: str, device: str, auto: bool = False, period: int = PERIOD
) -> Precision:
    """The run's Precision; the loss-scale variables live on ``device`` (the
    global step's). ``auto``: v1's own DynamicLossScale, for the optimizer
    that ``enable_mixed_precision_graph_rewrite`` wraps (``rewrite``)."""
    if auto:
        return Precision(precision, auto=_v1_dynamic(device))
    value = loss_scale_value(precision, loss_scale)
    if value is None:
        return Precision(precision)
    dynamic = value == "dynamic"
    initial = INITIAL_SCALE if dynamic else float(value)
    with tf.device(device), v1.variable_scope(saved_scale.SCOPE):
        scale = v1.get_variable("scale", initializer=initial, trainable=False)
        good = v1.get_variable("good_steps", initializer=tf.constant(0, tf.int64), trainable=False)
        skipped = v1.get_variable(
            "skipped_steps", initializer=tf.constant(0, tf.int64), trainable=False
        )
    return Precision(precision, LossScale(scale, good, skipped, dynamic, period, initial))


def _v1_dynamic(device: str):
    """v1's DynamicLossScale, its global variables named as our own scale's
    (``loss_scale/scale``, ``loss_scale/good_steps``): saved, and restored by
    an fp16 run and the other way round."""
    renamed = {"current_loss_scale": "scale"}

    def creator(next_creator, **kwargs):
        kwargs["name"] = renamed.get(kwargs.get("name"), kwargs.get("name"))
        return next_creator(**kwargs)

    with tf.device(device), tf.name_scope(saved_scale.SCOPE + "/"):
        with v1.variable_creator_scope(creator):
            return v1.mixed_precision.DynamicLossScale()


def keep_fixed(sess, p: Precision) -> None:
    """After a restore: ``--loss_scale=<number>`` wins over the checkpoint's
    scale (a dynamic run's, or another number's), in one line if they differ."""
    ls = p.loss_scale
    if ls is None or ls.dynamic:
        return
    saved = float(sess.run(ls.scale))
    if saved_scale.overridden(ls.initial, saved):
        print(saved_scale.fixed_line(ls.initial, saved), flush=True)
        sess.run(ls.scale.initializer)


def cast_getter(compute: tf.DType) -> Callable:
    """The custom getter: a trainable float32 variable comes back cast to
    ``compute`` (except batch norm's scale and offset). A trainable variable
    asked for in a half type (layers asking for the input's dtype, as v1's
    and tf1_train.compat's do under half-precision input) is stored in
    float32 and handed back cast to that type, as tf_cnn_benchmarks' getter
    did: else it would be a half-precision variable, updated and saved so."""

    def getter(getter, *args, **kwargs):  # v1 passes everything by keyword
        requested = kwargs.get("dtype")
        if kwargs.get("trainable") is not False and requested is not None:
            requested = tf.as_dtype(requested)
            if requested in HALF:
                return tf.cast(getter(*args, **_stored_float32(kwargs)), requested)
        var = getter(*args, **kwargs)
        trainable = kwargs.get("trainable")
        if trainable is False or var.dtype.base_dtype != tf.float32:
            return var
        name = kwargs.get("name") or (args[0] if args else "")
        if name.endswith(KEEP_FLOAT32):  # the name asked for: the value may be an average
            return var
        return tf.cast(var, compute)

    return getter


HALF = (tf.float16, tf.bfloat16)


def _stored_float32(kwargs: Dict) -> Dict:
    """get_variable's arguments asking for float32 storage (a half-precision
    initial value given as a tensor made float32 too)."""
    init = kwargs.get("initializer")
    if isinstance(init, tf.Tensor) and init.dtype in HALF:
        init = tf.cast(init, tf.float32)
    return {**kwargs, "dtype": tf.float32, "initializer": init}


@contextlib.contextmanager
def tower_scope(p: Precision):
    """Entered inside the mode's variable scope: that same scope (read on
    entry, reuse and all) with the cast getter and no new name scope;
    nothing at all for float32."""
    if not p.mixed:
        yield
        return
    current = v1.get_variable_scope()
    getter = cast_getter(p.compute)
    with v1.variable_scope(current, custom_getter=getter, auxiliary_name_scope=False):
        yield


def with_getter(p: Precision, inner: Optional[Callable]) -> Optional[Callable]:
    """The eval replica's getter: ``inner`` (e.g. the moving averages), then the cast."""
    if not p.mixed:
        return inner
    cast = cast_getter(p.compute)
    if inner is None:
        return cast
    return lambda getter, *a, **k: cast(functools.partial(inner, getter), *a, **k)


def to_compute(x: tf.Tensor, p: Precision) -> tf.Tensor:
    return tf.cast(x, p.compute) if p.mixed and x.dtype.is_floating else x


def to_float32(x: tf.Tensor) -> tf.Tensor:
    return tf.cast(x, tf.float32) if x.dtype != tf.float32 else x


def scaled(loss: tf.Tensor, p: Precision) -> tf.Tensor:
    """The loss the gradients are taken of."""
    if p.auto is not None:
        return tf.multiply(loss, p.auto(), name="scaled_loss")
    if p.loss_scale is None:
        return loss
    return tf.multiply(loss, p.loss_scale.scale, name="scaled_loss")


def rewrite(opt, p: Precision):
    """--auto_mixed_precision: the legacy route, as a porter's code called it.

    The wrapped optimizer (v1 ``MixedPrecisionLossScaleOptimizer``) skips a
    non-finite update and moves the scale (``unscale`` divides the gradients
    by the scale ``scaled`` multiplied the loss by); the call also turns on Grappler's
    ``auto_mixed_precision`` pass for every later Session of the process,
    which rewrites float32 ops to float16 on a GPU and, finding none, leaves
    a CPU graph unchanged (docs/PRECISION.md)."""
    if p.auto is None:
        return opt
    return v1.mixed_precision.enable_mixed_precision_graph_rewrite(opt, loss_scale=p.auto)


def unscale(grads_and_vars, p: Precision):
    """(gradients divided by the scale, all of them finite?) for the
    aggregated pairs; ``(pairs, None)`` without loss scaling, or under
    --auto_mixed_precision, whose wrapped optimizer checks them itself (v1
    unscales in ``compute_gradients``, which our towers do not call)."""
    if p.loss_scale is None and p.auto is None:
        return grads_and_vars, None
    scale = p.auto() if p.auto is not None else p.loss_scale.scale.read_value()
    with tf.name_scope("loss_scale"):
        inverse = 1.0 / scale
        out, checks = [], []
        for g, v in grads_and_vars:
            if g is not None:
                with v1.colocate_with(v):
                    g = g * tf.cast(inverse, g.dtype)
                    checks.append(tf.reduce_all(tf.math.is_finite(g)))
            out.append((g, v))
        if p.auto is not None:
            return out, None
        return out, tf.reduce_all(tf.stack(checks), name="grads_finite")


def apply_or_skip(apply: Callable[[], tf.Operation], finite, p: Precision, global_step):
    """The update if every gradient is finite, else nothing; then the loss
    scale's rule and the global step (which advances either way)."""
    update = tf.cond(finite, lambda: _grouped(apply()), lambda: tf.no_op(), name="apply_if_finite")
    with tf.control_dependencies([update]):
        rule = _update_scale(p.loss_scale, finite)
    return then_step(tf.group(update, rule), global_step)


def then_step(update: tf.Operation, global_step) -> tf.Operation:
    """The global step advances after ``update``, whether it applied or skipped."""
    with tf.control_dependencies([update]), tf.device(global_step.device):
        step = global_step.assign_add(1, read_value=False)
    return tf.group(update, step, name="train_op")


def _grouped(op) -> tf.Operation:
    with tf.control_dependencies([op]):
        return tf.no_op()


def _update_scale(ls: LossScale, finite) -> tf.Operation:
    with tf.name_scope("loss_scale"), tf.device(ls.scale.device):
        skipped = ls.skipped.assign_add(tf.cast(tf.logical_not(finite), tf.int64), read_value=False)
        if not ls.dynamic:
            return skipped
        good = ls.good_steps.read_value() + 1
        grow = tf.logical_and(finite, good >= ls.period)
        scale = ls.scale.read_value()
        new_scale = tf.where(
            finite, tf.where(grow, scale * 2.0, scale), tf.maximum(scale * 0.5, 1.0)
        )
        # v1's rule: a doubled scale that overflows float32 is not taken.
        new_scale = tf.where(tf.math.is_finite(new_scale), new_scale, scale)
        new_good = tf.where(tf.logical_and(finite, tf.logical_not(grow)), good, tf.zeros_like(good))
        return tf.group(
            skipped,
            ls.scale.assign(new_scale, read_value=False),
            ls.good_steps.assign(new_good, read_value=False),
        )


def state(p: Precision) -> Optional[Dict[str, tf.Tensor]]:
    """What TensorBoard and run_summary.json show of the loss scale."""
    if p.auto is not None:
        with tf.name_scope("auto_mixed_precision"):
            return {"loss_scale": tf.identity(p.auto())}
    if p.loss_scale is None:
        return None
    ls = p.loss_scale
    return {"loss_scale": ls.scale.read_value(), "skipped_steps": ls.skipped.read_value()}


def describe(p: Precision) -> str:
    """The start-up line."""
    if not p.mixed:
        return "precision: fp32"
    ls = p.loss_scale
    scaling = "no loss scaling (float32's exponent range)"
    if ls is not None:
        scaling = (
            f"dynamic loss scale from {INITIAL_SCALE:g} or the checkpoint's (halve on "
            f"overflow, double after {ls.period} good steps)"
            if ls.dynamic
            else "a fixed loss scale"
        )
    return (
        f"precision: {p.name}: float32 variables, towers compute in {p.compute.name} "
        f"(batch norm statistics, softmax and loss in float32); {scaling}"
    )
