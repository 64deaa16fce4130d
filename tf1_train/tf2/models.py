"""The TF1 models as tf.Modules with the same variable names and shapes."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import tensorflow as tf

from tf1_train import kernels, model_casts, models
from tf1_train.errors import UserError
from tf1_train.models import calls, outputs
from tf1_train.tf2 import layers


class Model(tf.Module):
    """Base: a ``Params`` store and ``__call__(images, training, stats) -> logits``.

    ``stats``, when given in training, receives each batch-norm layer's batch
    statistics by moving-variable name (models without batch norm ignore it).
    """

    # A user twin that returns (logits, end_points): their specs, for --loss.
    end_points_spec: Optional[Dict[str, tf.TensorSpec]] = None

    def __init__(self, name: str):
        super().__init__(name=name)
        self.params = layers.Params()

    @property
    def by_name(self) -> Dict[str, tf.Variable]:
        """Every variable by TF1 checkpoint name (trainable and moving stats)."""
        return self.params.by_name

    @property
    def trainable_by_name(self) -> Dict[str, tf.Variable]:
        return {n: v for n, v in self.by_name.items() if v.trainable}

    def extra_losses(self) -> List[tf.Tensor]:
        """Loss terms of the model's own (the built-in models have none)."""
        return []

    @property
    def takes_labels(self) -> bool:
        """Its ``__call__`` has a ``labels`` parameter: the step gives it the
        replica's labels, as the TF1 towers give theirs (models/calls.py)."""
        return calls.takes_labels(type(self).__call__)

    @property
    def moving_by_name(self) -> Dict[str, tf.Variable]:
        """Batch-norm moving statistics, in creation order."""
        return {n: v for n, v in self.by_name.items() if not v.trainable}

    @property
    def moving_decays(self) -> List[float]:
        """Each moving statistic's decay (``moving_by_name``'s order): its
        BatchNorm's, tf1_train's 0.9 for one made without layers.py."""
        found = self.params.batch_norm
        return [found.get(n, (layers.BN_DECAY, 0.0))[0] for n in self.moving_by_name]


class MLP(Model):
    def __init__(self, image_shape: Tuple[int, int, int], num_classes: int):
        super().__init__("mlp")
        p, in_dim = self.params, int(tf.TensorShape(image_shape).num_elements())
        self.fc1 = layers.Dense(p, "fc1", in_dim, 256, tf.nn.relu)
        self.fc2 = layers.Dense(p, "fc2", 256, 128, tf.nn.relu)
        self.logits = layers.Dense(p, "logits", 128, num_classes)

    def __call__(self, images: tf.Tensor, training: bool, stats=None) -> tf.Tensor:
        del training, stats
        return self.logits(self.fc2(self.fc1(layers.flatten(images))))


class LeNet5(Model):
    def __init__(self, image_shape: Tuple[int, int, int], num_classes: int):
        super().__init__("lenet5")
        p = self.params
        h, w, c = image_shape
        self.conv1 = layers.Conv2D(p, "conv1", c, 6, 5)
        self.conv2 = layers.Conv2D(p, "conv2", 6, 16, 5)
        flat = _pooled(_pooled(h)) * _pooled(_pooled(w)) * 16
        self.fc3 = layers.Dense(p, "fc3", flat, 120, tf.nn.relu)
        self.fc4 = layers.Dense(p, "fc4", 120, 84, tf.nn.relu)
        self.logits = layers.Dense(p, "logits", 84, num_classes)

    def __call__(self, images: tf.Tensor, training: bool, stats=None) -> tf.Tensor:
        del training, stats
        x = layers.max_pool(tf.nn.relu(self.conv1(images)))
        x = layers.max_pool(tf.nn.relu(self.conv2(x)))
        x = self.fc4(self.fc3(layers.flatten(x)))
        return self.logits(x)


def _pooled(n: int) -> int:
    """Size after a 2x2, stride-2 SAME pool."""
    return (n + 1) // 2


class ConvBN:
    """conv (no bias, He-normal) then batch norm, scopes ``<name>/conv``, ``<name>/bn``."""

    def __init__(self, p, name, in_channels, filters, kernel, stride):
        self.conv = layers.Conv2D(
            p, f"{name}/conv", in_channels, filters, kernel, stride, False, layers.he_normal
        )
        self.bn = layers.BatchNorm(p, f"{name}/bn", filters)

    def __call__(self, x, training, stats):
        return self.bn(self.conv(x), training, stats)


