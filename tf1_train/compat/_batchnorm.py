"""Batch normalization as the legacy layer computed it in a v1 graph.

What matters for old programs and their checkpoints: variables ``gamma``,
``beta``, ``moving_mean``, ``moving_variance`` (the last two not trainable,
ON_READ/MEAN); ``training`` a Python bool or a bool tensor (default False);
``fused=None`` or ``True`` means fused for 4-D inputs with axis 1 or 3, and
never for 5-D ones, as TF 1.x's v1 layer did (tf_keras fuses 5-D; the fused kernel
updates the moving variance with the Bessel-corrected batch variance, the
unfused path with the biased one); the moving averages are
``moving -= (moving - batch) * (1 - momentum)`` ops named
``<layer>/AssignMovingAvg`` that go into ``UPDATE_OPS`` (unless the layer is
not trainable), so ``with tf.control_dependencies(update_ops)`` works. A
non-trainable layer still normalizes with batch statistics when ``training``
is true, as the v1 layer did.

``renorm=True`` (batch renormalization) adds ``moving_stddev``,
``renorm_mean`` and ``renorm_stddev``, always computes unfused, and keeps
``moving_variance`` as ``relu(moving_stddev ** 2 - epsilon)``, as TF 1.15 and
tf_keras do. ``virtual_batch_size`` reshapes the batch to
``[virtual_batch_size, -1, ...]`` as the v1 layer did in a graph (each ghost
batch takes every ``batch / virtual_batch_size``-th example), and
``adjustment`` scales and shifts the normalized values in training only.
"""

import functools

import tensorflow as tf

from tf1_train.compat import _renorm
from tf1_train.compat._base import ONES, STATISTIC, ZEROS, Layer, constant_value, smart_cond
from tf1_train.models.layers import record_moving_stat
from tf1_train.tower_updates import NOT_AVERAGES

v1 = tf.compat.v1


