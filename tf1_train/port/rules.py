"""The porting rules: which TF1 construct does what on TensorFlow 2.16+ with Keras 3.

Every severity here was checked by running the construct on TensorFlow 2.21
(tensorflow-cpu, Keras 3), and every `upgrade` note by running `tf_upgrade_v2`
on a snippet; tests/test_port_scan.py repeats the checks that are cheap.

Severities:
  breaks           raises on 2.21 and a rename does not fix it
  changes numbers  runs, but computes something else than it did on TF1
  rename           raises on 2.21 until renamed (mostly to tf.compat.v1.*)
  works            runs on 2.21 as written (listed because porters ask)

API paths are written as strings on purpose: the scanner names the APIs that
tf1_train itself must not use.
"""

from typing import Dict, NamedTuple

BREAKS = "breaks"
CHANGES = "changes numbers"
RENAME = "rename"
WORKS = "works"
SEVERITIES = (BREAKS, CHANGES, RENAME, WORKS)

V1 = "tensorflow.compat.v1."
COMPAT_INSTALL = (
    "or run it unmodified with tf1_train.compat.install() at the top of the program "
    "(python -m tf1_train.compat script.py)"
)

# docs/PORTING.md first-column keys (each must occur in exactly one first cell).
ROW_LAYERS = "`tf.compat.v1.layers.*`"
ROW_KERAS_IN_V1 = "Keras layers in a v1 graph"
ROW_DEVICE = "`tf.device(fn)`"
ROW_V2_BEHAVIOR = "`disable_v2_behavior()`"
ROW_QUEUES = "queue runners"
ROW_SYNC = "`SyncReplicasOptimizer`"
ROW_OPTIMIZERS = "`tf.compat.v1.train.*Optimizer`"
ROW_SUPERVISOR = "`tf.train.Supervisor`"
ROW_EMA = "`ExponentialMovingAverage`"
ROW_DECAY = "staircase decay"
ROW_DIMENSION = "`Dimension.value`"
ROW_SUMMARY = "TF2 `tf.summary.*` in a v1 graph"
ROW_SLIM = "tf-slim"
ROW_TF_KERAS = "tf_keras + `TF_USE_LEGACY_KERAS`"
ROW_RNN_CELL = "`tf.nn.rnn_cell.*`, `dynamic_rnn`"
ROW_CONTRIB = "`tf.contrib.*`"
ROW_ESTIMATOR = "`tf.estimator.*`"
ROW_EAGER = "placeholders and sessions in eager mode"
ROW_RENAMES = "TF1 names outside `tf.compat.v1`"
ROW_ARGS = "renamed arguments"
ROW_HOROVOD = "Horovod"
ROW_AMP = "`TF_ENABLE_AUTO_MIXED_PRECISION`"
ROW_LOSS_SCALE = "`MixedPrecisionLossScaleOptimizer(opt, DynamicLossScale())`"
ROW_KERAS2_MIXED = "`tf.keras.mixed_precision.experimental.*`"
ROW_OLD_NAMES = "names TensorFlow 2.21 lacks both ways"
ROW_ARG_ORDER = "positional arguments whose order changed"
ROW_VARIABLE_OPS = "device functions that test `op.type`"


class Rule(NamedTuple):
    key: str
    severity: str
    fix: str
    upgrade: str  # what tf_upgrade_v2 does with it
    row: str  # docs/PORTING.md first-column key


RULES: Dict[str, Rule] = {}


def _rule(key: str, severity: str, fix: str, upgrade: str, row: str) -> str:
    RULES[key] = Rule(key, severity, fix, upgrade, row)
    return key


LEAVES = "leaves it unchanged and reports nothing"