class Block:
    """The basic block of tf1_train/models/resnet.py, projection shortcut included."""

    def __init__(self, p, name, in_channels, filters, stride):
        self.projection = None
        if stride != 1 or in_channels != filters:
            self.projection = ConvBN(p, f"{name}/projection", in_channels, filters, 1, stride)
        self.a = ConvBN(p, f"{name}/a", in_channels, filters, 3, stride)
        self.b = ConvBN(p, f"{name}/b", filters, filters, 3, 1)

    def __call__(self, x, training, stats):
        shortcut = x if self.projection is None else self.projection(x, training, stats)
        y = tf.nn.relu(self.a(x, training, stats))
        return tf.nn.relu(self.b(y, training, stats) + shortcut)


class ResNet(Model):
    """He et al. 2016's CIFAR ResNet with 6n+2 layers (see models/resnet.py)."""

    def __init__(self, n: int, image_shape: Tuple[int, int, int], num_classes: int, name: str):
        super().__init__(name)
        p = self.params
        self.init = ConvBN(p, "init", image_shape[-1], 16, 3, 1)
        self.blocks, channels = [], 16
        for stage, filters in enumerate((16, 32, 64)):
            for block in range(n):
                stride = 2 if stage > 0 and block == 0 else 1
                name_ = f"stage{stage + 1}/block{block + 1}"
                self.blocks.append(Block(p, name_, channels, filters, stride))
                channels = filters
        self.logits = layers.Dense(p, "logits", 64, num_classes, kernel_init=layers.he_normal)

    def __call__(self, images: tf.Tensor, training: bool, stats: Optional[Dict] = None):
        x = tf.nn.relu(self.init(tf.convert_to_tensor(images), training, stats))
        for block in self.blocks:
            x = block(x, training, stats)
        return self.logits(tf.reduce_mean(x, axis=[1, 2]))


def resnet20(image_shape: Tuple[int, int, int], num_classes: int) -> ResNet:
    return ResNet(3, image_shape, num_classes, "resnet20")


def resnet32(image_shape: Tuple[int, int, int], num_classes: int) -> ResNet:
    return ResNet(5, image_shape, num_classes, "resnet32")


def resnet56(image_shape: Tuple[int, int, int], num_classes: int) -> ResNet:
    return ResNet(9, image_shape, num_classes, "resnet56")


class UserTwin(Model):
    """A user's TF2 twin (``--tf2_model``): any ``tf.Module`` whose variables
    carry their TF1 checkpoint names, called as ``module(images, training)``.

    Its optional ``extra_losses()`` returns the terms the TF1 model adds to
    REGULARIZATION_LOSSES and the ``losses`` collection. Batch-norm moving
    statistics need tf1_train's cross-replica update, so a twin with
    non-trainable variables must subclass ``Model`` with tf1_train/tf2/layers.py.
    """

    def __init__(self, module: tf.Module, ref: str):
        super().__init__("user_twin")
        self.module = module
        for var in module.variables:
            self.params.by_name[var.name.split(":")[0]] = var
        frozen = [n for n, v in self.params.by_name.items() if not v.trainable]
        if frozen:
            raise UserError(
                f"--tf2_model={ref}: has non-trainable variables ({', '.join(frozen[:3])}); "
                "a twin with batch norm must subclass tf1_train.tf2.models.Model "
                "and use tf1_train/tf2/layers.py"
            )

    @property
    def takes_labels(self) -> bool:
        return calls.twin_takes_labels(self.module)

    def __call__(self, images: tf.Tensor, training: bool, stats=None, labels=None):
        del stats
        if self.takes_labels:
            return self.module(images, training=training, labels=labels)
        return self.module(images, training=training)

    def extra_losses(self):
        fn = getattr(self.module, "extra_losses", None)
        return list(fn()) if fn is not None else []


def build(
    name: str,
    image_shape: Tuple[int, int, int],
    num_classes: int,
    tf2_model: str = "",
    compute: tf.DType = tf.float32,
) -> Model:
    """Creates the TF2 twin of model ``name`` (tf1_train.models' registry),
    or the user's ``--tf2_model``, which is given images of type ``compute``
    (--precision); call inside ``strategy.scope()`` to mirror it."""
    check_twin(name, tf2_model)
    if tf2_model:
        factory = models.resolve(tf2_model, "tf2_model")
        try:
            module = factory(tuple(image_shape), num_classes)
        except Exception as e:
            raise UserError(f"--tf2_model={tf2_model}: {models.describe_failure(e)}") from None
        twin = UserTwin(module, tf2_model)
        _probe_twin(twin, tf2_model, name, tuple(image_shape), num_classes, compute)
        return twin
    return models.resolve(models.lookup(name).tf2, "model")(tuple(image_shape), num_classes)


