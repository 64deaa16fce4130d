"""``nn.fused_batch_norm`` with TF 1.x's floor on epsilon.

TF 1.x's ``fused_batch_norm`` raised any epsilon below 1.001e-5 to 1.001e-5
(cuDNN's minimum), on every device, so every fused batch norm built with a
smaller one (ResNet's 1e-5: tf-slim's ``resnet_arg_scope``, the official
models' ``_BATCH_NORM_EPSILON``) normalized with 1.001e-5. TensorFlow 2 uses
the epsilon given. Where a channel's variance is near epsilon, the outputs and
gradients move (a 50-layer slim ResNet on 2x64x64 inputs with small weights:
its first layers' gradients 2.5-5% apart from TF 1.15.5's); elsewhere by
about ``1e-8 / variance``. After install() the v1 API's and TensorFlow's
private ``fused_batch_norm`` (tf-slim calls the latter) take the floor again.
"""

import functools
import inspect
import numbers

MIN_EPSILON = 1.001e-5


def with_tf1_epsilon(fused_batch_norm):
    """``fused_batch_norm``, its epsilon raised to 1.001e-5 as TF 1.x did."""
    signature = inspect.signature(fused_batch_norm)

    @functools.wraps(fused_batch_norm)
    def tf1_fused_batch_norm(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        epsilon = bound.arguments.get("epsilon", signature.parameters["epsilon"].default)
        if isinstance(epsilon, numbers.Real) and not epsilon > MIN_EPSILON:
            bound.arguments["epsilon"] = MIN_EPSILON
        return fused_batch_norm(*bound.args, **bound.kwargs)

    tf1_fused_batch_norm._tf1_train_original = fused_batch_norm
    return tf1_fused_batch_norm
