"""Importable ``tensorflow.contrib.quantize``, ``.training``, ``.rnn``, ``.legacy_seq2seq``,
``.seq2seq``, ``.crf``, ``.distributions``, ``.data``, ``.learn`` (TF 1.15's names:
_contrib_data.py), ``.eager`` (_contrib_eager.py), ``.tpu`` and ``.cluster_resolver``
(_contrib_tpu.py), ``.estimator`` (_contrib_estimator.py), whose every name raises on use,
except the core TensorFlow objects ``.rnn`` re-exported (and a few ``.rnn`` names rebuilt on
TensorFlow 2.21), and all of ``.legacy_seq2seq``, ``.seq2seq`` and ``.crf``, which were core
ops (_contrib_seq2seq.py, _contrib_decode.py and the modules DYNAMIC_SEQ2SEQ names,
_contrib_crf.py), ``.signal``, whose every name was already ``tf.signal``'s function in TF
1.15 (Tacotron's Griffin-Lim), ``.nn`` (_contrib_nn.py: Inception's flipped losses) and
``.opt``'s SciPy interface and Adam family (_contrib_opt.py, _contrib_opt_adam.py) and
``.memory_stats``'s two counters (_contrib_memory_stats.py), ``.lookup`` and ``.util``
(_contrib_lookup.py), ``.predictor``'s ``from_saved_model`` (_contrib_predictor.py),
``.losses`` (_contrib_losses.py) and ``.factorization``'s k-means (_contrib_factorization.py).

TF-slim's own trainer and evaluator in tensorflow/models (their last, tf_slim
+ ``tensorflow.compat.v1`` versions) import ``tensorflow.contrib.quantize`` at
the top and call it only under ``--quantize_delay``/``--quantize``; its nets
factory imports NASNet, which imports ``tensorflow.contrib.training`` for
``HParams``. ``tf.contrib`` went in TensorFlow 2.0, so such programs die at
import whatever they were asked to do. These placeholders let the import
succeed and make any use fail with one line that says what is gone; nothing
of contrib is re-implemented but the ``.rnn`` names below.

``tensorflow.contrib.rnn`` was half core: its cells ``BasicLSTMCell``,
``LSTMCell``, ``GRUCell``, ``MultiRNNCell``, ``DropoutWrapper``, ... and
``static_rnn`` were TensorFlow's own ``tf.nn.rnn_cell`` / ``tf.nn`` objects
under a second name (TF 1.15's ``tensorflow/contrib/rnn/__init__.py``), and
the TF1 RNN tutorials imported them from there. Those names are the same
objects again (the cells of tf1_train.compat.rnn_cell). The fused cells
real code bases used for speed (the PTB tutorial's ``LSTMBlockCell``,
``LSTMBlockFusedCell``, ``TimeReversedFusedRNN``, ``GRUBlockCell(V2)``) and
``LayerNormBasicLSTMCell`` are kept where TensorFlow 2.21 still computes
what they did (tf1_train/compat/_contrib_rnn.py). And two functions:
``stack_bidirectional_dynamic_rnn`` and ``stack_bidirectional_rnn`` were
layers of the core ``bidirectional_dynamic_rnn`` and
``static_bidirectional_rnn`` under ``stack_bidirectional_rnn/cell_<i>/``,
each layer fed the last one's outputs concatenated; they are built so again (_contrib_stack_rnn.py).
``AttentionCellWrapper`` was core ops around the wrapped cell: the same ops
again (tf1_train/compat/_contrib_attention.py), and so were the research
cells ``NASCell``, ``UGRNNCell``, ``IntersectionRNNCell``, ``IndRNNCell``,
``IndyGRUCell``, ``IndyLSTMCell`` (_contrib_research_cells.py). The other
contrib-only cells (``GridLSTMCell``, ``PhasedLSTMCell``, ...) raise.

``tensorflow.contrib.slim``, ``.layers`` and ``.framework`` are served by
tf-slim when it is installed (_contrib_slim.py), and missing otherwise.
Only these submodules: ``import tensorflow.contrib.X`` of any other still
raises ``ModuleNotFoundError``, so ``try: ... except ImportError:``
fallbacks keep working, and ``from tensorflow.contrib.rnn import
GridLSTMCell`` raises ``ImportError`` as before. ``.training`` keeps
``HParams`` and ``parse_values`` (_contrib_hparams.py) and its bucketing
queues (_contrib_bucket.py), ``.distributions`` the 24 of TensorFlow's own
distributions it re-exported (_contrib_distributions.py).
"""

