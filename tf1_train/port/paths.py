"""Which API paths each name-matched rule covers, and where tf.contrib's submodules went.

Matching is on full paths after alias resolution (see names.py). Renames that
TensorFlow's own upgrade script knows are read from its table, so `tf.X` names
that exist only as `tf.compat.v1.X` are found without listing them here.
"""

import ast
import functools
import importlib.util
import pathlib
from typing import Dict, Optional, Tuple

from tf1_train.compat._contrib import (
    CRF_KEPT,
    DYNAMIC_SEQ2SEQ,
    OPT_KEPT,
    RNN_FROM_CORE,
    SEQ2SEQ_KEPT,
)
from tf1_train.compat._contrib_metrics import KEPT as METRICS_KEPT
from tf1_train.port.rules import V1

# Full API paths per rule. `v1` marks names that exist only under tf.compat.v1:
# spelled `tf.X` on TF 2.x they raise AttributeError, so the finding is a rename.
NAME_RULES: Tuple[Tuple[str, Tuple[str, ...], bool], ...] = (
    (
        "layers-batch-norm",
        tuple(
            p + "layers." + n
            for p in (V1, "tensorflow.")
            for n in ("BatchNormalization", "batch_normalization")
        ),
        False,
    ),
    ("layers", (V1 + "layers", "tensorflow.layers"), False),
    ("python-layers-batch-norm", ("tensorflow.python.layers.normalization",), False),
    (
        "python-layers",
        tuple(f"tensorflow.python.layers.{m}" for m in ("core", "convolutional", "pooling")),
        False,
    ),
    ("slim-batch-norm", ("tf_slim.batch_norm", "tf_slim.layers.batch_norm"), False),
    (
        "slim-moved-names",
        tuple(
            f"tf_slim.{m}tfexample_decoder.{c}"
            for m in ("", "data.")
            for c in ("Image", "BoundingBox")
        )
        + tuple(f"tf_slim.{m}{n}" for m in ("", "layers.") for n in ("optimize_loss",))
        + tuple(
            f"tf_slim.{m}{n}_variable" for m in ("", "variables.") for n in ("local", "global")
        ),
        False,
    ),
    # tf.contrib.rnn's core cells and static_rnn: back with install(), as tf.nn.rnn_cell's
    ("rnn-cell", tuple(f"tensorflow.contrib.rnn.{n}" for n in RNN_FROM_CORE), False),
    (
        "legacy-seq2seq",
        tuple(f"tensorflow.contrib.legacy_seq2seq.{n}" for n in SEQ2SEQ_KEPT),
        False,
    ),
    ("contrib-crf", tuple(f"tensorflow.contrib.crf.{n}" for n in CRF_KEPT), False),
    ("contrib-opt", tuple(f"tensorflow.contrib.opt.{n}" for n in OPT_KEPT), False),
    ("contrib-metrics", tuple(f"tensorflow.contrib.metrics.{n}" for n in METRICS_KEPT), False),
    (
        "contrib-seq2seq",
        tuple(f"tensorflow.contrib.seq2seq.{n}" for ns in DYNAMIC_SEQ2SEQ.values() for n in ns),
        False,
    ),
    ("contrib-prefetch-queue", ("tensorflow.contrib.slim.prefetch_queue",), False),
    ("slim-batch-norm", ("tensorflow.contrib.slim.batch_norm",), False),
    ("contrib-slim", ("tensorflow.contrib.slim",), False),
    ("contrib-batch-norm", ("tensorflow.contrib.layers.batch_norm",), False),
    ("contrib-l2-regularizer", ("tensorflow.contrib.layers.l2_regularizer",), False),
    ("contrib", ("tensorflow.contrib",), False),
    (
        "estimator",
        ("tensorflow.estimator", V1 + "estimator", "tensorflow_estimator"),
        False,
    ),
    (
        "keras-legacy-optimizers",
        ("tensorflow.keras.optimizers.legacy", "keras.optimizers.legacy"),
        False,
    ),
    (
        "keras-session",
        tuple(
            p + "keras.backend." + n
            for p in (V1, "tensorflow.")
            for n in (
                "get_session",
                "set_session",
                "learning_phase",
                "set_learning_phase",
                "manual_variable_initialization",
            )
        ),
        False,
    ),
    ("rnn-cell", (V1 + "nn.rnn_cell", "tensorflow.nn.rnn_cell"), False),
    ("horovod", ("horovod.tensorflow", "horovod.keras"), False),
    ("supervisor", ("train.Supervisor",), True),
    ("import-meta-graph", ("train.import_meta_graph",), True),
    ("sync-replicas", ("train.SyncReplicasOptimizer",), True),
    (
        "queue-runners",
        (
            "train.string_input_producer",
            "train.input_producer",
            "train.slice_input_producer",
            "train.range_input_producer",
            "train.shuffle_batch",
            "train.shuffle_batch_join",
            "train.batch",
            "train.batch_join",
            "train.start_queue_runners",
            "train.QueueRunner",
            "FixedLengthRecordReader",
            "TFRecordReader",
            "WholeFileReader",
            "TextLineReader",
        ),
        True,
    ),
    (
        "amp-graph-rewrite",
        tuple(
            m + ".enable_mixed_precision_graph_rewrite"
            for m in ("train.experimental", "mixed_precision")
        ),
        True,
    ),
    (
        "v1-loss-scale",
        tuple(
            f"{m}.{n}"
            for m in (
                "train.experimental",
                "mixed_precision",
                "mixed_precision.experimental",
            )
            for n in (
                "MixedPrecisionLossScaleOptimizer",
                "LossScale",
                "DynamicLossScale",
                "FixedLossScale",
            )
        ),  # fmt: skip
        True,
    ),
    (
        "keras2-mixed-precision",
        ("tensorflow.keras.mixed_precision.experimental", "keras.mixed_precision.experimental"),
        False,
    ),
    ("moving-average", ("tensorflow.train.ExponentialMovingAverage",), False),
    ("moving-average", ("train.ExponentialMovingAverage",), True),
    (
        "lr-decay",
        tuple(
            f"train.{n}_decay" for n in ("exponential", "natural_exp", "inverse_time", "polynomial")
        )
        + ("train.piecewise_constant",),
        True,
    ),
    (
        "disable-v2-behavior",
        (V1 + "disable_v2_behavior", "tensorflow.disable_v2_behavior"),
        False,
    ),
    ("tf-flags", ("tensorflow.flags", "tensorflow.app.flags"), False),
    ("tf-app", ("tensorflow.app",), False),
    ("tf-logging", ("tensorflow.logging",), False),
    ("tf-gfile", ("tensorflow.gfile",), False),
    (
        "resize-images",
        tuple(
            "tensorflow.image." + n
            for n in (
                "resize_images",
                "resize_bilinear",
                "resize_bicubic",
                "resize_nearest_neighbor",
                "resize_area",
            )
        ),
        False,
    ),
    (
        "cast-shortcuts",
        tuple(
            "tensorflow.to_" + t
            for t in ("float", "double", "int32", "int64", "bfloat16", "complex64", "complex128")
        ),
        False,
    ),
    (
        "random-ops",
        tuple(
            "tensorflow." + n
            for n in (
                "random_normal",
                "truncated_normal",
                "random_uniform",
                "random_shuffle",
                "random_crop",
                "random_gamma",
                "random_poisson",
                "multinomial",
            )
        ),
        False,
    ),
)

