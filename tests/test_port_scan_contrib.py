"""The scanner's verdict on tf.contrib under ``--compat`` against what the
program does after tf1_train.compat.install(): every line it says breaks
raises, every other line runs.

A TF1 program reaches contrib in several spellings: ``tf.contrib.crf.X``
after ``import tensorflow as tf``, the same after ``import
tensorflow.compat.v1 as tf`` (the migration guide's first step; TF 1.x's
``tf.compat.v1.contrib`` was ``tf.contrib``), ``crf = tf.contrib.crf``, and
``from tensorflow.contrib import crf``. The scanner once reported nothing on
the second and a break on the third, which both run.
"""

import pytest
from conftest import raising_lines

from tf1_train.compat import _contrib_slim
from tf1_train.port import scan

TF2 = "import tensorflow as tf\n"
V1 = "import tensorflow.compat.v1 as tf\n"
CHAINS = (
    "f = tf.contrib.crf.crf_log_likelihood\n"
    "c = tf.contrib.rnn.LSTMCell\n"
    "g = tf.contrib.rnn.GridLSTMCell\n"  # contrib-only, not kept
    "s = tf.contrib.legacy_seq2seq.rnn_decoder\n"
    "q = tf.contrib.quantize.create_training_graph\n"  # a placeholder's name
    "b = tf.contrib.rnn.LSTMBlockFusedCell\n"
)

