"""``horovod.tensorflow`` for one process, after install(), where Horovod is
not installed: it does not build against TensorFlow >= 2.16 (horovod#4290),
so a TF1 program that imports it (openai/glow, NVIDIA's BERT and
OpenSeq2Seq, tensorpack's trainers) stops at its first line.

One process is a configuration Horovod itself ran (``horovodrun -np 1``):
``size()`` is 1, ``rank()`` 0, an allreduce sums one tensor and divides by
one, a broadcast hands back what it was given, ``DistributedOptimizer``'s
gradients are those of the optimizer it wraps. This module does exactly
that, keeping what moves numbers even alone: ``Compression.fp16`` rounds an
allreduced tensor through float16, ``prescale_factor`` and
``postscale_factor`` multiply, ``sparse_as_dense`` turns sparse gradients
dense (Horovod 0.20 and later; 0.19 and earlier skipped it in one process).
What it cannot be, it refuses in one line: launched as several processes
(``mpirun``/``horovodrun`` set ``OMPI_COMM_WORLD_SIZE``, ``PMI_SIZE``,
``HOROVOD_SIZE``) ``init()`` raises, as each would train alone with nothing
averaged; ``backward_passes_per_step`` > 1 (gradients accumulated over
steps) raises; ``horovod.tensorflow.keras`` and ``horovod.keras`` are not
served. Several processes: tf1_train's towers on one machine, its parameter
servers or MultiWorkerMirroredStrategy on several (docs/DISTRIBUTED.md).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types

import tensorflow as tf

PACKAGES = ("horovod", "horovod.tensorflow")
SUBMODULES = ("horovod.tensorflow.mpi_ops", "horovod.tensorflow.compression")
NOTE = (
    "note: horovod is not installed (it does not build on TensorFlow >= 2.16): tf1_train.compat "
    "serves horovod.tensorflow for one process (size() 1, rank() 0: allreduce and broadcast "
    "return their input; several processes are refused)"
)
SERVED = (
    "works after tf1_train.compat.install() in one process: it serves horovod.tensorflow there, "
    "size() 1 and rank() 0, allreduce and broadcast returning their input as Horovod's did for "
    "one process (launched as several, init() raises)"
)
# what mpirun, horovodrun and Slurm's PMI set: the number of processes launched
LAUNCHER_SIZES = ("HOROVOD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE")
Average, Sum, Adasum, Min, Max, Product = range(6)  # Horovod's ReduceOp values
_state = {"initialized": False}


class Refused(RuntimeError):
    """What this one process cannot be (the runner prints it as one ``error:`` line)."""


def init(*args, **kwargs) -> None:
    """Horovod's ``init``; refuses a launch of several processes."""
    for name in LAUNCHER_SIZES:
        value = os.environ.get(name, "1")
        if value.strip() not in ("", "1"):
            raise Refused(
                f"{name}={value}: this program was launched as several processes, but "
                "tf1_train.compat serves horovod.tensorflow for one process only (each would "
                "train alone, nothing averaged); run one process, or port the training to "
                "tf1_train's towers or parameter servers (docs/DISTRIBUTED.md)"
            )
    if not _state.get("noted"):  # once per process, where the program starts Horovod
        print(NOTE, file=sys.stderr)
        _state["noted"] = True
    _state["initialized"] = True


def shutdown() -> None:
    _state["initialized"] = False


def is_initialized() -> bool:
    return _state["initialized"]


def _one(value: int = 1):
    def query() -> int:
        if not _state["initialized"]:
            raise ValueError("Horovod has not been initialized; use hvd.init().")
        return value

    return query


size = local_size = cross_size = _one(1)
rank = local_rank = cross_rank = _one(0)


def _op(query):
    return lambda name=None: tf.constant(query(), tf.int32, name=name)


size_op, local_size_op = _op(size), _op(local_size)
rank_op, local_rank_op = _op(rank), _op(local_rank)
is_homogeneous = lambda: True  # noqa: E731
mpi_threads_supported = mpi_enabled = mpi_built = lambda: False  # noqa: E731
gloo_enabled = gloo_built = nccl_built = ddl_built = ccl_built = lambda: False  # noqa: E731
cuda_built = rocm_built = lambda: False  # noqa: E731


def handle_average_backwards_compatibility(op, average):
    """Horovod's: ``average=`` (before 0.19) or ``op=``, Average by default."""
    if op is not None and average is not None:
        raise ValueError("The op parameter supersedes average. Please provide only one of them.")
    if average is not None:
        return Average if average else Sum
    return Average if op is None else op


class _NoneCompressor:
    @staticmethod
    def compress(tensor):
        return tensor, None

    @staticmethod
    def decompress(tensor, ctx):
        return tensor


class _FP16Compressor:
    """Floating tensors go through float16 (and lose what float16 loses)."""

    @staticmethod
    def compress(tensor):
        dtype = tensor.dtype
        if dtype.is_floating:
            tensor = tf.cast(tensor, tf.float16)
        return tensor, dtype

    @staticmethod
    def decompress(tensor, ctx):
        return tf.cast(tensor, ctx) if ctx.is_floating else tensor