def _probe_twin(
    twin: UserTwin, ref: str, name: str, image_shape, num_classes: int, compute: tf.DType
) -> None:
    """Before anything is written: the twin is called as the step will call
    it (on ``compute`` images) and returns usable logits, computes in that
    type with kernels for it, and its variables carry the TF1 model's names
    and shapes (so a checkpoint of either path restores into the other)."""
    what = f"--tf2_model={ref}"
    traced = _trace(twin, what, [2, *image_shape], compute)
    ops = traced.graph.get_operations()
    model_casts.check_twin(ops, what, compute)
    kernels.check(ops, compute, what, _replica_device_type())
    out = traced.structured_outputs
    logits = outputs.logits_of(out)
    if outputs.is_pair(out):  # what --loss will be given (tf2/train.py probes it)
        twin.end_points_spec = {k: tf.TensorSpec.from_tensor(v) for k, v in out[1].items()}
    if not isinstance(logits, tf.Tensor):
        raise UserError(f"{what}: returned a {type(logits).__name__}, not a tensor")
    models.check_logits_shape(logits, num_classes, what)
    tf1 = _tf1_trainable_shapes(name, image_shape, num_classes)
    tf2 = {n: v.shape.as_list() for n, v in twin.by_name.items()}
    missing = sorted(set(tf1) - set(tf2))
    extra = sorted(set(tf2) - set(tf1))
    shapes = sorted(n for n in set(tf1) & set(tf2) if tf1[n] != tf2[n])
    if missing or extra or shapes:
        found = [f"TF1's {n} {tf1[n]} is missing" for n in missing[:2]]
        found += [f"its {n} {tf2[n]} is not in TF1" for n in extra[:2]]
        found += [f"{n} is {tf2[n]}, TF1's {tf1[n]}" for n in shapes[:2]]
        raise UserError(
            f"{what}: its variables are not --model={name}'s: {'; '.join(found)} "
            "(name each tf.Variable with its TF1 checkpoint name and shape)"
        )


def _trace(twin: UserTwin, what: str, shape, compute: tf.DType):
    """The twin's training call traced on ``compute`` images; a twin that
    traces on float32 ones only is told how a twin takes a precision."""

    def trace(dtype):
        fn = tf.function(lambda x, y: twin(x, training=True, labels=y), autograph=False)
        return fn.get_concrete_function(
            tf.TensorSpec(shape, dtype), tf.TensorSpec(shape[:1], tf.int32)
        )

    try:
        return trace(compute)
    except UserError:
        raise
    except Exception as e:
        failure = models.describe_failure(e)
    if compute != tf.float32:
        try:
            trace(tf.float32)
        except Exception:
            pass
        else:
            raise UserError(model_casts.twin_type_failure(what, compute, failure))
    raise UserError(f"{what}: {failure}")


def _replica_device_type() -> str:
    """Where the twin's ops will run: the strategy's first device's type."""
    try:
        devices = tf.distribute.get_strategy().extended.worker_devices
    except RuntimeError:  # no strategy's scope: the default one has no devices
        return "CPU"
    return tf.DeviceSpec.from_string(devices[0]).device_type or "CPU"


def _tf1_trainable_shapes(name: str, image_shape, num_classes: int) -> Dict[str, list]:
    """The TF1 model's trainable variables by checkpoint name, from a scratch graph."""
    with tf.Graph().as_default():
        tf.random.set_seed(0)  # under --deterministic, unseeded initializers need a graph seed
        images = tf.zeros([1, *image_shape])
        model_fn = models.checked(models.get_model(name), name)
        calls.call_model(model_fn, images, True, num_classes, tf.zeros([1], tf.int32))
        return {v.op.name: v.shape.as_list() for v in tf.compat.v1.trainable_variables()}


def check_twin(name: str, tf2_model: str) -> None:
    """One line when model ``name`` has no TF2 twin on this path."""
    if not tf2_model and models.lookup(name).tf2 is None:
        raise UserError(
            f"--model={name}: the TF2 path needs its TF2 twin: give "
            "--tf2_model=package.module:Class (a tf.Module called as module(images, training), "
            "variables named as in TF1), or register it with tf1_train.models.register(tf2=...)"
        )