import importlib
import types

from tf1_train.compat import (
    _contrib_data,
    _contrib_distribute,
    _contrib_distributions,
    _contrib_eager,
    _contrib_estimator,
    _contrib_factorization,
    _contrib_impl_paths,
    _contrib_lookup,
    _contrib_losses,
    _contrib_memory_stats,
    _contrib_metrics,
    _contrib_nn,
    _contrib_paths,
    _contrib_predictor,
    _contrib_tpu,
    graph_editor,
)
from tf1_train.compat._contrib_names import (  # noqa: F401 (re-exported: port/paths.py)
    CRF_KEPT,
    CUDNN_KEPT,
    DYNAMIC_SEQ2SEQ,
    HPARAMS_KEPT,
    IMAGE_GONE,
    IMAGE_KEPT,
    OPT_GONE,
    OPT_KEPT,
    RNN_CELL_NAMES,
    RNN_FROM_CORE,
    RNN_KEPT,
    SEQ2SEQ_KEPT,
    SIGNAL_KEPT,
    TRAINING_KEPT,
)

PACKAGE = "tensorflow.contrib"
PLACEHOLDERS = {
    "quantize": "quantization-aware training is in the tensorflow-model-optimization "
    "package (tfmot.quantization.keras), for Keras models",
    "training": "HParams, parse_values, bucket and bucket_by_sequence_length are kept "
    "(TF 1.15's behaviour); its other input and queue helpers (batch_sequences_with_states, "
    "stratified_sample, ...): tf.data",
    "rnn": "its core cells, static_rnn, stack_bidirectional_(dynamic_)rnn and the fused "
    "LSTMBlockCell, LSTMBlockFusedCell, GRUBlockCell(V2), TimeReversedFusedRNN, "
    "LayerNormBasicLSTMCell, AttentionCellWrapper, Embedding/Input/OutputProjectionWrapper, "
    "ConvLSTMCell (Conv1D/2D/3DLSTMCell), NASCell, UGRNNCell, IntersectionRNNCell, "
    "IndRNNCell, IndyGRUCell and IndyLSTMCell are kept; "
    "for the other contrib-only cells: tf.keras.layers cells, or a cell of your own",
    "legacy_seq2seq": "every name of TF 1.15's tensorflow.contrib.legacy_seq2seq is kept",
    "crf": "every name of TF 1.15's tensorflow.contrib.crf is kept",
    "seq2seq": "every name of TF 1.15's tensorflow.contrib.seq2seq is kept",
    "distributions": _contrib_distributions.GONE,
    "data": _contrib_data.DATA_GONE,
    "learn": _contrib_data.LEARN_GONE,
    "eager": _contrib_eager.GONE,
    "tpu": _contrib_tpu.TPU_GONE,
    "cluster_resolver": _contrib_tpu.RESOLVERS_GONE,
    "estimator": _contrib_estimator.GONE,
    "distribute": _contrib_distribute.GONE,
    "graph_editor": "every name of TF 1.15's tensorflow.contrib.graph_editor is kept",
    "staging": "StagingArea, its one name, is kept (TensorFlow's data_flow_ops.StagingArea)",
    "signal": "every name of TF 1.15's tensorflow.contrib.signal is kept (tf.signal's functions)",
    "nn": _contrib_nn.ALL_KEPT,
    "opt": OPT_GONE,
    "metrics": _contrib_metrics.GONE,
    "image": IMAGE_GONE,
    "cudnn_rnn": "CudnnCompatibleLSTMCell and CudnnCompatibleGRUCell are kept (TF 1.15's "
    "numbers and variables); the cuDNN layers raise when constructed",
    "memory_stats": "BytesInUse and MaxBytesInUse are kept (tf.config.experimental."
    "get_memory_info's counters), BytesLimit raises (TensorFlow 2.21 reports no limit)",
    "lookup": "every name of TF 1.15's tensorflow.contrib.lookup is kept (TensorFlow's lookup "
    "tables)",
    "util": "its five functions are kept (TensorFlow's tensor_util and meta_graph ones); loader "
    "is gone: tf.load_op_library",
    "predictor": "from_saved_model and Predictor are kept (a TF1 SavedModel in a session); "
    "from_estimator: estimator.export_saved_model, then from_saved_model",
    "losses": "TF 1.0's losses are kept (predictions or logits first, weights from the first "
    "dimension on); metric_learning is not: TensorFlow Addons' triplet and lifted losses",
    "factorization": _contrib_factorization.GONE,
}


