"""Per scan rule, a snippet that must trigger it and one that must not (tests/test_port_scan.py).

In a trigger, `# expect: rule` marks the line the finding must point at (a
comment on a line of its own marks the next line). Snippets are never run.
"""

from typing import Dict, List, NamedTuple

from tests.port_scan_cases_contrib import KEPT_CONTRIB
from tests.port_scan_cases_fixmatch import FIXMATCH
from tests.port_scan_cases_losses import LOSSES
from tests.port_scan_cases_native import NATIVE
from tests.port_scan_cases_research import RESEARCH
from tests.port_scan_cases_runtime import RUNTIME
from tests.port_scan_cases_self_cast import SELF_CAST
from tests.port_scan_cases_stylegan import STYLEGAN


class Case(NamedTuple):
    rule: str
    trigger: str
    clean: str
    name: str = "snippet.py"  # the file it is scanned as (native_rules: sources, scripts)


TF = "import tensorflow as tf\n"
V1 = "import tensorflow.compat.v1 as tf\n"

CASES: List[Case] = [
    Case(
        "layers-batch-norm",
        V1 + "bn = tf.layers.batch_normalization(x, training=True)  # expect: layers-batch-norm\n",
        "from tf1_train.compat import layers\nbn = layers.batch_normalization(x, training=True)\n",
    ),
    Case(
        "layers",
        TF + "h = tf.compat.v1.layers.dense(x, 10)  # expect: layers\n",
        "from tf1_train.compat import layers\nh = layers.dense(x, 10)\n",
    ),
    Case(
        "python-layers-batch-norm",
        "from tensorflow.python.layers import normalization  # expect: python-layers-batch-norm\n"
        "bn = normalization.BatchNormalization()  # expect: python-layers-batch-norm\n",
        "from tensorflow.python.layers import core\n",
    ),
    Case(
        "python-layers",
        "from tensorflow.python.layers import convolutional as conv  # expect: python-layers\n"
        "y = conv.conv2d(x, 8, 3)\n",
        V1 + "y = tf.nn.conv2d(x, w, 1, 'SAME')\n",
    ),
    Case(
        "slim-batch-norm",
        "import tf_slim as slim\n"
        "net = slim.conv2d(x, 8, 3, normalizer_fn=slim.batch_norm)  # expect: slim-batch-norm\n",
        "import tf_slim as slim\nnet = slim.conv2d(x, 8, 3)\n",
    ),
    Case(
        "contrib-prefetch-queue",
        "from tensorflow.contrib.slim import prefetch_queue  # expect: contrib-prefetch-queue\n"
        "q = prefetch_queue.prefetch_queue([x])  # expect: contrib-prefetch-queue\n",
        "from tf_slim.data import prefetch_queue\nq = prefetch_queue.prefetch_queue([x])\n",
    ),
    Case(
        "contrib-slim",
        "import tensorflow.contrib.slim as slim  # expect: contrib-slim\n"
        "net = slim.conv2d(x, 8, 3)  # expect: contrib-slim\n",
        "import tf_slim as slim\nnet = slim.conv2d(x, 8, 3)\n",
    ),
    Case(
        "contrib-batch-norm",
        TF + "y = tf.contrib.layers.batch_norm(x)  # expect: contrib-batch-norm\n",
        V1 + "y = tf.nn.fused_batch_norm(x, scale, offset)\n",
    ),
    Case(
        "contrib-l2-regularizer",
        TF + "r = tf.contrib.layers.l2_regularizer(1e-4)  # expect: contrib-l2-regularizer\n",
        TF + "r = lambda w: 1e-4 * tf.nn.l2_loss(w)\n",
    ),
    Case(
        "contrib",
        "from tensorflow.contrib import rnn  # expect: contrib\n"
        "cell = rnn.GridLSTMCell(8)  # expect: contrib\n",
        TF + "cell = tf.keras.layers.LSTMCell(8)\n",
    ),
    Case(
        "estimator",
        TF + "est = tf.estimator.Estimator(model_fn)  # expect: estimator\n",
        TF + "model = tf.keras.Model(inputs, outputs)\n",
    ),
    Case(
        "keras-legacy-optimizers",
        TF + "opt = tf.keras.optimizers.legacy.SGD(0.1)  # expect: keras-legacy-optimizers\n",
        TF + "opt = tf.keras.optimizers.SGD(0.1)\n",
    ),
    Case(
        "keras-session",
        "from tensorflow.keras import backend as K\n"
        "sess = K.get_session()  # expect: keras-session\n",
        TF + "sess = tf.compat.v1.get_default_session()\n",
    ),
    Case(
        "rnn-cell",
        V1 + "cell = tf.nn.rnn_cell.LSTMCell(8)  # expect: rnn-cell\n",
        V1 + "out = tf.nn.relu(x)\n",
    ),
    Case(
        "horovod",
        "import horovod.tensorflow as hvd  # expect: horovod\n"
        "hooks = [hvd.BroadcastGlobalVariablesHook(0)]  # expect: horovod\n",
        "import horovod.torch as hvd\nhvd.init()\n",
    ),
    Case(
        "supervisor",
        V1 + "tf.disable_eager_execution()\n"
        "sv = tf.train.Supervisor(logdir=d)  # expect: supervisor\n",
        V1 + "sess = tf.train.MonitoredTrainingSession()\n",
    ),
    Case(
        "import-meta-graph",
        V1 + "saver = tf.train.import_meta_graph(path + '.meta')  # expect: import-meta-graph\n",
        V1 + "saver = tf.train.Saver()\nsaver.restore(sess, path)\n",
    ),
    Case(
        "supervisor-eager",
        V1 + "sv = tf.train.Supervisor(logdir=d)  # expect: supervisor-eager\n"
        "import tf_slim as slim\nslim.learning.train(op, d)  # expect: supervisor-eager\n",
        V1 + "tf.disable_eager_execution()\nsv = tf.train.Supervisor(logdir=d)\n",
    ),
    Case(
        "slim-moved-names",
        "import tf_slim as slim\n"
        "image = slim.tfexample_decoder.Image(shape=[32, 32, 3])  # expect: slim-moved-names\n"
        "step = slim.local_variable(0)  # expect: slim-moved-names\n"
        "op = slim.optimize_loss(loss, step, 0.1, 'SGD')  # expect: slim-moved-names\n",
        "import tf_slim as slim\nlabel = slim.tfexample_decoder.Tensor('image/class/label')\n"
        "w = slim.model_variable('w', [3])\n",
    ),
    Case(
        "sync-replicas",
        TF + "opt = tf.compat.v1.train.SyncReplicasOptimizer(opt, 2)  # expect: sync-replicas\n",
        TF + "opt = tf.compat.v1.train.MomentumOptimizer(0.1, 0.9)\n",
    ),
    Case(
        "queue-runners",
        V1 + "q = tf.train.string_input_producer(files)  # expect: queue-runners\n",
        TF + "ds = tf.data.TFRecordDataset(files)\n",
    ),
    Case(
        "moving-average",
        TF + "ema = tf.train.ExponentialMovingAverage(0.999)  # expect: moving-average\n",
        TF + "ckpt = tf.train.Checkpoint()\n",
    ),
    Case(
        "lr-decay",
        V1 + "lr = tf.train.exponential_decay(0.1, step, 9, 0.5)  # expect: lr-decay\n",
        TF + "lr = tf.keras.optimizers.schedules.ExponentialDecay(0.1, 9, 0.5, staircase=True)\n",
    ),
    Case(
        "disable-v2-behavior",
        V1 + "tf.disable_v2_behavior()  # expect: disable-v2-behavior\n",
        V1 + "tf.disable_eager_execution()\n",
    ),
    Case(
        "tf-flags",
        TF + "flags = tf.app.flags  # expect: tf-flags\n",
        "from absl import flags\nflags.DEFINE_integer('steps', 10, 'steps')\n",
    ),
    Case(
        "tf-app", TF + "tf.app.run()  # expect: tf-app\n", "from absl import app\napp.run(main)\n"
    ),
    Case(
        "tf-logging",
        TF + "tf.logging.set_verbosity(tf.logging.INFO)  # expect: tf-logging\n",
        TF + "tf.compat.v1.logging.info('x')\n",
    ),
    Case(
        "tf-gfile",
        TF + "ok = tf.gfile.Exists(path)  # expect: tf-gfile\n",
        TF + "ok = tf.io.gfile.exists(path)\n",
    ),
    Case(
        "resize-images",
        TF + "y = tf.image.resize_images(x, [6, 6])  # expect: resize-images\n",
        TF + "y = tf.compat.v1.image.resize_images(x, [6, 6])\n",
    ),
    Case(
        "image-resize-v1",
        TF + "sess = tf.compat.v1.Session()\n"
        "y = tf.image.resize(x, [6, 6])  # expect: image-resize-v1\n",
        TF + "y = tf.image.resize(x, [6, 6])  # a TF 2 program: no session, no graph\n"
        "z = tf.compat.v1.image.resize(x, [6, 6])\n",
    ),
    Case(
        "v2-initializer-defaults",
        TF + "w = tf.compat.v1.get_variable('w', [3], initializer=tf.random_normal_initializer())"
        "  # expect: v2-initializer-defaults\n"
        "u = tf.random_uniform_initializer(maxval=0.1)  # expect: v2-initializer-defaults\n",
        TF + "sess = tf.compat.v1.Session()\nn = tf.random_normal_initializer(0, 1)\n"
        "u = tf.random_uniform_initializer(-0.1, 0.1)\n"
        "z = tf.random_normal_initializer(stddev=1)\n",
    ),
    Case(
        "sharded-embedding-lookup",
        TF + "part = tf.compat.v1.fixed_size_partitioner(3)\n"
        "emb = tf.compat.v1.get_variable('emb', [10, 4], partitioner=part)\n"
        "x = tf.nn.embedding_lookup(emb, ids)  # expect: sharded-embedding-lookup\n",
        TF + "x = tf.nn.embedding_lookup(table, ids)\n"
        "y = tf.compat.v1.nn.embedding_lookup([left, right], ids)\n",
    ),
    Case(
        "cast-shortcuts",
        TF + "y = tf.to_float(x)  # expect: cast-shortcuts\n",
        TF + "y = tf.cast(x, tf.float32)\n",
    ),
    Case(
        "random-ops",
        TF + "z = tf.random_normal([2, 3])  # expect: random-ops\n",
        TF + "z = tf.random.normal([2, 3])\n",
    ),
    Case(
        "v1-optimizer",
        TF + "opt = tf.train.GradientDescentOptimizer(0.1)  # expect: v1-optimizer\n",
        V1 + "opt = tf.train.GradientDescentOptimizer(0.1)\n",
    ),
    Case(
        "v1-graph-api",
        TF + "with tf.variable_scope('m'):  # expect: v1-graph-api\n"
        "    w = tf.get_variable('w', [3])  # expect: v1-graph-api\n",
        V1 + "with tf.variable_scope('m'):\n    w = tf.get_variable('w', [3])\n",
    ),
    Case(
        "v1-rename",
        TF + "n = tf.count_nonzero(x)  # expect: v1-rename\n",
        TF + "y = tf.where(c, a, b)\nn = tf.math.count_nonzero(x)\n",
    ),
    Case(
        "tf2-summary-in-v1-graph",
        TF + "sess = tf.compat.v1.Session()\n"
        "tf.summary.scalar('loss', loss)  # expect: tf2-summary-in-v1-graph\n",
        TF + "sess = tf.compat.v1.Session()\nwriter = tf.summary.create_file_writer(logdir)\n"
        "with writer.as_default():\n    tf.summary.scalar('loss', loss, step=1)\n",
    ),
    Case(
        "device-function",
        TF + "def place(op):\n    return '/cpu:0'\n"
        "setter = tf.compat.v1.train.replica_device_setter(ps_tasks=1)\n"
        "with tf.device(tf.compat.v1.train.replica_device_setter(1)):  # expect: device-function\n"
        "    pass\nwith tf.device(place):  # expect: device-function\n    pass\n"
        "with tf.device(lambda op: '/cpu:0'):  # expect: device-function\n    pass\n",
        TF + "with tf.compat.v1.device(setter):\n    pass\n"
        "with tf.device('/gpu:%d' % i):\n    pass\n"
        # a method's name reused for the string it returns (tf-slim's model_deploy)
        "class Deploy:\n    def clone_device(self, i):\n        return '/gpu:%d' % i\n"
        "clone_device = Deploy().clone_device(0)\nwith tf.device(clone_device):\n    pass\n",
    ),
    Case(
        "variable-op-type",
        "def ps_chooser(op):\n"
        "    if op.type in ['Variable', 'VariableV2']:  # expect: variable-op-type\n"
        "        return '/job:ps/task:0'\n"
        "    if 'Variable' in op.type:  # expect: variable-op-type\n        return ''\n"
        "    return '/job:ps/task:1' if op.node_def.op.startswith('Variable') else ''"
        "  # expect: variable-op-type\n"
        "PS_OPS = ['Variable', 'VariableV2', 'AutoReloadVariable']\n"
        "def assign_to_device(device, ps_device='/cpu:0'):\n"
        "    def _assign(op):\n"
        "        node_def = getattr(op, 'node_def', op)\n"
        "        return ps_device if node_def.op in PS_OPS else device"
        "  # expect: variable-op-type\n"
        "    return _assign\n",
        "def ps_chooser(op):\n"
        "    if op.type in ('Variable', 'VariableV2', 'VarHandleOp'):\n"
        "        return '/job:ps/task:0'\n    return op.device\n"
        "kind = 'Variable'\n"
        "VAR_OPS = ('Variable', 'VariableV2', 'VarHandleOp')\n"
        "def chooser(op):\n    return '/cpu:0' if op.type in VAR_OPS else op.device\n"
        "def assign_to_gpu(op):\n    return '/cpu:0' if op.node_def.op == 'Variable' else ''\n",
    ),
    Case(
        "xent-positional",
        TF + "xent = tf.nn.softmax_cross_entropy_with_logits(scores, onehot)"
        "  # expect: xent-positional\n"
        "bce = tf.compat.v1.nn.sigmoid_cross_entropy_with_logits(scores, targets)"
        "  # expect: xent-positional\n",
        TF + "xent = tf.nn.softmax_cross_entropy_with_logits(labels=onehot, logits=scores)\n"
        "ids = tf.nn.sparse_softmax_cross_entropy_with_logits(ids, logits=scores)\n",
    ),
    Case(
        "in-top-k-order",
        TF + "correct = tf.nn.in_top_k(logits, labels, 1)  # expect: in-top-k-order\n",
        TF + "correct = tf.math.in_top_k(targets=labels, predictions=logits, k=1)\n"
        "old = tf.compat.v1.nn.in_top_k(logits, labels, 1)\n",
    ),
    Case(
        "unknown-name",
        TF + "writer = tf.train.SummaryWriter(logdir)  # expect: unknown-name\n"
        "tf.compat.v1.scalar_summary('loss', loss)  # expect: unknown-name\n"
        "from tensorflow.examples.tutorials.mnist import input_data  # expect: unknown-name\n",
        TF + "writer = tf.compat.v1.summary.FileWriter(logdir)\ntf.compat.v1.app.flags.FLAGS\n"
        "opts = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)\n"
        "from tensorflow.python.ops import array_ops\n",
    ),
    Case(
        "eager-placeholder",
        TF + "x = tf.compat.v1.placeholder(tf.float32, [None, 3])  # expect: eager-placeholder\n",
        TF + "tf.compat.v1.disable_eager_execution()\n"
        "x = tf.compat.v1.placeholder(tf.float32, [None, 3])\n",
    ),
    Case(
        "keras-layers-in-v1-graph",
        V1 + "with tf.variable_scope('tower', reuse=True):\n"
        "    y = tf.keras.layers.Dense(10)(x)  # expect: keras-layers-in-v1-graph\n",
        TF + "model = tf.keras.Sequential([tf.keras.layers.Dense(10)])\n",
    ),
    Case(
        "keras-bn-in-v1-graph",
        V1 + "from tensorflow.keras import layers\nw = tf.get_variable('w', [3])\n"
        "y = layers.BatchNormalization()(x, training=True)  # expect: keras-bn-in-v1-graph\n",
        "from tensorflow.keras import layers\ny = layers.BatchNormalization()(x, training=True)\n",
    ),
    Case(
        "dropout-positional",
        TF + "y = tf.nn.dropout(x, 0.9)  # expect: dropout-positional\n",
        TF + "y = tf.nn.dropout(x, rate=0.1)\nz = tf.compat.v1.nn.dropout(x, 0.9)\n",
    ),
    Case(
        "keras-input-tensor",
        TF + "u = tf.keras.layers.Input(tensor=users)  # expect: keras-input-tensor\n",
        TF + "u = tf.keras.Input(shape=(3,))\n",
    ),
    Case(
        "renamed-args",
        TF + "m = tf.reduce_mean(x, axis=1, keep_dims=True)  # expect: renamed-args\n",
        V1 + "m = tf.reduce_mean(x, axis=1, keep_dims=True)\n",
    ),
    Case(
        "amp-graph-rewrite",
        TF + "opt = tf.train.experimental.enable_mixed_precision_graph_rewrite(opt)"
        "  # expect: amp-graph-rewrite\n",
        TF + "opt = tf.compat.v1.train.MomentumOptimizer(0.1, 0.9)\n",
    ),
    Case(
        "v1-loss-scale",
        TF + "scale = tf.compat.v1.mixed_precision.DynamicLossScale()  # expect: v1-loss-scale\n"
        "opt = tf.train.experimental.MixedPrecisionLossScaleOptimizer(opt, scale)"
        "  # expect: v1-loss-scale\n",
        "import keras\nopt = keras.optimizers.LossScaleOptimizer(opt)\n",
    ),
    Case(
        "keras2-mixed-precision",
        TF + "from tensorflow.keras.mixed_precision import experimental as mp\n"
        "mp.set_policy(mp.Policy('mixed_float16'))  # expect: keras2-mixed-precision\n",
        "import keras\nkeras.mixed_precision.set_global_policy('mixed_float16')\n",
    ),
    Case(
        "keras2-loss-scale",
        TF + "opt = tf.keras.mixed_precision.LossScaleOptimizer(sgd, dynamic=False)"
        "  # expect: keras2-loss-scale\n"
        "scaled = opt.get_scaled_loss(loss)  # expect: keras2-loss-scale\n"
        "grads = opt.get_unscaled_gradients(g)  # expect: keras2-loss-scale\n",
        "import keras\nopt = keras.optimizers.LossScaleOptimizer(sgd, dynamic_growth_steps=1000)\n"
        "scaled = opt.scale_loss(loss)\n",
    ),
]
CASES += [
    Case(*c)
    for c in SELF_CAST + KEPT_CONTRIB + RUNTIME + LOSSES + STYLEGAN + NATIVE + FIXMATCH + RESEARCH
]

