"""NCCL's collectives between the towers ``--gpus_as_cpus`` puts on CPUs.

Replicated multi-GPU TF1 programs keep a copy of every variable on each GPU
and sum the towers' gradients with NCCL: ``nccl_ops.all_sum`` (NVIDIA's
StyleGAN and Progressive GAN ``tflib``, tensorpack's replicated trainer,
tf_cnn_benchmarks' ``--all_reduce_spec=nccl``). NCCL has GPU kernels only, so
once ``/gpu:i`` runs on ``/cpu:i`` the first step fails with "No OpKernel was
registered to support Op 'NcclAllReduce'" (tensorpack's trainer, which
allows soft placement, never finished its first step). Under
``--gpus_as_cpus`` the functions of ``tensorflow.python.ops.nccl_ops`` build
the same collectives from ordinary ops when every tensor is on a CPU:

- ``all_sum`` / ``all_prod`` / ``all_min`` / ``all_max``: the reduction once,
  on the first tensor's device, and a copy on each tensor's device, so every
  replica gets the same value, as every GPU does from NCCL (for two towers
  ``a + b``, NCCL's sum too). The sum's gradient is the sum of the copies'
  gradients on each input, what NCCL's registered gradient computes.
- ``reduce_sum``: the sum on the current device, which must be one of the
  tensors' (NCCL's rule and error); ``broadcast``: the tensor itself, read
  by the other devices.

Tensors on a GPU, or without a device, go to NCCL as before (and its
errors). What is checked is the program's replication and averaging, not
NCCL's speed or its summation order for more than two GPUs.
"""

from typing import Callable, List

REDUCTIONS = ("sum", "prod", "min", "max")


def install(saved: List[tuple]) -> None:
    """Each function of ``nccl_ops`` with its CPU route, the original
    recorded in ``saved`` as (module, name, original) for uninstall."""
    from tensorflow.python.ops import nccl_ops

    for reduction in REDUCTIONS:
        _replace(nccl_ops, f"all_{reduction}", saved, lambda f, r=reduction: _all(f, r))
    _replace(nccl_ops, "reduce_sum", saved, _reduce_sum)
    _replace(nccl_ops, "broadcast", saved, _broadcast)


def _replace(module, name: str, saved: List[tuple], route: Callable) -> None:
    original = getattr(module, name)
    saved.append((module, name, original))
    setattr(module, name, route(original))


def _on_cpus(tensors) -> bool:
    import tensorflow as tf

    return bool(tensors) and all(
        t.device and tf.DeviceSpec.from_string(t.device).device_type == "CPU" for t in tensors
    )


def _all(original: Callable, reduction: str) -> Callable:
    def all_reduce(tensors):
        import tensorflow as tf

        tensors = list(tensors)
        if not _on_cpus(tensors):
            return original(tensors)
        with tf.name_scope(f"NcclAll{reduction.capitalize()}OnCpus"):
            with tf.device(tensors[0].device):
                if reduction == "sum":
                    total = tf.add_n(tensors)
                else:
                    total = getattr(tf, f"reduce_{reduction}")(tf.stack(tensors), axis=0)
            out = []
            for t in tensors:
                with tf.device(t.device):
                    out.append(tf.identity(total))
        return out

    all_reduce.__doc__ = original.__doc__
    return all_reduce


def _reduce_sum(original: Callable) -> Callable:
    def reduce_sum(tensors):
        import tensorflow as tf

        tensors = list(tensors)
        if not _on_cpus(tensors):
            return original(tensors)
        result = tf.add_n(tensors, name="NcclReduceOnCpus")
        if not any(t.device == result.device for t in tensors):
            raise ValueError("One input tensor must be assigned to current device")
        return result

    return reduce_sum


def _broadcast(original: Callable) -> Callable:
    def broadcast(tensor):
        import tensorflow as tf

        if not _on_cpus([tensor]):
            return original(tensor)
        with tf.device(tensor.device):
            return tf.identity(tensor, name="NcclBroadcastOnCpus")

    return broadcast
