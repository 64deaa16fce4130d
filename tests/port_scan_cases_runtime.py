"""Trigger and twin snippets (rule, trigger, clean) for what a program hits
when it runs beyond TensorFlow's API table: NVIDIA's mixed-precision
environment variables (tf1_train/port/checks.py), TF 1.4's flags
(tests/port_scan_cases_flags.py), a seeded shuffle then repeat
(port_scan_cases_shuffle.py), NumPy's removed builtin aliases and
removed names (tf1_train/port/numpy_rules.py; NumPy 2's other removals and
``.value`` on shapes: port_scan_cases_fixmatch.py), SciPy's removals
(tf1_train/port/scipy_rules.py), Python 2 names in Python 3 source
(tf1_train/port/py2_rules.py), Python 3 names later Pythons removed
(tf1_train/port/py3_rules.py), a step counter found by its name
(tf1_train/port/global_step_rules.py), a variable fetched with its update
(tf1_train/port/fetch_rules.py), TensorFlow's private modules
(tf1_train/port/private_paths.py), the freeze scripts' batch-norm fix
(tf1_train/port/freeze_rules.py), ``v += x`` on a variable
(tf1_train/port/variable_rules.py), librosa 0.10's keyword-only arguments and
defaults (tf1_train/port/librosa_rules.py), Keras 2's modules under Keras 3
(tf1_train/port/keras2_rules.py), ``v.initialized_value()``
(tf1_train/port/init_rules.py); joined to tests/port_scan_cases.py's
CASES. Snippets are never run."""

from tests.port_scan_cases_flags import FLAGS
from tests.port_scan_cases_shuffle import SHUFFLE

TF = "import tensorflow as tf\n"