# Where each tf.contrib submodule went (the fix names the one a finding uses).
CONTRIB: Dict[str, str] = {
    "slim": "tf_slim (unmodified: tf1_train.compat.install() serves it when tf-slim is installed)",
    "layers": "tf_slim.layers (unmodified: tf1_train.compat.install() serves TF 1.15's names "
    "from tf-slim when it is installed, embed_sequence included; feature columns: "
    "tf.feature_column), or tf1_train.compat.layers for the layers "
    "(initializers: tf.compat.v1.glorot_uniform_initializer for xavier_initializer)",
    "framework": "tf_slim (arg_scope, get_variables...; unmodified: tf1_train.compat.install() "
    "serves them, and nest, sort, load_checkpoint... as TensorFlow's objects, when tf-slim is "
    "installed), or tf.compat.v1 / tf.nest / tf.sort",
    "training": "tf.compat.v1.train, tf.data for its input helpers "
    "(bucket_by_sequence_length: tf.data.experimental.bucket_by_sequence_length; HParams, "
    "parse_values, bucket, bucket_by_sequence_length: unmodified, tf1_train.compat.install() "
    "serves them, or a dataclass)",
    "data": "tf.data.experimental's same names, or Dataset.batch(drop_remainder=True) / "
    "Dataset.window for its own (unmodified: tf1_train.compat.install() serves TF 1.15's names)",
    "learn": "none (removed; tf.data + a Session loop; ModeKeys' strings and "
    "preprocessing.VocabularyProcessor, its pickles too: unmodified, tf1_train.compat.install() "
    "serves them)",
    "rnn": "its core cells, static_rnn, LSTMBlockCell, "
    "stack_bidirectional_(dynamic_)rnn, LSTMBlockFusedCell, TimeReversedFusedRNN, "
    "GRUBlockCell(V2), LayerNormBasicLSTMCell, AttentionCellWrapper, "
    "Embedding/Input/OutputProjectionWrapper, ConvLSTMCell (Conv1D/2D/3DLSTMCell), NASCell, "
    "UGRNNCell, IntersectionRNNCell, IndRNNCell, IndyGRUCell, IndyLSTMCell: "
    "tf1_train.compat.install() (the same "
    "objects as tf.compat.v1.nn.rnn_cell's, the fused cells on TensorFlow's own kernels); "
    "the other contrib-only cells (GridLSTMCell, PhasedLSTMCell, ...): "
    "tf.keras.layers RNN cells (not shared by variable_scope reuse) or a cell of your own",
    "cudnn_rnn": "tf.keras.layers.LSTM / GRU (cuDNN kernels when eligible; GRU with "
    "reset_after=True is cuDNN's); unmodified: tf1_train.compat.install() serves "
    "CudnnCompatibleLSTMCell / GRUCell and python.ops.cudnn_rnn_ops' constants (the cuDNN "
    "layers raise when constructed)",
    "seq2seq": "tf1_train.compat.install() (all of it, and the public names of its "
    "python.ops.decoder, helper, attention_wrapper, ... modules)",
    "crf": "tf1_train.compat.install() (all of it)",
    "graph_editor": "no graph editor in TF 2: tf.recompute_grad for gradient checkpointing, "
    "a function called on the replacement for graph_replace; unmodified: "
    "tf1_train.compat.install() (all of it)",
    "legacy_seq2seq": "tf1_train.compat.install() (all of it)",
    "opt": "tf.compat.v1.train optimizers, keras.optimizers or an optimizer of your own "
    "(ScipyOptimizerInterface, the Adam family, LARS, AddSign/PowerSign: see the "
    "contrib-opt rule; unmodified: tf1_train.compat.install() serves those)",
    "image": "tf.raw_ops.ImageProjectiveTransformV3 for rotate / translate / transform (tf.image "
    "has none, nor a warp), TensorFlow Addons' tfa.image (unmaintained) for the rest; "
    "unmodified: tf1_train.compat.install() serves rotate, translate, transform, their "
    "transform builders and dense_image_warp",
    "distribute": "tf.distribute",
    "distributions": "tf.compat.v1.distributions for its core ones (Normal, Categorical, "
    "kl_divergence...; unmodified: tf1_train.compat.install() serves them), "
    "tensorflow_probability's tfp.distributions for contrib's own (MultivariateNormalDiag...)",
    "tpu": "tf.distribute.TPUStrategy",
    "nccl": "tf.distribute.NcclAllReduce",
    "metrics": "tf.compat.v1.metrics with labels first, tf.keras.metrics (see the "
    "contrib-metrics rule; unmodified: tf1_train.compat.install() serves the common names)",
    "losses": "tf.compat.v1.losses with the labels first and weights broadcastable from the "
    "last dimension; unmodified: tf1_train.compat.install() serves TF 1.0's losses",
    "summary": "tf.summary (TF2, with a default writer)",
    "keras": "tf.keras (contrib.keras was its alias on TF 1.x: the same objects)",
    "factorization": "tf.compat.v1.estimator.experimental.KMeans (seed= through the graph "
    "seed, transform's square roots); unmodified: tf1_train.compat.install() serves its k-means",
    "eager": "tf (eager is the TF2 default: drop enable_eager_execution; tfe.Variable -> "
    "tf.Variable, implicit_gradients -> tf.GradientTape, Iterator -> iter(dataset); "
    "unmodified: tf1_train.compat.install() serves TF 1.15's names but Network, Saver, metrics)",
    "quantize": "TensorFlow Model Optimization (tfmot)",
    "stateless": "tf.random.stateless_*",
    "checkpoint": "tf.train.Checkpoint",
    "memory_stats": "tf.config.experimental.get_memory_info(device)['current'] / ['peak'] "
    "(no limit); unmodified: tf1_train.compat.install() serves BytesInUse and MaxBytesInUse",
    "lookup": "tf.lookup (vocabulary_list= for contrib's mapping=); unmodified: "
    "tf1_train.compat.install() serves TF 1.15's names",
    "signal": "tf.signal, the same functions (stft, inverse_stft, linear_to_mel_weight_matrix, "
    "...; unmodified: tf1_train.compat.install() serves TF 1.15's names)",
    "nn": "tf.nn's losses with labels= and logits= (deprecated_flipped_softmax_cross_entropy"
    "_with_logits(logits, labels) -> tf.nn.softmax_cross_entropy_with_logits(labels=labels, "
    "logits=logits)), tf.nn.conv1d_transpose; unmodified: tf1_train.compat.install() serves "
    "TF 1.15's nine names",
    "linalg": "tf.linalg, its LinearOperator classes (LinearOperatorTriL, contrib's old name: "
    "tf.linalg.LinearOperatorLowerTriangular)",
    "predictor": "tf.saved_model.load, or tf.compat.v1.saved_model.loader.load into a "
    "session; unmodified: tf1_train.compat.install() serves from_saved_model",
    "tensorboard": "tensorboard.plugins.projector, the same module moved (unmodified: "
    "tf1_train.compat.install() serves tf.contrib.tensorboard.plugins.projector as it)",
    "util": "tf.make_ndarray / tf.make_tensor_proto / tf.get_static_value; unmodified: "
    "tf1_train.compat.install() serves its five functions",
    "staging": "tensorflow.python.ops.data_flow_ops.StagingArea (private, still in 2.21), "
    "or tf.data's prefetch / tf.data.experimental.prefetch_to_device; unmodified: "
    "tf1_train.compat.install() serves StagingArea",
    "cluster_resolver": "tf.distribute.cluster_resolver",
    "saved_model": "meta_graph_def.signature_def[key] for get_signature_def_by_key, "
    "or tf.saved_model.load(dir).signatures[key]",
}