class Compression:
    none = _NoneCompressor
    fp16 = _FP16Compressor


def _allreduce(tensor, name=None, op=Sum, prescale_factor=1.0, postscale_factor=1.0, **_):
    """The sum over one process, with Horovod's scale factors."""
    _one()()
    out = tf.identity(tensor, name=name)
    for factor in (prescale_factor, postscale_factor):
        if factor != 1.0:
            out = out * tf.cast(factor, out.dtype)
    return out


def allreduce(tensor, average=None, device_dense="", device_sparse="",
              compression=Compression.none, op=None, prescale_factor=1.0,
              postscale_factor=1.0, name=None, **_):  # fmt: skip
    """Horovod's allreduce in one process: a sparse tensor as it is, a dense
    one through ``compression`` (Average divides by the size, 1)."""
    op = handle_average_backwards_compatibility(op, average)
    if isinstance(tensor, tf.IndexedSlices):
        return tf.IndexedSlices(tf.identity(tensor.values), tf.identity(tensor.indices),
                                dense_shape=tensor.dense_shape)  # fmt: skip
    with tf.device(device_dense):
        compressed, ctx = compression.compress(tensor)
        summed = compression.decompress(
            _allreduce(compressed, name, Sum, prescale_factor, postscale_factor), ctx
        )
        return summed / tf.cast(size(), summed.dtype) if op == Average else summed


def grouped_allreduce(tensors, *args, **kwargs):
    return [allreduce(t, *args, **kwargs) for t in tensors]


def allgather(tensor, name=None, **_):
    _one()()
    return tf.identity(tensor, name=name)


def _root(root_rank) -> None:
    _one()()
    if root_rank != 0:
        raise ValueError(f"broadcast: root_rank {root_rank} is not a rank of one process (0)")


def broadcast(tensor, root_rank, name=None, **_):
    _root(root_rank)
    return tf.identity(tensor, name=name)


def alltoall(tensor, splits=None, name=None, **_):
    return allgather(tensor, name)


def join(*_) -> int:
    _one()()
    return 0


def broadcast_variables(variables, root_rank, **_):
    """Each variable assigned its broadcast value (its own, in one process)."""
    assigns = [v.assign(broadcast(v, root_rank)) for v in variables]
    return None if tf.executing_eagerly() else tf.group(*assigns)


def broadcast_global_variables(root_rank):
    if tf.executing_eagerly():
        raise RuntimeError(
            "hvd.broadcast_global_variables() does not support eager execution. "
            "Please use `hvd.broadcast_variables(<model/optimizer variables>)` instead."
        )
    return broadcast_variables(tf.compat.v1.global_variables(), root_rank)


def broadcast_object(obj, root_rank=0, **_):
    _root(root_rank)  # no op built: the program's graph may be finalized
    return obj


def allgather_object(obj, **_):
    _one()()
    return [obj]


class BroadcastGlobalVariablesHook(tf.compat.v1.train.SessionRunHook):
    """Runs the broadcast of every global variable once the session exists."""

    def __init__(self, root_rank, device=""):
        super().__init__()
        self.root_rank, self.device, self.bcast_op = root_rank, device, None

    def begin(self):
        if not self.bcast_op or self.bcast_op.graph != tf.compat.v1.get_default_graph():
            with tf.device(self.device):
                self.bcast_op = broadcast_global_variables(self.root_rank)

    def after_create_session(self, session, coord):
        session.run(self.bcast_op)


def _allreduced(grads, sparse_as_dense):
    if sparse_as_dense:
        grads = [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g for g in grads]
    _one()()  # Horovod's reduction in one process: the gradients unchanged
    return grads


def _accumulation_refused(backward_passes_per_step: int) -> None:
    if backward_passes_per_step != 1:
        raise Refused(
            f"backward_passes_per_step={backward_passes_per_step}: gradients accumulated over "
            "steps are not served by tf1_train.compat's one-process horovod (it would apply "
            "every step); accumulate in the program, or give 1"
        )


class _DistributedOptimizer(tf.compat.v1.train.Optimizer):
    """Wraps a v1 optimizer: its gradients, reduced over one process."""

    def __init__(self, optimizer, name=None, use_locking=False, sparse_as_dense=False):
        super().__init__(name=name or f"Distributed{type(optimizer).__name__}",
                         use_locking=use_locking)  # fmt: skip
        self._optimizer, self._sparse_as_dense = optimizer, sparse_as_dense

    def compute_gradients(self, *args, **kwargs):
        grads_and_vars = self._optimizer.compute_gradients(*args, **kwargs)
        grads = _allreduced([g for g, _ in grads_and_vars], self._sparse_as_dense)
        return list(zip(grads, [v for _, v in grads_and_vars]))

    def apply_gradients(self, *args, **kwargs):
        return self._optimizer.apply_gradients(*args, **kwargs)

    def get_slot(self, *args, **kwargs):
        return self._optimizer.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._optimizer.get_slot_names(*args, **kwargs)

    def variables(self, *args, **kwargs):
        return self._optimizer.variables(*args, **kwargs)