class BatchNormalization(Layer):
    """The v1 ``tf.layers.BatchNormalization``."""

    base_name = "batch_normalization"

    def __init__(
        self,
        axis=-1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer=ZEROS,
        gamma_initializer=ONES,
        moving_mean_initializer=ZEROS,
        moving_variance_initializer=ONES,
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        renorm: bool = False,
        renorm_clipping=None,
        renorm_momentum: float = 0.99,
        fused=None,
        trainable: bool = True,
        virtual_batch_size=None,
        adjustment=None,
        name=None,
        **kwargs,
    ):
        super().__init__(trainable, name, **kwargs)
        self.renorm = renorm
        if renorm:
            self.renorm_clipping = dict(renorm_clipping or {})
            if set(self.renorm_clipping) - {"rmax", "rmin", "dmax"}:
                raise ValueError(
                    f"renorm_clipping {renorm_clipping} contains keys not in "
                    "['rmax', 'rmin', 'dmax']"
                )
            self.renorm_momentum = renorm_momentum
        self.virtual_batch_size = virtual_batch_size
        self.adjustment = adjustment
        self.axis = axis
        self.momentum = momentum
        self.epsilon = epsilon
        self.center, self.scale = center, scale
        self.initializers = (
            gamma_initializer,
            beta_initializer,
            moving_mean_initializer,
            moving_variance_initializer,
        )
        self.regularizers = (gamma_regularizer, beta_regularizer)
        self.constraints = (gamma_constraint, beta_constraint)
        self.fused = True if fused is None else fused

    def _axes(self, rank: int) -> list:
        axes = [self.axis] if isinstance(self.axis, int) else list(self.axis)
        axes = [a + rank if a < 0 else a for a in axes]
        if any(a < 0 or a >= rank for a in axes) or len(set(axes)) != len(axes):
            raise ValueError(f"invalid axis {self.axis} for inputs of rank {rank}")
        return axes

    def build(self, input_shape: tf.TensorShape) -> None:
        input_shape = tf.TensorShape(input_shape)  # a list, from a wrapper's build
        rank = input_shape.rank
        self.axis = self._axes(rank)
        self._check_virtual_batches()
        fusable = len(self.axis) == 1 and self.dtype in (tf.float16, tf.bfloat16, tf.float32)
        fusable = fusable and not self.renorm and self.virtual_batch_size is None
        fusable = fusable and self.adjustment is None
        fused_axes = {4: (1, 3)}.get(rank, ())  # TF 1.x: 4-D only (tf_keras: 5-D too)
        self.fused = bool(self.fused) and fusable and self.axis[0] in fused_axes
        self._data_format = "NCHW" if self.axis == [1] else "NHWC"
        dims = {a: tf.compat.dimension_value(input_shape[a]) for a in self.axis}
        if None in dims.values():
            raise ValueError(
                f"batch_normalization needs known sizes on axis {self.axis}, got {input_shape}"
            )
        if len(dims) == 1 and self.virtual_batch_size is None:
            shape = list(dims.values())
        else:
            shape = [dims.get(i, 1) for i in range(rank)]
            if self.virtual_batch_size is not None:  # the ghost batches' own axis
                shape.insert(1, 1)
                self.axis = [a + 1 for a in self.axis]
        param_dtype = tf.float32 if self.dtype in (tf.float16, tf.bfloat16) else self.dtype
        g_init, b_init, m_init, v_init = self.initializers
        # Without scale or center the fused op takes constants, built here as
        # TF 1.x's layer did: between the weights (graph-seeded programs' later
        # op seeds count them, --v1_seeds).
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight(
                "gamma", shape, g_init, self.regularizers[0], True, self.constraints[0], param_dtype
            )
        elif self.fused:
            self._gamma_const = tf.constant(1.0, param_dtype, shape)
        if self.center:
            self.beta = self.add_weight(
                "beta", shape, b_init, self.regularizers[1], True, self.constraints[1], param_dtype
            )
        elif self.fused:
            self._beta_const = tf.constant(0.0, param_dtype, shape)
        # The statistics are never partitioned (TF 1.x's layer set its scope's
        # partitioner aside for them): a canned Estimator's `dnn` scope has one.
        self._param_dtype = param_dtype
        self._param_shape = shape
        scope = v1.get_variable_scope()
        partitioner = scope.partitioner
        scope.set_partitioner(None)
        try:
            self.moving_mean = self.add_weight(
                "moving_mean", shape, m_init, dtype=param_dtype, **STATISTIC
            )
            self.moving_variance = self.add_weight(
                "moving_variance", shape, v_init, dtype=param_dtype, **STATISTIC
            )
            if self.renorm:
                _renorm.build(self, shape, m_init, v_init)
        finally:
            scope.set_partitioner(partitioner)

    def _check_virtual_batches(self) -> None:
        if self.virtual_batch_size is None:
            return
        if self.virtual_batch_size <= 0:
            raise ValueError(
                "virtual_batch_size must be a positive integer that divides the true "
                "batch size of the input Tensor"
            )
        if 0 in self.axis:
            raise ValueError(
                "When using virtual_batch_size, the batch dimension must be 0 and thus "
                "axis cannot include 0"
            )
        if self.adjustment is not None:
            raise ValueError("When using virtual_batch_size, adjustment cannot be specified")

    def _recorded(self, mean, variance) -> bool:
        """Inside tf1_train's towers a trainable layer in training records its
        batch statistics for the mean-over-towers update (models/layers.py)
        instead of assigning them: True if it did."""
        if not self.trainable:  # its updates are left out, as in v1
            return False
        if not record_moving_stat(self.moving_mean, mean, self.momentum):
            return False
        record_moving_stat(self.moving_variance, variance, self.momentum)
        return True

    def _assign_moving_average(self, variable, value, momentum):
        with tf.name_scope("AssignMovingAvg") as scope:
            with v1.colocate_with(variable):
                decay = tf.convert_to_tensor(1.0 - momentum, name="decay")
                if decay.dtype != variable.dtype.base_dtype:
                    decay = tf.cast(decay, variable.dtype.base_dtype)
                delta = (variable - tf.cast(value, variable.dtype)) * decay
                return v1.assign_sub(variable, delta, name=scope)

    def call(self, inputs, training=False):
        if training is None:
            training = False
        if self.fused:
            return self._fused(inputs, training)
        return self._unfused(inputs, training)

    def _fused(self, inputs, training):
        gamma = self._gamma_const if self.gamma is None else self.gamma
        beta = self._beta_const if self.beta is None else self.beta

        def run(is_training):
            # training: no statistics given, as TF 1.x's layer called it (the
            # two empty constants it then built are counted by graph-seeded
            # programs' later op seeds, --v1_seeds)
            return v1.nn.fused_batch_norm(
                inputs,
                gamma,
                beta,
                mean=None if is_training else self.moving_mean,
                variance=None if is_training else self.moving_variance,
                epsilon=self.epsilon,
                is_training=is_training,
                data_format=self._data_format,
            )

        output, mean, variance = smart_cond(training, lambda: run(True), lambda: run(False))
        known = constant_value(training)
        if known and self._recorded(mean, variance):
            return output
        if known is None:
            momentum = smart_cond(training, lambda: self.momentum, lambda: 1.0)
        else:  # built in inference too, unused, as TF 1.x's layer did (--v1_seeds)
            momentum = tf.convert_to_tensor(self.momentum)
        if known or known is None:
            self.add_update(self._assign_moving_average(self.moving_mean, mean, momentum))
            self.add_update(self._assign_moving_average(self.moving_variance, variance, momentum))
        return output

    def _unfused(self, inputs, training):
        in_dtype = inputs.dtype.base_dtype
        if in_dtype in (tf.float16, tf.bfloat16):
            inputs = tf.cast(inputs, tf.float32)
        original = None
        if self.virtual_batch_size is not None:
            # [-1, ...] -> [virtual_batch_size, -1, ...], as the v1 layer did in a graph.
            original = tf.concat([[-1], tf.shape(inputs)[1:]], 0)
            inputs = tf.reshape(
                inputs, tf.concat([[self.virtual_batch_size, -1], tf.shape(inputs)[1:]], 0)
            )
        shape = inputs.shape
        ndims = shape.rank
        reduction = [i for i in range(ndims) if i not in self.axis]
        if original is not None:
            del reduction[1]  # each ghost batch has its own statistics
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = tf.compat.dimension_value(shape[self.axis[0]])

        def broadcast(v):
            if v is not None and len(v.shape) != ndims and reduction != list(range(ndims - 1)):
                return tf.reshape(v, broadcast_shape)
            return v

        scale, offset = broadcast(self.gamma), broadcast(self.beta)
        if constant_value(training) is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            if self.adjustment:
                adj_scale, adj_bias = self.adjustment(tf.shape(inputs))
                adj_scale = smart_cond(training, lambda: adj_scale, lambda: tf.ones_like(adj_scale))
                adj_bias = smart_cond(training, lambda: adj_bias, lambda: tf.zeros_like(adj_bias))
                scale, offset = _renorm.compose(adj_scale, adj_bias, scale, offset)
            keepdims = original is not None or len(self.axis) > 1
            batch_mean, batch_var = self._moments(
                tf.cast(inputs, self._param_dtype), reduction, keep_dims=keepdims
            )
            mean = smart_cond(
                training, lambda: batch_mean, lambda: tf.convert_to_tensor(self.moving_mean)
            )
            variance = smart_cond(
                training, lambda: batch_var, lambda: tf.convert_to_tensor(self.moving_variance)
            )
            new_mean, new_variance = mean, variance
            if original is not None:  # one update from the ghost batches' mean
                new_mean = tf.reduce_mean(mean, axis=1, keepdims=True)
                new_variance = tf.reduce_mean(variance, axis=1, keepdims=True)
            if self.renorm:
                r, d, new_mean, new_variance = _renorm.correction(
                    self, new_mean, new_variance, training
                )
                r = broadcast(tf.stop_gradient(r, name="renorm_r"))
                d = broadcast(tf.stop_gradient(d, name="renorm_d"))
                scale, offset = _renorm.compose(r, d, scale, offset)
            self._add_unfused_updates(training, new_mean, new_variance)
        mean = tf.cast(mean, inputs.dtype)
        variance = tf.cast(variance, inputs.dtype)
        offset = tf.cast(offset, inputs.dtype) if offset is not None else None
        scale = tf.cast(scale, inputs.dtype) if scale is not None else None
        outputs = tf.nn.batch_normalization(
            inputs, broadcast(mean), broadcast(variance), offset, scale, self.epsilon
        )
        outputs.set_shape(shape)
        if original is not None:
            outputs = tf.reshape(outputs, original)
        if in_dtype in (tf.float16, tf.bfloat16):
            outputs = tf.cast(outputs, in_dtype)
        return outputs

    def _moments(self, inputs, reduction_axes, keep_dims, mask=None):
        """The batch statistics of the unfused path, a hook TF 1.x's layer had:
        TPU code overrides it for cross-replica batch norm (SimCLR's and
        tensorflow/tpu's ``TpuBatchNormalization``, which call it back with
        ``mask=None``, tf_keras's signature). The fused path never calls it, on
        TF 1.x either."""
        if mask is not None:
            raise NotImplementedError(
                "tf.layers.BatchNormalization._moments: a mask weighs examples in Keras' "
                "layer only; TF 1.x's legacy layer computed unmasked statistics"
            )
        return tf.nn.moments(inputs, reduction_axes, keepdims=keep_dims)

    def _add_unfused_updates(self, training, new_mean, new_variance) -> None:
        """The moving averages' updates (recorded instead inside tf1_train's
        towers, except with renorm: its variance is not a moving average)."""
        if constant_value(training) and not self.renorm:
            if self._recorded(new_mean, new_variance):
                return

        def update(variable, value):
            return lambda: self._assign_moving_average(variable, value, self.momentum)

        variance_update = update(self.moving_variance, new_variance)
        if self.renorm:
            variance_update = functools.partial(_renorm.variance_update, self, new_variance)
        for true_fn, variable in (
            (update(self.moving_mean, new_mean), self.moving_mean),
            (variance_update, self.moving_variance),
        ):
            self.add_update(smart_cond(training, true_fn, lambda v=variable: v))
            if self.renorm:  # tower_updates.py: the towers' line says why
                v1.add_to_collection(NOT_AVERAGES, self.updates[-1])