# What tf_upgrade_v2 gets wrong, line by line (test_port_scan.py::test_tf_upgrade_v2_blind_spots).
UPGRADE_TF = (
    "import tensorflow as tf\n"
    "h = tf.layers.dense(x, 10)\n"
    "b = tf.layers.batch_normalization(h, training=True)\n"
    "with tf.device(tf.train.replica_device_setter(ps_tasks=1)):\n"
    "    n = x.get_shape()[1].value\n"
    "tf.summary.scalar('loss', b)\n"
    "opt = tf.keras.optimizers.Adam()\n"
    "r = tf.image.resize_images(x, [6, 6])\n"
    "s = tf.Session()\n"
    "k = tf.keras.backend.get_session()\n"
)
UPGRADE_V1 = (
    "import tensorflow.compat.v1 as tf\n"
    "import tensorflow.contrib.slim as slim\n"
    "h = tf.layers.dense(x, 10)\n"
)


def expected_lines(source: str) -> Dict[str, List[int]]:
    """rule -> the lines `# expect:` (`// expect:` in C++) comments point at."""
    marks: Dict[str, List[int]] = {}
    for number, line in enumerate(source.splitlines(), start=1):
        code, _, mark = line.partition("// expect:" if "// expect:" in line else "# expect:")
        if mark:
            target = number + 1 if not code.strip() else number
            for rule in mark.split(","):
                marks.setdefault(rule.strip(), []).append(target)
    return marks