def DistributedOptimizer(optimizer, name=None, use_locking=False, device_dense="",
                         device_sparse="", compression=Compression.none, sparse_as_dense=False,
                         backward_passes_per_step=1, op=Average, **_):  # fmt: skip
    """A v1 optimizer wrapped; a Keras optimizer as it is (one process reduces nothing)."""
    _accumulation_refused(backward_passes_per_step)
    if not isinstance(optimizer, tf.compat.v1.train.Optimizer):
        return optimizer
    return _DistributedOptimizer(optimizer, name, use_locking, sparse_as_dense)


class _DistributedGradientTape:
    """The tape's own gradients, reduced over one process."""

    def __init__(self, tape, sparse_as_dense):
        self._tape, self._sparse_as_dense = tape, sparse_as_dense

    def gradient(self, target, sources, output_gradients=None, **kwargs):
        grads = self._tape.gradient(target, sources, output_gradients, **kwargs)
        flat = _allreduced(tf.nest.flatten(grads), self._sparse_as_dense)
        return tf.nest.pack_sequence_as(grads, flat)

    def __getattr__(self, name):
        return getattr(self._tape, name)

    def __enter__(self):
        self._tape.__enter__()
        return self

    def __exit__(self, *exc):
        return self._tape.__exit__(*exc)


def DistributedGradientTape(gradtape, device_dense="", device_sparse="",
                            compression=Compression.none, sparse_as_dense=False, op=Average,
                            backward_passes_per_step=1, **_):  # fmt: skip
    _accumulation_refused(backward_passes_per_step)
    return _DistributedGradientTape(gradtape, sparse_as_dense)


API = ("init", "shutdown", "is_initialized", "size", "local_size", "cross_size", "rank",
       "local_rank", "cross_rank", "size_op", "local_size_op", "rank_op", "local_rank_op",
       "is_homogeneous", "mpi_threads_supported", "mpi_enabled", "mpi_built", "gloo_enabled",
       "gloo_built", "nccl_built", "ddl_built", "ccl_built", "cuda_built", "rocm_built",
       "Average", "Sum", "Adasum", "Min", "Max", "Product",
       "handle_average_backwards_compatibility", "Compression", "_allreduce", "allreduce",
       "grouped_allreduce", "allgather", "broadcast", "alltoall", "join", "broadcast_variables",
       "broadcast_global_variables", "broadcast_object", "allgather_object",
       "BroadcastGlobalVariablesHook", "DistributedOptimizer",
       "DistributedGradientTape")  # fmt: skip


def _module(name: str) -> types.ModuleType:
    module = types.ModuleType(name, f"tf1_train.compat's one-process stand-in for {name}")
    if name in PACKAGES:
        module.__path__ = []  # a package: its submodules come through Finder too
    names = {"horovod": (), "horovod.tensorflow.compression": ("Compression",)}.get(name, API)
    for attribute in names:
        setattr(module, attribute, globals()[attribute])
    return module


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """First on sys.meta_path once install() ran: serves PACKAGES and
    SUBMODULES where no Horovod is installed (``init()`` prints one note on
    stderr); any other ``horovod.*`` import raises, saying what is served."""

    def __init__(self) -> None:
        self.loaded: list = []  # the names served (uninstall forgets them)

    def find_spec(self, name, path=None, target=None):
        if name != "horovod" and not name.startswith("horovod."):
            return None
        if name == "horovod" and importlib.machinery.PathFinder.find_spec(name) is not None:
            return None  # installed: the program gets its own Horovod
        if name != "horovod" and "horovod" not in self.loaded:
            return None
        if name not in PACKAGES + SUBMODULES:
            raise ModuleNotFoundError(
                f"No module named {name!r}: horovod is not installed, and tf1_train.compat "
                f"serves {', '.join(PACKAGES[1:] + SUBMODULES)} only (one process)",
                name=name,
            )
        self.loaded.append(name)
        return importlib.util.spec_from_loader(name, self, is_package=name in PACKAGES)

    def create_module(self, spec):
        return _module(spec.name)

    def exec_module(self, module) -> None:
        pass


def served(path: str) -> bool:
    """Whether the ``horovod.*`` path (a module, a name in one, an attribute of
    that: ``hvd.Compression.fp16``) works after install()."""
    if path in PACKAGES + SUBMODULES:
        return True
    for module in sorted(PACKAGES[1:] + SUBMODULES, key=len, reverse=True):
        if path.startswith(module + "."):
            name = path[len(module) + 1 :].split(".")[0]
            return name in (("Compression",) if module == SUBMODULES[1] else API)
    return False