def _core_rnn(name: str):
    """The core object tf.contrib.rnn re-exported as ``name``."""
    if name in ("stack_bidirectional_dynamic_rnn", "stack_bidirectional_rnn"):
        from tf1_train.compat import _contrib_stack_rnn

        return getattr(_contrib_stack_rnn, name)
    if name in RNN_KEPT:
        from tf1_train.compat import _contrib_rnn

        return _contrib_rnn.KEPT[name]
    if name.startswith("static_"):
        import tensorflow as tf

        return getattr(tf.compat.v1.nn, name)
    from tf1_train.compat import rnn_cell

    return getattr(rnn_cell, name, None) or getattr(rnn_cell._impl, name)


def _seq2seq(name: str):
    from tf1_train.compat import _contrib_seq2seq, _contrib_seq2seq_attention

    return {**_contrib_seq2seq.KEPT, **_contrib_seq2seq_attention.KEPT}[name]


def _dynamic_seq2seq(name: str):
    (module,) = [m for m, names in DYNAMIC_SEQ2SEQ.items() if name in names]
    return getattr(importlib.import_module(f"tf1_train.compat.{module}"), name)


def _crf(name: str):
    from tf1_train.compat import _contrib_crf

    return _contrib_crf.KEPT[name]


def _distributions(name: str):
    from tf1_train.compat import _contrib_distributions

    return _contrib_distributions.resolve(name)


def _private(module: str):
    return importlib.import_module(f"tensorflow.python.ops.{module}")


def _private_compat(module: str):
    return importlib.import_module(f"tf1_train.compat.{module}")


def _signal(name: str):
    import tensorflow as tf

    return getattr(tf.signal, name)


def _training(name: str):
    from tf1_train.compat import _contrib_bucket, _contrib_hparams

    return getattr(_contrib_hparams if name in HPARAMS_KEPT else _contrib_bucket, name)


# submodule: (the names it keeps, how to get one)
_KEPT = {
    "rnn": (RNN_FROM_CORE, _core_rnn),
    "legacy_seq2seq": (SEQ2SEQ_KEPT, _seq2seq),
    "crf": (CRF_KEPT, _crf),
    "seq2seq": (tuple(sorted(sum(DYNAMIC_SEQ2SEQ.values(), ()))), _dynamic_seq2seq),
    "training": (TRAINING_KEPT, _training),
    "distributions": (tuple(_contrib_distributions.CORE), _distributions),
    "data": (_contrib_data.DATA_KEPT, _contrib_data.data),
    "learn": (_contrib_data.LEARN_KEPT, _contrib_data.learn),
    "eager": (_contrib_eager.KEPT, _contrib_eager.resolve),
    "tpu": (_contrib_tpu.TPU_KEPT, _contrib_tpu.tpu),
    "cluster_resolver": (_contrib_tpu.RESOLVERS_KEPT, _contrib_tpu.cluster_resolver),
    "estimator": (_contrib_estimator.KEPT, _contrib_estimator.resolve),
    "distribute": (_contrib_distribute.KEPT, _contrib_distribute.resolve),
    "graph_editor": (graph_editor.NAMES, None),  # the package itself (placeholder_modules)
    "staging": (("StagingArea",), lambda name: _private("data_flow_ops").StagingArea),
    "signal": (SIGNAL_KEPT, _signal),
    "nn": (_contrib_nn.KEPT, _contrib_nn.resolve),
    "opt": (OPT_KEPT, lambda name: _private_compat("_contrib_opt").resolve(name)),
    "metrics": (_contrib_metrics.KEPT, _contrib_metrics.resolve),
    "memory_stats": (_contrib_memory_stats.KEPT, _contrib_memory_stats.resolve),
    "image": (IMAGE_KEPT, lambda name: _private_compat("_contrib_image").resolve(name)),
    "cudnn_rnn": (CUDNN_KEPT, lambda name: _private_compat("_contrib_cudnn").resolve(name)),
    "lookup": (_contrib_lookup.KEPT, _contrib_lookup.resolve),
    "util": (_contrib_lookup.UTIL_KEPT, _contrib_lookup.resolve_util),
    "predictor": (_contrib_predictor.KEPT, _contrib_predictor.resolve),
    "losses": (_contrib_losses.KEPT, _contrib_losses.resolve),
    "factorization": (_contrib_factorization.KEPT, _contrib_factorization.resolve),
}