RUNTIME = [
    (
        "amp-env-var",
        "import os\nos.environ['TF_ENABLE_AUTO_MIXED_PRECISION'] = '1'  # expect: amp-env-var\n"
        "os.environ.setdefault('TF_ENABLE_AUTO_MIXED_PRECISION_GRAPH_REWRITE', '1')"
        "  # expect: amp-env-var\n",
        "import os\nos.environ['TF_ENABLE_ONEDNN_OPTS'] = '1'\n",
    ),
    (
        "unplaced-shared-queue",
        TF + "cluster = tf.train.ClusterSpec({'ps': ps_hosts, 'worker': worker_hosts})\n"
        "def barrier(n, task):\n"
        "    queues = [tf.FIFOQueue(n, [tf.bool], shapes=[[]], shared_name='sync_%d' % i)"
        "  # expect: unplaced-shared-queue\n"
        "              for i in range(n)]\n"
        "    return queues[task].dequeue_many(n - 1)\n"
        "acc = tf.ConditionalAccumulator(tf.float32, shared_name='acc')"
        "  # expect: unplaced-shared-queue\n"
        "def token_queue():\n"
        "    return tf.FIFOQueue(1, [tf.int32], shared_name='token')"
        "  # expect: unplaced-shared-queue\n"
        "with tf.device('/job:ps/task:0'):\n    first = token_queue()\nsecond = token_queue()\n",
        TF + "cluster = tf.train.ClusterSpec({'ps': ps_hosts, 'worker': worker_hosts})\n"
        "def barrier(n, task):\n"
        "    with tf.device('/job:ps/task:0'):\n"
        "        queues = [tf.FIFOQueue(n, [tf.bool], shapes=[[]], shared_name='sync_%d' % i)\n"
        "                  for i in range(n)]\n"
        "    return queues[task].dequeue_many(n - 1)\n"
        "with tf.compat.v1.colocate_with(global_step):\n"
        "    acc = tf.ConditionalAccumulator(tf.float32, shared_name='acc')\n"
        "local = tf.FIFOQueue(4, [tf.float32])\n"
        "def token_queue():\n    return tf.FIFOQueue(1, [tf.int32], shared_name='token')\n"
        "def tokens():\n    return token_queue()\n"
        "with tf.device('/job:ps/task:0'):\n    queue = tokens()\n",
    ),
    (
        "initialized-value",
        TF + "tvs = tf.trainable_variables()\n"
        "accum = [tf.Variable(tf.zeros_like(tv.initialized_value()), trainable=False)"
        " for tv in tvs]  # expect: initialized-value\n"
        "w2 = tf.Variable(w.initialized_value() * 2.0, name='w2')  # expect: initialized-value\n",
        TF + "tvs = tf.trainable_variables()\n"
        "accum = [tf.Variable(tf.zeros_like(tv.initial_value), trainable=False) for tv in tvs]\n"
        "w2 = tf.Variable(w.initial_value * 2.0, name='w2')\n"
        "value = hparams.initialized_value(name)\n",
    ),
    (
        "keras-initializer-seed",
        TF + "from tensorflow.keras import initializers\nimport keras\n"
        "w = tf.get_variable('w', [3, 4], initializer=tf.keras.initializers.he_normal(seed=1))"
        "  # expect: keras-initializer-seed\n"
        "init = initializers.VarianceScaling(2.0, seed=SEED)  # expect: keras-initializer-seed\n"
        "init = keras.initializers.GlorotUniform(seed=3)  # expect: keras-initializer-seed\n",
        TF + "from tensorflow.keras import initializers\n"
        "w = tf.get_variable('w', [3, 4], initializer=tf.glorot_uniform_initializer(seed=1))\n"
        "init = initializers.he_normal()\ninit = initializers.RandomNormal(seed=None)\n"
        "init = tf.variance_scaling_initializer(2.0, seed=1)\n",
    ),
    (
        "batch-norm-epsilon-floor",
        TF + "import tf_slim as slim\nfrom tf_slim.nets import resnet_utils\n"
        "_BATCH_NORM_EPSILON = 1e-5\n"
        "y = tf.layers.batch_normalization(x, epsilon=_BATCH_NORM_EPSILON)"
        "  # expect: batch-norm-epsilon-floor\n"
        "y = slim.batch_norm(x, epsilon=1e-6)  # expect: batch-norm-epsilon-floor\n"
        "y = tf.nn.fused_batch_norm(x, s, o, epsilon=0.00001)  # expect: batch-norm-epsilon-floor\n"
        "scope = resnet_utils.resnet_arg_scope()  # expect: batch-norm-epsilon-floor\n"
        "scope = resnet_utils.resnet_arg_scope(batch_norm_epsilon=1e-5)"
        "  # expect: batch-norm-epsilon-floor\n"
        "params = {'decay': 0.997, 'epsilon': 1e-5}  # expect: batch-norm-epsilon-floor\n",
        TF + "import tf_slim as slim\nfrom tf_slim.nets import resnet_utils\n"
        "_BATCH_NORM_EPSILON = 1.001e-5\n"
        "y = tf.layers.batch_normalization(x, epsilon=_BATCH_NORM_EPSILON)\n"
        "y = tf.layers.batch_normalization(x, epsilon=1e-5, fused=False)\n"
        "y = slim.batch_norm(x, epsilon=1e-3)\ny = slim.batch_norm(x)\n"
        "scope = resnet_utils.resnet_arg_scope(batch_norm_epsilon=1e-3)\n"
        "params = {'decay': 0.997, 'epsilon': 0.001}\nopt = tf.train.AdamOptimizer(epsilon=1e-8)\n",
    ),
    (
        "loop-lookup-gradient",
        TF + "opt = tf.train.MomentumOptimizer(0.1, 0.9)\nemb = tf.get_variable('emb', [10, 4])\n"
        "def body(t, h):\n"
        "    x = tf.nn.embedding_lookup(emb, ids[:, t])  # expect: loop-lookup-gradient\n"
        "    return t + 1, h + x\n"
        "tf.while_loop(cond, body, [0, h0])\n"
        "tf.while_loop(cond, lambda t, h: (t + 1, tf.nn.embedding_lookup(emb, t)), [0, h0])"
        "  # expect: loop-lookup-gradient\n"
        "out = tf.scan(fn=lambda a, i: tf.nn.embedding_lookup(emb, i), elems=ids)"
        "  # expect: loop-lookup-gradient\n"
        "class Cell(tf.nn.rnn_cell.RNNCell):\n"
        "    def call(self, inputs, state):\n"
        "        return tf.nn.embedding_lookup(emb, inputs), state"
        "  # expect: loop-lookup-gradient\n"
        "h = tf.contrib.seq2seq.ScheduledEmbeddingTrainingHelper(x, n, emb, 0.5)"
        "  # expect: loop-lookup-gradient\n"
        "cell = tf.contrib.rnn.EmbeddingWrapper(cell, 10, 4)  # expect: loop-lookup-gradient\n"
        "outputs, _ = tf.nn.dynamic_rnn(cell, ids, dtype=tf.float32)\n",
        TF + "opt = tf.train.MomentumOptimizer(0.1, 0.9)\nemb = tf.get_variable('emb', [10, 4])\n"
        "x = tf.nn.embedding_lookup(emb, ids)\n"
        "def body(t, h):\n    return t + 1, h + tf.gather(x, t)\n"
        "tf.while_loop(cond, body, [0, h0])\n"
        "cell = tf.contrib.rnn.EmbeddingWrapper(cell, 10, 4)\n"
        "outputs, _ = tf.contrib.legacy_seq2seq.rnn_decoder(inputs, state, cell)\n"
        "helper = tf.contrib.seq2seq.TrainingHelper(x, n)\n"
        "class Model(object):\n    def call(self, ids):\n"
        "        return tf.nn.embedding_lookup(emb, ids)\n",
    ),
    (
        "numpy-builtin-alias",
        "import numpy\nimport numpy as np\nn = np.int(x)  # expect: numpy-builtin-alias\n"
        "a = numpy.zeros(3, dtype=numpy.float)  # expect: numpy-builtin-alias\n",
        "import numpy as np\nn = int(x)\na = np.zeros(3, np.float32)\nb = np.bool_(1)\n",
    ),
    (
        "numpy-removed-alias",
        "import numpy as np\nx = np.float_(1)  # expect: numpy-removed-alias\n"
        "y = np.asscalar(a) + np.NaN  # expect: numpy-removed-alias\n"
        "z = np.product(a)  # expect: numpy-removed-alias\n",
        "import numpy as np\nx = np.float64(1)\ny = a.item() + np.nan\nz = np.prod(a)\n",
    ),
    (
        "scipy-moved",
        "import scipy.misc\nfrom scipy import integrate, signal\n"
        "from scipy.misc import comb  # expect: scipy-moved\n"
        "s = scipy.misc.logsumexp(a)  # expect: scipy-moved\n"
        "t = integrate.trapz(y) + integrate.cumtrapz(y)[-1]  # expect: scipy-moved\n"
        "w = signal.hann(8)  # expect: scipy-moved\n",
        "import scipy.special\nfrom scipy import integrate, signal\n"
        "from scipy.special import comb\ns = scipy.special.logsumexp(a)\n"
        "t = integrate.trapezoid(y)\nw = signal.windows.hann(8)\n"
        "g = signal.get_window('hann', 8)\n",
    ),
    (
        "scipy-private-module",
        "from scipy.sparse.linalg.eigen.arpack import eigsh  # expect: scipy-private-module\n"
        "import scipy.sparse.linalg.eigen.lobpcg  # expect: scipy-private-module\n",
        "from scipy.sparse.linalg import eigsh, lobpcg\nimport scipy.sparse.linalg\n",
    ),
    (
        "scipy-removed",
        "import scipy.misc\nfrom scipy import integrate\n"
        "from scipy.misc import imread, imsave  # expect: scipy-removed\n"
        "small = scipy.misc.imresize(image, (64, 64))  # expect: scipy-removed\n"
        "area = integrate.simps(y, x)  # expect: scipy-removed\n",
        "import imageio\nfrom scipy import integrate\nimage = imageio.v2.imread(path)\n"
        "area = integrate.simpson(y, x=x)\n",
    ),
    (
        "scipy-interp-repeats",
        "from scipy import interpolate\nfrom scipy.interpolate import interp1d\n"
        "f = interpolate.interp1d(far, ts, kind='slinear')  # expect: scipy-interp-repeats\n"
        "g = interp1d(x, y, 'zero')  # expect: scipy-interp-repeats\n",
        "import numpy as np\nfrom scipy import interpolate\n"
        "threshold = np.interp(far_target, far, ts)\n"
        "f = interpolate.interp1d(x, y)\ng = interpolate.interp1d(x, y, kind='cubic')\n",
    ),
    (
        "numpy-load-pickle",
        "import numpy as np\n"
        "d = np.load(path, encoding='latin1').item()  # expect: numpy-load-pickle\n"
        "w = np.load(path)[()]  # expect: numpy-load-pickle\n"
        "v = np.load(path, encoding='bytes')  # expect: numpy-load-pickle\n",
        "import numpy as np\n"
        "d = np.load(path, allow_pickle=True, encoding='latin1').item()\n"
        "a = np.load(path)\nn = a.item()\nz = np.load(path)['w']\n",
    ),
    (
        "freeze-ref-ops",
        "for node in gd.node:\n"
        "    if node.op == 'RefSwitch':  # expect: freeze-ref-ops\n"
        "        node.op = 'Switch'\n"
        "    elif node.op == 'AssignSub':  # expect: freeze-ref-ops\n"
        "        node.op = 'Sub'\n",
        "for node in gd.node:\n"
        "    if node.op in ('AssignSubVariableOp', 'AssignAddVariableOp'):\n"
        "        node.op = 'NoOp'\n"
        "    elif node.op == 'AssignSub':\n"
        "        node.op = 'Sub'\n"
        "if op.type == 'Switch':\n    pass\n",
    ),
    (
        "variable-iadd",
        "import tensorflow.compat.v1 as tf\n"
        "b = tf.get_variable('b', [9])\nb += eye  # expect: variable-iadd\n"
        "def f():\n    w = tf.Variable(init)\n    w -= 1.0  # expect: variable-iadd\n"
        "def towers(p=None):\n    p = tf.get_variable('p', [])\n    for k in range(2):\n"
        "        p += loss  # expect: variable-iadd\n    return tf.exp(p)\n",
        "import tensorflow.compat.v1 as tf\n"
        "b = tf.get_variable('b', [9])\nb = b + eye\nt = tf.zeros([2])\nt += 1.0\n"
        "r = tf.get_variable('r', [2], use_resource=False)\nr += 1.0\ndef f(w):\n    w -= 1.0\n"
        "def g():\n    p = tf.get_variable('p', [])\n    p = p * 2\n    p += 1\n",
    ),
    (
        "variable-iadd-v2",
        "import tensorflow as tf\nv = tf.Variable(init)\nv *= 2.0  # expect: variable-iadd-v2\n",
        "import tensorflow as tf\nv = tf.Variable(init)\nv //= 2.0\nu = v * 2.0\n",
    ),
    (
        "feed-variable",
        "import tensorflow.compat.v1 as tf\n"
        "class Model:\n"
        "    def __init__(self):\n"
        "        self.learning_rate = tf.Variable(0.0, trainable=False)\n"
        "def train(sess, model, op, lr, x):\n"
        "    feed = {model.x: x, model.learning_rate: lr}  # expect: feed-variable\n"
        "    sess.run(op, feed_dict=feed)\n"
        "    w = tf.get_variable('w', [2])\n"
        "    sess.run(op, {w: lr})  # expect: feed-variable\n",
        "import tensorflow.compat.v1 as tf\n"
        "class Model:\n"
        "    def __init__(self):\n"
        "        self.learning_rate = tf.placeholder_with_default(0.1, [])\n"
        "        self.x = tf.Variable(0.0)\n"
        "        self.x = tf.placeholder(tf.float32)\n"
        "def train(sess, model, op, lr, x):\n"
        "    sess.run(op, feed_dict={model.x: x, model.learning_rate: lr})\n"
        "    w = tf.get_variable('w', [2])\n"
        "    w.load(lr, sess)\n"
        "    bounds = {w: (0, 1)}\n",
    ),
    (
        "feed-variable-v2",
        "import tensorflow as tf\nw = tf.Variable(init)\n"
        "loss_at = sess.run(loss, feed_dict={w: value})  # expect: feed-variable-v2\n",
        "import tensorflow as tf\nw = tf.Variable(init)\nw.assign(value)\n"
        "loss_at = sess.run(loss)\n",
    ),
    (
        "private-path",
        "from tensorflow.python.framework import graph_util, ops\n"
        "from tensorflow.python.ops.rnn_cell_impl import _linear  # expect: private-path\n"
        "g = graph_util.convert_variables_to_constants(sess, gd, out)  # expect: private-path\n"
        "ok = isinstance(x, ops.Tensor)  # expect: private-path\n",
        "import tensorflow as tf\nfrom tensorflow.python.framework import graph_util, ops\n"
        "from tensorflow.python.ops import rnn_cell_impl\n"
        "g = tf.compat.v1.graph_util.convert_variables_to_constants(sess, gd, out)\n"
        "ok = isinstance(x, tf.Tensor)\ncell = rnn_cell_impl.LSTMCell(8)\n"
        "d = ops.convert_to_tensor(x)\n",
    ),
    (
        "python2-name",
        "import os\nimport string\nimport sys\n"
        "for k, v in stat.iteritems():  # expect: python2-name\n    pass\n"
        "for i in xrange(3):  # expect: python2-name\n    pass\n"
        "import cPickle  # expect: python2-name\n"
        "s = string.letters  # expect: python2-name\n"
        "print >>sys.stderr, 'done'  # expect: python2-name\n"
        "ok = d.has_key('a')  # expect: python2-name\n"
        "top = os.walk(path).next()  # expect: python2-name\n",
        "import os\nimport six\nimport string\nimport sys\n"
        "for k, v in six.iteritems(stat):\n    pass\nfor k, v in stat.items():\n    pass\n"
        "try:\n    import cPickle as pickle\nexcept ImportError:\n    import pickle\n"
        "if sys.version_info[0] == 2:\n    text = unicode(x)\n"
        "try:\n    xrange\nexcept NameError:\n    xrange = range\nn = list(xrange(3))\n"
        "s = string.ascii_letters\nprint('done', file=sys.stderr)\nok = 'a' in d\n"
        "top = next(os.walk(path))\nbatch = dataset_iter.next()\n",
    ),
    (
        "librosa-keyword-only",
        "import librosa\nimport librosa.filters\nfrom librosa.core import resample\n"
        "m = librosa.filters.mel(22050, 2048, n_mels=80)  # expect: librosa-keyword-only\n"
        "y = resample(x, 22050, 16000, res_type='soxr_hq')  # expect: librosa-keyword-only\n"
        "d = librosa.amplitude_to_db(s, np.max)  # expect: librosa-keyword-only\n",
        "import librosa\nm = librosa.filters.mel(sr=22050, n_fft=2048, n_mels=80)\n"
        "y = librosa.resample(x, orig_sr=22050, target_sr=16000)\nd = librosa.amplitude_to_db(s)\n"
        "w = librosa.load(path, *rest)\n",
    ),
    (
        "librosa-default",
        "import librosa\nfrom librosa import feature\n"
        "s = librosa.stft(y=y, n_fft=2048, hop_length=275)  # expect: librosa-default\n"
        "w, sr = librosa.core.load(path, sr=20000)  # expect: librosa-default\n"
        "c = feature.mfcc(y=w, sr=sr, n_mfcc=13)  # expect: librosa-default\n"
        "t, _ = librosa.effects.trim(w, top_db=60)  # expect: librosa-default\n",
        "import librosa\nfrom librosa import feature\n"
        "s = librosa.stft(y=y, n_fft=2048, hop_length=275, pad_mode='reflect')\n"
        "f = librosa.stft(y, n_fft=2048, center=False)\n"
        "w, sr = librosa.load(path, sr=None)\nm = feature.mfcc(S=log_mel, n_mfcc=13)\n"
        "r = librosa.resample(w, orig_sr=sr, target_sr=16000, res_type='kaiser_best')\n",
    ),
    (
        "librosa-removed",
        "import librosa\nlibrosa.output.write_wav(path, y, sr)  # expect: librosa-removed\n"
        "from librosa.util import example_audio_file  # expect: librosa-removed\n"
        "import librosa.output  # expect: librosa-removed\n"
        "e = librosa.feature.rmse(audio, frame_length=2048)  # expect: librosa-removed\n"
        "db = librosa.core.logamplitude(s ** 2)  # expect: librosa-removed\n"
        "import librosa.display as dsp\ndsp.waveplot(y, sr=sr)  # expect: librosa-removed\n",
        "import librosa\nimport scipy.io.wavfile\nscipy.io.wavfile.write(path, sr, y)\n"
        "from librosa.util import normalize\ne = librosa.feature.rms(y=audio)\n"
        "db = librosa.core.power_to_db(s ** 2)\n"
        "import librosa.display as dsp\ndsp.waveshow(y, sr=sr)\n",
    ),
    (
        "keras2-module",
        "import keras\nfrom keras import backend as K\n"
        "from keras.utils import np_utils  # expect: keras2-module\n"
        "from keras.layers.merge import concatenate  # expect: keras2-module\n"
        "import keras.backend.tensorflow_backend as KTF  # expect: keras2-module\n"
        "y = keras.utils.np_utils.to_categorical(labels, 10)  # expect: keras2-module\n"
        "from keras.engine.topology import Layer  # expect: keras2-module\n"
        "session = K.tensorflow_backend.get_session()  # expect: keras2-module\n",
        "import keras\nfrom keras import backend as K\nfrom keras.utils import to_categorical\n"
        "from keras.layers import concatenate, Layer\ny = keras.utils.to_categorical(labels, 10)\n"
        "import tensorflow as tf\nz = tf.keras.layers.Dense(3)\nfrom keras.layers import Dense\n",
    ),
    (
        "keras-wrapper-legacy-layer",
        TF + "from tensorflow.keras.layers import Wrapper\n"
        "class WeightNorm(tf.keras.layers.Wrapper):  # expect: keras-wrapper-legacy-layer\n"
        "    pass\n"
        "class Causal(Wrapper):  # expect: keras-wrapper-legacy-layer\n"
        "    pass\n"
        "conv = WeightNorm(tf.layers.Conv1D(4, 3))\n",
        TF + "class WeightNorm(tf.keras.layers.Wrapper):\n    pass\n"
        "class Other(tf.keras.layers.Layer):\n    pass\n"
        "conv = WeightNorm(tf.keras.layers.Conv1D(4, 3))\n",
    ),
    (
        "global-step-by-name",
        "import tensorflow.compat.v1 as tf\n"
        "global_step = tf.Variable(0, name='global_step', trainable=False)\n"
        "step = tf.train.get_global_step()  # expect: global-step-by-name\n"
        "hook = tf.train.StopAtStepHook(last_step=9)  # expect: global-step-by-name\n"
        "with tf.train.MonitoredTrainingSession(hooks=[]) as s:  # expect: global-step-by-name\n"
        "    pass\n",
        "import tensorflow.compat.v1 as tf\n"
        "global_step = tf.train.get_or_create_global_step()\n"
        "step = tf.train.get_global_step()\nhook = tf.train.StopAtStepHook(last_step=9)\n"
        "with tf.variable_scope('model'):\n"
        "    inner = tf.Variable(0, name='global_step')\n"
        "ref = tf.Variable(0, name='global_step', use_resource=False)\n",
    ),
    (
        "global-step-supervisor",
        "import tensorflow.compat.v1 as tf\n"
        "global_step = tf.get_variable('global_step', [], tf.int32, trainable=False)\n"
        "sv = tf.train.Supervisor(logdir='log')  # expect: global-step-supervisor\n",
        "import tensorflow.compat.v1 as tf\n"
        "global_step = tf.Variable(0, name='global_step', trainable=False)\n"
        "sv = tf.train.Supervisor(logdir='log', global_step=global_step)\n"
        "tf.add_to_collection(tf.GraphKeys.GLOBAL_STEP, global_step)\n"
        "step = tf.train.get_global_step()\n",
    ),
    (
        "python3-removed",
        "import collections\nimport time\nimport inspect as ins\n"
        "start = time.clock()  # expect: python3-removed\n"
        "ok = isinstance(x, collections.Iterable)  # expect: python3-removed\n"
        "from collections import Mapping  # expect: python3-removed\n"
        "spec = ins.getargspec(f)  # expect: python3-removed\n"
        "import imp  # expect: python3-removed\n"
        "if t.isAlive():  # expect: python3-removed\n    pass\n"
        "self.assertEquals(a, b)  # expect: python3-removed\n",
        "import collections\nimport collections.abc\nimport time\nimport inspect\n"
        "start = time.perf_counter()\nok = isinstance(x, collections.abc.Iterable)\n"
        "spec = inspect.getfullargspec(f)\nimport importlib\nif t.is_alive():\n    pass\n"
        "self.assertEqual(a, b)\nfrom distutils.version import LooseVersion\n"
        "d = collections.OrderedDict()\nclock = time.clock if hasattr(time, 'clock') else None\n",
    ),
    (
        "fetch-with-update",
        "import tensorflow.compat.v1 as tf\nstep = tf.train.get_or_create_global_step()\n"
        "train_op = opt.apply_gradients(grads, global_step=step)\n"
        "_, n = sess.run([train_op, step])  # expect: fetch-with-update\n"
        "self.update_k = self.k.assign(k_next)\nfetches = {'op': model.update_k, 'k': model.k}\n"
        "out = sess.run(fetches)  # expect: fetch-with-update\nup = tf.assign_add(m, 1)\n"
        "_, m_now = sess.run([up, m])  # expect: fetch-with-update\n",
        "import tensorflow.compat.v1 as tf\nstep = tf.train.get_or_create_global_step()\n"
        "train_op = opt.apply_gradients(grads, global_step=step)\nn = sess.run(step)\n"
        "_, loss = sess.run([train_op, loss])\nm = sess.run([loss, step])\nup = tf.assign(k, 1)\n"
        "_, m_now = sess.run([up, m])\n",
    ),
]
RUNTIME += FLAGS + SHUFFLE