def _spellings(names: Tuple[str, ...], v1_only: bool) -> Tuple[str, ...]:
    if not v1_only:
        return names
    return tuple(prefix + name for name in names for prefix in (V1, "tensorflow."))


_TABLE = tuple((key, _spellings(names, v1), v1) for key, names, v1 in NAME_RULES)


def match(path: str) -> Optional[Tuple[str, bool]]:
    """(rule key, whether the name exists only under tf.compat.v1), or None."""
    for key, names, v1_only in _TABLE:
        if any(path == n or path.startswith(n + ".") for n in names):
            return key, v1_only
    return None


@functools.cache
def tf_renames() -> Dict[str, str]:
    """`tf.X` -> its TF 2 spelling, read from tf_upgrade_v2's own tables.

    Parsed, not imported, so scanning does not load TensorFlow; empty when
    TensorFlow is not installed (then the generic rename rule finds nothing).
    """
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or not spec.submodule_search_locations:
        return {}
    folder = pathlib.Path(list(spec.submodule_search_locations)[0]) / "tools" / "compatibility"
    table: Dict[str, str] = {}
    for name, var in (("renames_v2.py", "renames"), ("all_renames_v2.py", "manual_symbol_renames")):
        try:
            tree = ast.parse((folder / name).read_text())
        except (OSError, SyntaxError):
            continue
        for node in tree.body:
            targets = [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
            if var in targets:
                table.update(ast.literal_eval(node.value))
    return table


# Names tf_upgrade_v2 renames although TF 2.21 has them (with TF 2 semantics: broadcasting
# tf.where, v2 initializers): they run as written, so no rename finding (the initializers'
# changed defaults are checks.py's v2-initializer-defaults). Keras names are left to the
# Keras rules: the upgrade script's Keras targets predate Keras 3.
TF2_HAS_PREFIXES = ("tf.debugging.assert_", "tf.keras.")
TF2_HAS = frozenset(
    "tf." + name
    for name in (
        "assert_equal assert_greater assert_less assert_rank data.Iterator losses.Reduction "
        "nn.avg_pool nn.ctc_loss nn.max_pool nn.space_to_batch saved_model.load "
        "space_to_batch_nd test.compute_gradient where constant_initializer ones_initializer "
        "zeros_initializer random_normal_initializer random_uniform_initializer"
    ).split()
    + [
        "initializers." + init
        for init in (
            "constant glorot_normal glorot_uniform he_normal he_uniform identity lecun_normal "
            "lecun_uniform ones orthogonal random_normal random_uniform truncated_normal "
            "variance_scaling zeros"
        ).split()
    ]
)


def renamed(path: str) -> Optional[Tuple[str, str]]:
    """(old `tf.` name, new name) for the longest prefix of a `tensorflow.X` path TF renames."""
    if not path.startswith("tensorflow.") or path.startswith(V1):
        return None
    parts = ("tf." + path[len("tensorflow.") :]).split(".")
    table = tf_renames()
    for end in range(len(parts), 1, -1):
        old = ".".join(parts[:end])
        if old in TF2_HAS or old.startswith(TF2_HAS_PREFIXES):
            return None
        if old in table:
            return old, table[old]
    return None


def submodule_fix(path: str) -> str:
    """Where the tf.contrib submodule in `path` went."""
    parts = path.split(".")
    if parts[:2] != ["tensorflow", "contrib"] or len(parts) < 3:
        return "; ".join(f"{k} -> {v}" for k, v in CONTRIB.items())
    return f"{parts[2]} -> " + CONTRIB.get(parts[2], "none in TF 2 (see the TF 2 migration guide)")