def importable(submodule: str) -> bool:
    """Whether ``import tensorflow.contrib.<submodule>`` works after install()."""
    from tf1_train.compat import _contrib_slim

    if submodule in _contrib_slim.SERVED:
        return _contrib_slim.available()
    return submodule in PLACEHOLDERS or _contrib_paths.serves(submodule)


def kept(submodule: str, name: str, deeper: str = "", *tail: str) -> bool:
    """Whether ``tensorflow.contrib.<submodule>.<name>[.<deeper>...]`` works after install()."""
    from tf1_train.compat import _contrib_slim

    rest = [name, *([deeper] if deeper else []), *tail]
    if submodule == "tensorboard" or (
        submodule in ("seq2seq", "opt", "metrics") and name == "python"
    ):
        return _contrib_paths.kept(submodule, rest)
    if submodule in _contrib_impl_paths.MODULES and name == "python":
        return _contrib_impl_paths.kept(submodule, rest)
    if submodule in _contrib_slim.SERVED:
        return _contrib_slim.kept(submodule, name, deeper)
    if submodule == "learn":
        return _contrib_data.learn_kept(name, deeper)
    if submodule == "tpu":
        return _contrib_tpu.tpu_kept(name)
    if submodule == "estimator":
        return _contrib_estimator.kept(name)
    if submodule == "factorization":
        return _contrib_factorization.kept(name)
    return name in _KEPT.get(submodule, ((), None))[0]


# what each kept submodule serves after install() (tf-slim's three: describe())
DESCRIBED = {
    "rnn": "the core cells and static_rnn it re-exported work, every other name raises",
    "training": "HParams, parse_values, bucket and bucket_by_sequence_length work as in "
    "TF 1.15, every other name raises",
    "distributions": "its core distributions work (TensorFlow's classes), contrib's own raise",
    "data": "TF 1.15's names work (tf.data.experimental's, or rebuilt on tf.data), except "
    "the statistics aggregators, LMDBDataset and the Estimator hook",
    "eager": "TF 1.x's eager API works (TensorFlow's objects, Iterator), its own classes raise",
    "learn": "ModeKeys, preprocessing's text processors and datasets' MNIST reader and CSV "
    "loaders work, every other name raises",
    "tpu": "the TPU Estimator (tensorflow-estimator's, when it is installed) and TensorFlow's "
    "TPU ops work, every other name raises",
    "cluster_resolver": "its cluster resolvers work (TensorFlow's), every other name raises",
    "estimator": "its heads, early-stopping hooks, add_metrics and *Estimator classes work "
    "(tensorflow-estimator's, when it is installed), every other name raises",
    "distribute": "its strategies work as tf.compat.v1.distribute's, device counts turned into "
    "devices, every other name raises",
    "graph_editor": "every name of TF 1.15's graph editor works, on TensorFlow 2.21's graphs",
    "signal": "every name of TF 1.15's module works (tf.signal's same functions)",
    "nn": "every name of TF 1.15's module works (TensorFlow's ops, TF 1.15's numbers)",
    "opt": "ScipyOptimizerInterface, the Adam family (LazyAdam, Nadam, AdaMax, AdamW, "
    "MomentumW, AdamGS, LazyAdamGS), LARS, AddSign, PowerSign, RegAdagrad and the "
    "MovingAverage, VariableClipping, Multitask and DropStaleGradient wrappers and elastic "
    "and model averaging (ElasticAverage's and ModelAverage's getters and optimizers) work "
    "as in TF 1.15 (sign_decay too, by its python.training path), every other name raises",
    "metrics": "every name of TF 1.15's module works (TF 1.15's argument order and numbers)",
    "image": "rotate, translate, transform, their transform builders and dense_image_warp "
    "work as in TF 1.15, every other name raises",
    "cudnn_rnn": "CudnnCompatibleLSTMCell and CudnnCompatibleGRUCell work as in TF 1.15, the "
    "cuDNN layers raise one line when constructed",
    "memory_stats": "BytesInUse and MaxBytesInUse work (the allocator's counters TensorFlow "
    "2.21 keeps; 0 on a CPU, said once), BytesLimit raises one line",
    "lookup": "every name of TF 1.15's module works (TensorFlow's lookup tables, contrib's "
    "mapping= wrappers and HashTable rebuilt on them; TF 1.15.5's ids and strings)",
    "util": "make_tensor_proto, make_ndarray, constant_value, ops_used_by_graph_def and "
    "stripped_op_list_for_graph work (TensorFlow's), loader raises",
    "predictor": "from_saved_model works (a TF1 SavedModel loaded into a session, its "
    "signature called with a dict), from_estimator raises",
    "losses": "its fourteen losses and collection helpers work as in TF 1.15 (TF 1.0's argument "
    "order and weights), metric_learning raises",
    "factorization": "KMeans and KMeansClustering (tensorflow-estimator's, when it is installed) "
    "work as in TF 1.15 (contrib's seed and transform), GMM and WALS raise",
}