# ---- rules matched on a full API path (first match wins; see NAME_RULES) ----
_rule(
    "layers-batch-norm",
    BREAKS,
    "tf1_train.compat.layers.batch_normalization / BatchNormalization (moving averages "
    "in UPDATE_OPS, the same variable names), " + COMPAT_INSTALL,
    "renames tf.layers.batch_normalization to tf.compat.v1.layers.batch_normalization "
    "(INFO), which still raises under Keras 3",
    ROW_LAYERS,
)
_rule(
    "layers",
    BREAKS,
    "tf1_train.compat.layers (same signatures, defaults and variable names), " + COMPAT_INSTALL,
    "leaves tf.layers.dense/conv2d/max_pooling2d/dropout unchanged without a message, and "
    "rewrites `import tensorflow.compat.v1 as tf` to `import tensorflow as tf`, which has "
    "no tf.layers at all",
    ROW_LAYERS,
)
_rule(
    "python-layers-batch-norm",
    BREAKS,
    "tf1_train.compat.layers.batch_normalization: tensorflow.python.layers.normalization "
    "imports, but its layers load from tf_keras (No module named 'tf_keras'); " + COMPAT_INSTALL,
    LEAVES,
    ROW_LAYERS,
)
_rule(
    "python-layers",
    WORKS,
    "none needed: TF 2.21 still ships the private legacy core/convolutional/pooling layers; "
    "they are private API, tf1_train.compat.layers is the same thing in public code",
    LEAVES,
    ROW_LAYERS,
)
_rule(
    "slim-batch-norm",
    BREAKS,
    "tf1_train.compat.install() at the top of the program makes tf_slim's batch_norm build "
    "unmodified (without it, it needs tf_keras), or tf1_train.compat.layers.batch_normalization "
    "(mind tf-slim's defaults: decay=0.999, scale=False, epsilon=0.001)",
    "leaves it unchanged (tf.contrib.* spellings: ERROR 'cannot be converted automatically')",
    ROW_SLIM,
)
_rule(
    "contrib-slim",
    BREAKS,
    "unmodified, tf1_train.compat.install() serves tf.contrib.slim as tf-slim when it is "
    "installed; or import tf_slim as slim (pip install tf-slim): on TF 2.21 its layers, "
    "arg_scope, losses "
    "and prefetch_queue run, batch_norm only after tf1_train.compat.install() "
    "(see slim-batch-norm)",
    "ERROR 'cannot be converted automatically' on tf.contrib.slim.X uses; says nothing about "
    "`import tensorflow.contrib.slim as slim` or `from tensorflow.contrib import slim`",
    ROW_SLIM,
)
_rule(
    "contrib-prefetch-queue",
    BREAKS,
    "tf_slim.data.prefetch_queue.prefetch_queue (runs on 2.21 with queue runners; unmodified "
    "after tf1_train.compat.install() with tf-slim installed), or "
    "tf.data's prefetch",
    "ERROR 'cannot be converted automatically'",
    ROW_SLIM,
)
_rule(
    "contrib-batch-norm",
    BREAKS,
    "unmodified, tf1_train.compat.install() serves tf.contrib.layers from tf-slim when it is "
    "installed (its batch_norm is contrib's); or tf1_train.compat.layers.batch_normalization "
    "with contrib's defaults spelled out "
    "(momentum=0.999, scale=False, epsilon=0.001); its updates go to UPDATE_OPS",
    "ERROR 'cannot be converted automatically'",
    ROW_CONTRIB,
)
_rule(
    "contrib-l2-regularizer",
    BREAKS,
    "unmodified, tf1_train.compat.install() serves tf.contrib.layers from tf-slim when it is "
    "installed (its l2_regularizer is contrib's); or lambda w: scale * tf.nn.l2_loss(w) "
    "(= scale * sum(w**2) / 2); "
    "tf.keras.regularizers.l2(scale) is twice that",
    "converts to tf.keras.regularizers.l2(0.5 * (scale)): the same value",
    ROW_CONTRIB,
)
_rule(
    "contrib",
    BREAKS,
    "tf.contrib went in TF 2.0; replacement by submodule: {contrib}",
    "ERROR 'cannot be converted automatically' on tf.contrib.X uses; says nothing about "
    "`import tensorflow.contrib...` / `from tensorflow.contrib import ...`",
    ROW_CONTRIB,
)
_rule(
    "estimator",
    BREAKS,
    "tf.estimator went in TF 2.16: to run it unmodified, pip install "
    "tensorflow-estimator==2.15.0 and run through python -m tf1_train.compat (scan --compat "
    "says what then runs; docs/ESTIMATOR.md); to leave it, write the loop (a Session.run "
    "loop, as tf1_train's, "
    "which runs the model_fn's training_hooks through --hooks and its eval_metric_ops "
    "through --eval_metrics) or use Keras fit / a custom TF2 loop",
    LEAVES,
    ROW_ESTIMATOR,
)
_rule(
    "keras-legacy-optimizers",
    BREAKS,
    "tf.compat.v1.train.*Optimizer in a v1 graph, a Keras 3 optimizer (other epsilon and "
    "momentum rules), or tf_keras with TF_USE_LEGACY_KERAS=1",
    LEAVES,
    ROW_TF_KERAS,
)
_rule(
    "keras-session",
    BREAKS,
    "Keras 3's backend has no session or learning phase: tf.compat.v1.Session / "
    "get_default_session(), and pass training= explicitly",
    "renames it to tf.compat.v1.keras.backend.*, which Keras 3 lacks too",
    ROW_TF_KERAS,
)
_rule(
    "rnn-cell",
    BREAKS,
    "tf1_train.compat.install() at the top of the program makes tf.compat.v1.nn.rnn_cell.* "
    "(and tf.contrib.rnn's core cells, static_rnn, stack_bidirectional_(dynamic_)rnn and "
    "its LSTMBlockCell, LSTMBlockFusedCell, TimeReversedFusedRNN, GRUBlockCell(V2), "
    "LayerNormBasicLSTMCell, AttentionCellWrapper, Embedding/Input/OutputProjectionWrapper, "
    "ConvLSTMCell) "
    "TensorFlow's own legacy cells again (same variable names and numbers, shared by "
    "variable_scope reuse); in TF2, tf.keras.layers.LSTM / GRU(reset_after=False) / SimpleRNN "
    "(ConvLSTMCell: ConvLSTM1D/2D/3D) with the weights rearranged by "
    "tf1_train.port.rnn_weights (gate order, forget_bias)",
    "renames tf.nn.rnn_cell.X to tf.compat.v1.nn.rnn_cell.X, which still raises",
    ROW_RNN_CELL,
)
_rule(
    "horovod",
    BREAKS,
    "horovod.tensorflow does not build or import on TF >= 2.16 (horovod#4290); "
    "BroadcastGlobalVariablesHook / DistributedOptimizer -> tf1_train's towers (one machine) "
    "or parameter servers / MultiWorkerMirroredStrategy (several)",
    LEAVES,
    ROW_HOROVOD,
)
_rule(
    "supervisor",
    WORKS,
    "none needed under tf.compat.v1 (it finalizes the graph and starts queue runners); "
    "MonitoredTrainingSession or a plain Session loop are the maintained routes",
    "renames tf.train.Supervisor to tf.compat.v1.train.Supervisor",
    ROW_SUPERVISOR,
)
_rule(
    "sync-replicas",
    WORKS,
    "none needed under tf.compat.v1; mind the chief/last-step hang and the token count",
    "renames to tf.compat.v1.train.SyncReplicasOptimizer",
    ROW_SYNC,
)
_rule(
    "queue-runners",
    WORKS,
    "none needed under tf.compat.v1 in graph mode (remember start_queue_runners); "
    "tf.data is the maintained input pipeline",
    "renames to tf.compat.v1.* (tf.train.* / tf.FixedLengthRecordReader)",
    ROW_QUEUES,
)
_rule(
    "moving-average",
    WORKS,
    "none needed: tf.train.ExponentialMovingAverage and variables_to_restore() work in a v1 graph",
    LEAVES,
    ROW_EMA,
)
_rule(
    "lr-decay",
    WORKS,
    "none needed under tf.compat.v1; tf.keras.optimizers.schedules.ExponentialDecay("
    "staircase=True) called on the global step gives the same numbers",
    "renames to tf.compat.v1.train.* (for exponential_decay it also suggests "
    "tf.keras.optimizers.schedules, INFO)",
    ROW_DECAY,
)
_rule(
    "amp-graph-rewrite",
    WORKS,
    "none needed as tf.compat.v1.mixed_precision.enable_mixed_precision_graph_rewrite(opt) "
    "with a tf.compat.v1.train optimizer (a Keras 3 optimizer raises ValueError); Grappler "
    "rewrites to float16 on NVIDIA GPUs only, a CPU graph stays float32 (--precision=bf16 "
    "is the CPU route); code that calls tf.gradients itself must unscale the gradients",
    "renames tf.train.experimental.* to tf.compat.v1.train.experimental.*",
    ROW_AMP,
)
_rule(
    "v1-loss-scale",
    WORKS,
    "none needed under tf.compat.v1.mixed_precision in a v1 graph; in TF 2, "
    "keras.optimizers.LossScaleOptimizer(opt): dynamic only, no floor at 1, and neither "
    "counts skipped steps",
    "renames tf.train.experimental.* and tf.mixed_precision.experimental.* to tf.compat.v1.*",
    ROW_LOSS_SCALE,
)
_rule(
    "keras2-mixed-precision",
    BREAKS,
    "keras.mixed_precision.set_global_policy('mixed_float16' or 'mixed_bfloat16') and "
    "keras.optimizers.LossScaleOptimizer(opt) (no loss_scale argument: dynamic from 2**15): "
    "Keras 3 has no mixed_precision.experimental",
    LEAVES,
    ROW_KERAS2_MIXED,
)
_rule(
    "keras2-loss-scale",
    BREAKS,
    "Keras 3's LossScaleOptimizer has scale_loss(loss) and no get_scaled_loss / "
    "get_unscaled_gradients: its apply_gradients divides by the scale and skips a "
    "non-finite step itself; dynamic=False raises (set loss_scale_factor on the inner "
    "optimizer for a fixed scale)",
    LEAVES,
    ROW_KERAS2_MIXED,
)
_rule(
    "amp-env-var",
    CHANGES,
    "TensorFlow 2.21 never reads TF_ENABLE_AUTO_MIXED_PRECISION (NVIDIA's TF1 containers "
    "did): the run stays float32 with no message; wrap the optimizer with "
    "tf.compat.v1.mixed_precision.enable_mixed_precision_graph_rewrite, or --precision=fp16",
    LEAVES,
    ROW_AMP,
)
_rule(
    "disable-v2-behavior",
    WORKS,
    "none needed in a program of TF 1.x code: it turns on TF 1.x's reference variables, "
    "control flow and shapes for the whole process (the scan counts on them: `.value` of a "
    "Dimension works); TF 2 or Keras code run in the same process then gets RefVariables from "
    "get_variable next to its ResourceVariables: run such code in a process of its own",
    LEAVES,
    ROW_V2_BEHAVIOR,
)
_rule(
    "tf-flags",
    RENAME,
    "absl.flags (tf.compat.v1.flags still works)",
    "ERROR 'tf.flags and tf.app.flags have been removed', no rewrite",
    ROW_RENAMES,
)
_rule(
    "tf-app",
    RENAME,
    "absl.app.run, or tf.compat.v1.app.run",
    "renames to tf.compat.v1.app.run",
    ROW_RENAMES,
)
_rule(
    "tf-logging",
    RENAME,
    "absl.logging, or tf.compat.v1.logging",
    "renames to tf.compat.v1.logging.*",
    ROW_RENAMES,
)
_rule(
    "tf-gfile",
    RENAME,
    "{rename}",
    "renames to tf.io.gfile.* (lower-case names)",
    ROW_RENAMES,
)
_rule(
    "resize-images",
    RENAME,
    "tf.compat.v1.image.{name} keeps TF1's numbers; tf.image.resize samples at half-pixel "
    "centres and gives other values",
    "rewrites it to tf.image.resize (INFO), which samples at half-pixel centres: "
    "the numbers change",
    ROW_ARGS,
)
_rule(
    "cast-shortcuts",
    RENAME,
    "tf.cast(x, tf.<dtype>)",
    "converts to tf.cast(x, dtype=...)",
    ROW_RENAMES,
)
_rule(
    "random-ops",
    RENAME,
    "{rename} (the same op and seeds)",
    "renames to tf.random.*",
    ROW_RENAMES,
)
_rule(
    "v1-optimizer",
    RENAME,
    "{rename}",
    "renames to tf.compat.v1.train.*",
    ROW_OPTIMIZERS,
)
_rule(
    "v1-graph-api",
    RENAME,
    "{rename} (needs graph mode: see the eager-placeholder rule)",
    "renames to tf.compat.v1.*",
    ROW_RENAMES,
)
_rule(
    "v1-rename",
    RENAME,
    "{rename}",
    "renames it",
    ROW_RENAMES,
)