# (program, the lines that raise after install())
CASES = {
    "tf_attributes": (TF2 + CHAINS, {4, 6}),
    "compat_v1_attributes": (V1 + CHAINS, {4, 6}),
    "aliased_modules": (
        TF2 + "tf = tf.compat.v1\n"
        "crf = tf.contrib.crf\n"
        "d = crf.crf_decode\n"
        "seq = tf.contrib.legacy_seq2seq\n"
        "loss = seq.sequence_loss_by_example\n"
        "slim = tf.contrib.slim\n"
        "fc = tf.contrib.layers\n"
        "col = fc.real_valued_column\n",  # a feature column: not in tf-slim
        {9},
    ),
    "tf_slim_served": (
        V1 + "slim = tf.contrib.slim\n"
        "conv = slim.conv2d\n"
        "from tensorflow.contrib.slim.nets import resnet_v1\n"
        "init = tf.contrib.layers.xavier_initializer\n"
        "l2 = tf.contrib.layers.l2_regularizer\n"
        "bn = tf.contrib.layers.batch_norm\n"
        "emb = tf.contrib.layers.embed_sequence\n"
        "col = tf.contrib.layers.real_valued_column\n"
        "from tensorflow.contrib.framework import arg_scope\n"
        "order = tf.contrib.framework.sort\n"
        "from tensorflow.contrib.layers import bow_encoder\n"
        "import tensorflow.contrib.slim as slim2\n"
        "net = slim2.nets.vgg.vgg_16\n"
        "from tensorflow.contrib.slim.python.slim.nets import resnet_utils\n"
        "from tensorflow.contrib.layers.python.layers import utils\n"
        "from tensorflow.contrib.framework.python.ops import add_arg_scope\n"
        "nest = tf.contrib.framework.nest\n"
        "run = tf.contrib.framework.py_func\n"
        "from tensorflow.contrib.layers.python.ops import sparse_ops\n"
        "import tensorflow.contrib.framework.python.framework\n"
        "from tensorflow.contrib.slim.python import slim as slim3\n"
        "seq = slim.embed_sequence\n"  # TF 1.15's slim had contrib.layers' names; tf-slim not
        "step = tf.contrib.slim.learning.train\n",
        {9, 12, 19, 20, 23},
    ),
    "imports": (
        "from tensorflow.compat.v1.contrib import crf\n"
        "from tensorflow.compat.v1.contrib import rnn\n"
        "from tensorflow.contrib.rnn import GRUCell\n"
        "from tensorflow.contrib.training import HParams\n"
        "import tensorflow.compat.v1.contrib.legacy_seq2seq as s2s\n"
        "v = crf.viterbi_decode\n"
        "w = s2s.embedding_attention_seq2seq\n"
        "p = rnn.NASCell\n"
        "import tensorflow.contrib.slim as slim\n"
        "from tensorflow.contrib.training import batch_sequences_with_states\n"
        "hp = HParams(lr=0.1).parse('lr=0.2')\n"
        "from tensorflow.contrib import distributions as tfd\n"
        "kl = tfd.kl_divergence\n"
        "mvn = tfd.MultivariateNormalDiag\n",
        {10, 14},
    ),
    "eager": (
        V1 + "tfe = tf.contrib.eager\n"
        "import tensorflow.contrib.eager as tfe2\n"
        "grad = tfe.implicit_gradients\n"
        "it = tfe2.Iterator\n"
        "net = tfe.Network\n"  # contrib's own class
        "from tensorflow.contrib.eager import Saver\n"
        "var = tf.contrib.eager.Variable\n",
        {6, 7},
    ),
    "tpu": (  # BERT's run_classifier.py reaches these with use_tpu=False
        TF2 + "tf = tf.compat.v1\n"
        "spec = tf.contrib.tpu.TPUEstimatorSpec\n"
        "per_host = tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2\n"
        "from tensorflow.contrib.tpu import RunConfig, TPUConfig, TPUEstimator\n"
        "opt = tf.contrib.tpu.CrossShardOptimizer\n"
        "keras = tf.contrib.tpu.keras_to_tpu_model\n"  # contrib's own, gone
        "resolver = tf.contrib.cluster_resolver.TPUClusterResolver\n"
        "union = tf.contrib.cluster_resolver.UnionClusterResolver\n",
        {7},
    ),
    "estimator": (
        TF2 + "tf = tf.compat.v1\n"
        "head = tf.contrib.estimator.multi_class_head\n"
        "from tensorflow.contrib.estimator import stop_if_no_decrease_hook\n"
        "dnn = tf.contrib.estimator.DNNEstimator\n"
        "replicate = tf.contrib.estimator.replicate_model_fn\n"  # gone: MirroredStrategy
        "multi_label = tf.contrib.estimator.multi_label_head\n",
        {6, 7},
    ),
    "distribute": (  # tensorflow/models' official models of TF 1.12-1.14
        TF2 + "tf = tf.compat.v1\n"
        "mirrored = tf.contrib.distribute.MirroredStrategy(num_gpus=0)\n"
        "from tensorflow.contrib.distribute import OneDeviceStrategy, DistributeConfig\n"
        "ps = tf.contrib.distribute.ParameterServerStrategy\n"
        "context = tf.contrib.distribute.get_replica_context\n"
        "tpu = tf.contrib.distribute.TPUStrategy\n"  # gone: tf.distribute.TPUStrategy
        "ops = tf.contrib.distribute.AllReduceCrossDeviceOps\n",  # gone: NcclAllReduce
        {7, 8},
    ),
    "opt": (  # LARS in large-batch ResNets, PowerSign with its decays
        V1 + "lars = tf.contrib.opt.LARSOptimizer\n"
        "from tensorflow.contrib.opt.python.training import sign_decay as sd\n"
        "decay = sd.get_cosine_decay_fn\n"
        "import tensorflow.contrib.opt.python.training.powersign as ps\n"
        "power = ps.PowerSignOptimizer\n"
        "from tensorflow.contrib.opt import AdamGSOptimizer, DropStaleGradientOptimizer\n"
        "ea = tf.contrib.opt.ElasticAverageOptimizer\n"  # between-graph elastic averaging
        "from tensorflow.contrib.opt.python.training import elastic_average_optimizer as eao\n"
        "getter = eao.ElasticAverageCustomGetter\n"
        "ma = tf.contrib.opt.AGNOptimizer\n"  # gone
        "from tensorflow.contrib.opt.python.training import shampoo\n",
        {11, 12},
    ),
    "metrics": (  # segmentation and regression evaluation code
        V1 + "auc = tf.contrib.metrics.streaming_auc\n"
        "from tensorflow.contrib.metrics import streaming_mean_iou, aggregate_metric_map\n"
        "import tensorflow.contrib.metrics as tcm\n"
        "r = tcm.streaming_pearson_correlation\n"
        "k = tf.contrib.metrics.cohen_kappa\n"
        "h = tf.contrib.metrics.auc_using_histogram\n"
        "d = tcm.streaming_dynamic_auc\n"
        "x = tf.contrib.metrics.streaming_roc_auc\n",  # not a name of TF 1.15's module
        {9},
    ),
    "package_graph_editor_staging": (  # baselines' DDPG and HER, the GPT-2 trainers
        "import tensorflow.contrib as tc\n"
        "reg = tc.layers.l2_regularizer\n"
        "import tensorflow.contrib.graph_editor as ge\n"
        "copy = ge.copy_with_input_replacements\n"
        "from tensorflow.contrib.graph_editor import subgraph\n"
        "view = subgraph.SubGraphView\n"
        "from tensorflow.contrib.staging import StagingArea\n"
        "import tensorflow.contrib.staging as staging\n"
        "put = staging.StagingArea\n"
        "gone = ge.match_ops\n",  # not a name of TF 1.15's graph editor
        {10},
    ),
    "seq2seq_ops_and_projector": (  # Rayhane-mamah's Tacotron-2, word2vec's projector
        TF2 + "tf = tf.compat.v1\n"
        "from tensorflow.contrib.seq2seq.python.ops import decoder, helper as helper_py\n"
        "from tensorflow.contrib.seq2seq.python.ops.attention_wrapper import BahdanauAttention\n"
        "base = decoder.Decoder\n"
        "from tensorflow.contrib.seq2seq.python.ops.attention_wrapper import _bahdanau_score\n"
        "import tensorflow.contrib.seq2seq.python.ops.no_such_module\n"
        "config = tf.contrib.tensorboard.plugins.projector.ProjectorConfig\n"
        "from tensorflow.contrib.tensorboard.plugins import projector\n"
        "write = projector.visualize_embeddings\n"
        "trace = tf.contrib.tensorboard.plugins.trace\n",  # not served
        {6, 7, 11},
    ),
    "signal": (  # keithito/tacotron's Griffin-Lim in TensorFlow
        TF2 + "tf = tf.compat.v1\n"
        "stft = tf.contrib.signal.stft\n"
        "from tensorflow.contrib.signal import inverse_stft, hann_window\n"
        "import tensorflow.contrib.signal as signal\n"
        "mel = signal.linear_to_mel_weight_matrix\n"
        "frames = tf.contrib.signal.frames\n",  # dropped by TF 1.15's remove_undocumented
        {7},
    ),
    "nn": (  # the Inception trainer's private slim, SELU networks
        TF2 + "tf = tf.compat.v1\n"
        "xent = tf.contrib.nn.deprecated_flipped_softmax_cross_entropy_with_logits\n"
        "from tensorflow.contrib.nn import alpha_dropout, scaled_softplus\n"
        "import tensorflow.contrib.nn as contrib_nn\n"
        "loss = contrib_nn.rank_sampled_softmax_loss\n"
        "fwd = tf.contrib.nn.fwd_gradients\n",  # in its folder, not exported by TF 1.15
        {7},
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_scan_under_compat_breaks_exactly_where_the_installed_program_raises(
    tmp_path, installed, name
):
    source, expected = CASES[name]
    (tmp_path / "prog.py").write_text(source)
    report = scan.scan([str(tmp_path)], compat=True)
    scanned = {f.line for f in report.findings if f.severity == "breaks"}
    assert raising_lines(source) == expected
    assert scanned == expected, [f for f in report.findings if f.severity == "breaks"]


@pytest.mark.parametrize("name", ["tf_attributes", "compat_v1_attributes"])
def test_without_compat_every_contrib_line_breaks(tmp_path, name):
    (tmp_path / "prog.py").write_text(CASES[name][0])
    report = scan.scan([str(tmp_path)])
    assert {f.line for f in report.findings if f.severity == "breaks"} == {2, 3, 4, 5, 6, 7}


def test_without_tf_slim_its_contrib_submodules_stay_missing_in_scan_and_run(
    tmp_path, installed, monkeypatch
):
    monkeypatch.setattr(_contrib_slim, "available", lambda: False)
    source = CASES["tf_slim_served"][0]
    (tmp_path / "prog.py").write_text(source)
    report = scan.scan([str(tmp_path)], compat=True)
    every_contrib_line = set(range(2, 25))
    assert raising_lines(source) == every_contrib_line
    assert {f.line for f in report.findings if f.severity == "breaks"} == every_contrib_line


def test_contrib_keras_is_named_as_the_tf_keras_it_was(tmp_path):
    """TF 1.x's tf.contrib.keras held tf.keras' own objects (the TensorFlow cookbook's
    ``tf.contrib.keras.datasets.cifar10.load_data()``)."""
    (tmp_path / "prog.py").write_text(
        "import tensorflow as tf\n(x, y), _ = tf.contrib.keras.datasets.cifar10.load_data()\n"
    )
    (found,) = scan.scan([str(tmp_path)], v1=True).findings
    assert found.severity == "breaks"
    assert "keras -> tf.keras (contrib.keras was its alias" in found.fix