def describe(submodule: str) -> str:
    """What a program gets from ``tensorflow.contrib.<submodule>`` after install()."""
    from tf1_train.compat import _contrib_slim

    if submodule in _contrib_slim.SERVED:
        if submodule == "slim":
            return "tf-slim's own modules"
        if submodule == "framework":
            return (
                "TF 1.15's names: tf-slim's objects, and TensorFlow's own where TF 1.15 "
                "re-exported them (nest, sort, load_checkpoint...); the rest raise"
            )
        return "TF 1.15's names, tf-slim's objects (the few it lacks raise)"
    if submodule in DESCRIBED:
        return DESCRIBED[submodule]
    if _KEPT.get(submodule):
        return "every name of TF 1.15's module works (TF 1.15's ops)"
    return "a placeholder module whose every name raises on use"


def _gone(module: str, hint: str, kept=(), resolve=_core_rnn):
    """A module ``__getattr__`` that refuses every name but ``kept`` with what
    replaced it. AttributeError, so ``from module import name`` becomes
    ImportError."""

    def __getattr__(name: str):
        if name in kept:
            return resolve(name)
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"{module}.{name} was removed with tf.contrib in TensorFlow 2.0; "
            f"tf1_train.compat makes '{module}' importable, not its contents ({hint})"
        )

    return __getattr__


def _package_getattr():
    """``tensorflow.contrib``'s ``__getattr__``: tf-slim's submodules imported
    on first use when it is installed (_contrib_slim.py), every other name
    one AttributeError."""
    from tf1_train.compat import _contrib_slim

    refuse = _gone(PACKAGE, "see docs/PORTING.md `tf.contrib.*`")

    def __getattr__(name: str):
        if name in _contrib_slim.SERVED:
            if _contrib_slim.available():
                return importlib.import_module(f"{PACKAGE}.{name}")
            raise AttributeError(
                f"{PACKAGE}.{name} was removed with tf.contrib in TensorFlow 2.0; "
                "pip install tf-slim and tf1_train.compat.install() serves it from tf-slim"
            )
        return refuse(name)

    return __getattr__


def placeholder_modules() -> dict:
    """``{module name: module}`` for sys.modules: the package and its placeholders."""
    package = types.ModuleType(PACKAGE, "tf.contrib placeholders of tf1_train.compat")
    package.__path__ = []  # a package with no files: other submodules stay missing
    package.__getattr__ = _package_getattr()
    modules = {PACKAGE: package}
    for name, hint in PLACEHOLDERS.items():
        full = f"{PACKAGE}.{name}"
        module = types.ModuleType(full, f"placeholder: every name raises ({hint})")
        module.__getattr__ = _gone(full, hint, *_KEPT.get(name, ((), _core_rnn)))
        setattr(package, name, module)
        modules[full] = module
    package.graph_editor = graph_editor  # TF 1.15's editor again, a package of modules
    modules.update(graph_editor.sys_modules(PACKAGE))
    modules.update(_contrib_data.learn_modules())  # the paths pickled vocabularies name
    modules.update(_contrib_paths.sys_modules())  # seq2seq's python.ops, the projector
    modules.update(_contrib_impl_paths.sys_modules())  # cudnn_rnn's, rnn's, image's python.ops
    for name in ("seq2seq", "opt", "metrics"):
        modules[f"{PACKAGE}.{name}"].python = modules[f"{PACKAGE}.{name}.python"]
    _contrib_impl_paths.attach(modules)
    if f"{PACKAGE}.tensorboard" in modules:
        package.tensorboard = modules[f"{PACKAGE}.tensorboard"]
    return modules