def batch_normalization(
    inputs,
    axis=-1,
    momentum=0.99,
    epsilon=1e-3,
    center=True,
    scale=True,
    beta_initializer=ZEROS,
    gamma_initializer=ONES,
    moving_mean_initializer=ZEROS,
    moving_variance_initializer=ONES,
    beta_regularizer=None,
    gamma_regularizer=None,
    beta_constraint=None,
    gamma_constraint=None,
    training=False,
    trainable=True,
    name=None,
    reuse=None,
    renorm=False,
    renorm_clipping=None,
    renorm_momentum=0.99,
    fused=None,
    virtual_batch_size=None,
    adjustment=None,
):
    """``tf.compat.v1.layers.batch_normalization``; run ``UPDATE_OPS`` with the train op."""
    layer = BatchNormalization(
        axis=axis,
        momentum=momentum,
        epsilon=epsilon,
        center=center,
        scale=scale,
        beta_initializer=beta_initializer,
        gamma_initializer=gamma_initializer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
        beta_regularizer=beta_regularizer,
        gamma_regularizer=gamma_regularizer,
        beta_constraint=beta_constraint,
        gamma_constraint=gamma_constraint,
        renorm=renorm,
        renorm_clipping=renorm_clipping,
        renorm_momentum=renorm_momentum,
        fused=fused,
        trainable=trainable,
        virtual_batch_size=virtual_batch_size,
        adjustment=adjustment,
        name=name,
        _reuse=reuse,
        _scope=name,
    )
    return layer(inputs, training=training)
