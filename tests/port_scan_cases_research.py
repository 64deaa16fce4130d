"""Trigger and twin snippets (rule, trigger, clean) for what research code
bases of 2017-19 hit beyond their TF 1.x names: spectral norm's
power-iteration vector, read and assigned in a function a discriminator
builds twice (tf1_train/port/reuse_rules.py: taki0112's Self-Attention-GAN
and its copies), what matplotlib removed from their plots
(tf1_train/port/matplotlib_rules.py: hwalsuklee's VAE), a graph-level seed
(tf1_train/port/runtime_rules.py: GraphSAGE, GAE), TensorFlow Hub's TF1
format (tf1_train/port/hub_rules.py: SimCLR's exported module), a generator
ended by StopIteration (tf1_train/port/generator_rules.py: bilm-tf), a variable
looked up by its tensor name (tf1_train/port/tensor_name_rules.py: TF1
notebooks reading weights back), a Keras model trained with eager execution
off (tf1_train/port/keras_graph_rules.py: handson-ml's reproducibility
notebook), an assign that grows a variable (tf1_train/port/assign_rules.py:
SSD-Tensorflow's streaming mAP), Keras 2's optimizer arguments
(tf1_train/port/keras_optimizer_rules.py: Hvass-Labs' tutorials), TF 2
summaries whose merge_all() a run fetches (tf1_train/port/summary_rules.py:
YOLOv3's train.py), TF 1.x's dataset iterators
(tf1_train/port/dataset_rules.py: Kyubyong's transformer), a Keras cell
in dynamic_rnn (tf1_train/port/keras_cell_rules.py); joined to
tests/port_scan_cases.py's CASES. Snippets are never run."""

RESEARCH = [
    (
        "variable-assign-on-reuse",
        "import tensorflow.compat.v1 as tf\n"
        "def spectral_norm(w):\n"
        "    u = tf.get_variable('u', [1, 8], trainable=False)\n"
        "    u_hat = tf.nn.l2_normalize(tf.matmul(u, w))\n"
        "    with tf.control_dependencies([u.assign(u_hat)]):  # expect: variable-assign-on-reuse\n"
        "        return w / tf.reduce_sum(u_hat)\n"
        "def remember(x):\n    m = tf.get_variable('m', [8])\n"
        "    return tf.assign(m, x + m)  # expect: variable-assign-on-reuse\n"
        "def total(xs):\n    for x in xs:\n        t = tf.get_variable('t', [8])\n"
        "        tf.assign(t, t + x)  # expect: variable-assign-on-reuse\n",
        "import tensorflow.compat.v1 as tf\n"
        "def spectral_norm(w):\n"
        "    u = tf.get_variable('u', [1, 8], trainable=False, caching_device='')\n"
        "    u_hat = tf.nn.l2_normalize(tf.matmul(u, w))\n"
        "    with tf.control_dependencies([u.assign(u_hat)]):\n"
        "        return w / tf.reduce_sum(u_hat)\n"
        "def counter():\n    c = tf.Variable(0.0)\n    return c.assign(c + 1)\n"
        "def reset():\n    m = tf.get_variable('m', [8])\n    return m.assign(tf.zeros([8]))\n"
        "def step(m):\n    return m.assign_add(1)\n"
        "def apply_gradients(self, grads_and_vars):\n"  # BERT's, XLNet's AdamWeightDecay
        "    for (grad, param) in grads_and_vars:\n"
        "        param_name = self._get_variable_name(param.name)\n"
        "        m = tf.get_variable(name=param_name + '/adam_m', shape=param.shape)\n"
        "        next_m = 0.9 * m + 0.1 * grad\n"
        "        self.updates.append(m.assign(next_m))\n",
    ),
    (
        "matplotlib-removed",
        "import matplotlib\nmatplotlib.use('Agg', warn=False)  # expect: matplotlib-removed\n"
        "import matplotlib.pyplot as plt\n"
        "colors = plt.cm.get_cmap('jet', 10)  # expect: matplotlib-removed\n"
        "rgb = fig.canvas.tostring_rgb()  # expect: matplotlib-removed\n"
        "ax.hist(x, normed=True)  # expect: matplotlib-removed\n"
        "plt.style.use('seaborn-whitegrid')  # expect: matplotlib-removed\n",
        "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
        "import numpy as np\ncolors = plt.get_cmap('jet', 10)\n"
        "rgb = np.asarray(fig.canvas.buffer_rgba())[..., :3]\nax.hist(x, density=True)\n"
        "plt.style.use('seaborn-v0_8-whitegrid')\n",
    ),
    (
        "graph-seed",
        "import tensorflow as tf\ntf.set_random_seed(123)  # expect: graph-seed\n"
        "import tensorflow.compat.v1 as v1\nv1.random.set_random_seed(1)  # expect: graph-seed\n",
        "import tensorflow as tf\ntf.random.set_seed(123)\nnp.random.seed(1)\n",
    ),
    (
        "hub-tf1-format",
        "import tensorflow_hub as hub\n"
        "elmo = hub.Module(url, trainable=True)  # expect: hub-tf1-format\n"
        "from tensorflow_hub import text_embedding_column  # expect: hub-tf1-format\n"
        "spec = hub.create_module_spec(module_fn)  # expect: hub-tf1-format\n",
        "import tensorflow_hub as hub\nlayer = hub.KerasLayer(url)\nm = hub.load(url)\n"
        "from tensorflow_hub import resolve\nmodule = Module(spec)\n",
    ),
    (
        "generator-stopiteration",
        "def batches(data):\n    for x in data:\n        yield x\n"
        "    raise StopIteration  # expect: generator-stopiteration\n"
        "class Reader:\n    def _next_shard(self):\n        raise StopIteration()\n"
        "    def sentences(self):\n        while True:\n"
        "            shard = self._next_shard()  # expect: generator-stopiteration\n"
        "            yield shard\n",
        "def batches(data):\n    for x in data:\n        yield x\n    return\n"
        "class Reader:\n    def _next_shard(self):\n        raise StopIteration()\n"
        "    def __next__(self):\n        raise StopIteration\n"
        "    def sentences(self):\n        while True:\n            try:\n"
        "                shard = self._next_shard()\n            except StopIteration:\n"
        "                return\n            yield shard\n",
    ),
    (
        "variable-tensor-name",
        "import tensorflow.compat.v1 as tf\nb = tf.get_variable('bias_0', [3])\n"
        "g = tf.get_default_graph()\n"
        "w = sess.run(g.get_tensor_by_name('hidden/kernel:0'))  # expect: variable-tensor-name\n"
        "b0 = g.get_tensor_by_name('out/bias_0:0')  # expect: variable-tensor-name\n",
        "import tensorflow.compat.v1 as tf\nb = tf.get_variable('bias_0', [3])\n"
        "g = tf.get_default_graph()\nw = sess.run(g.get_tensor_by_name('hidden/BiasAdd:0'))\n"
        "k = g.get_tensor_by_name(name + ':0')\n"
        "r = g.get_tensor_by_name('hidden/kernel/Read/ReadVariableOp:0')\n",
    ),
    (
        "keras-fit-graph-mode",
        "import tensorflow as tf\nfrom tensorflow import keras\n"
        "tf.compat.v1.disable_eager_execution()\n"
        "model = keras.models.Sequential([keras.layers.Dense(10)])\n"
        "model.compile(loss='mse', optimizer='sgd')\n"
        "model.fit(X, y, epochs=2)  # expect: keras-fit-graph-mode\n"
        "class Net(tf.keras.Model):\n    pass\nnet = Net()\n"
        "loss = net.train_on_batch(X, y)  # expect: keras-fit-graph-mode\n",
        "import tensorflow as tf\nfrom tensorflow import keras\nfrom sklearn import svm\n"
        "tf.compat.v1.disable_eager_execution()\n"
        "model = keras.models.Sequential([keras.layers.Dense(10)])\nlogits = model(X)\n"
        "clf = svm.SVC()\nclf.fit(X, y)\n",
    ),
    (
        "keras-compile-v1-optimizer",
        "import tensorflow as tf\nfrom tensorflow import keras\n"
        "model = keras.models.Sequential([keras.layers.Dense(1)])\n"
        "model.compile(loss='mse', optimizer=tf.train.AdamOptimizer(1e-3))"
        "  # expect: keras-compile-v1-optimizer\n"
        "opt = tf.compat.v1.train.MomentumOptimizer(0.1, 0.9)\n"
        "model.compile(opt, 'mse')  # expect: keras-compile-v1-optimizer\n",
        "import tensorflow as tf\nfrom tensorflow import keras\n"
        "model = keras.models.Sequential([keras.layers.Dense(1)])\n"
        "model.compile(loss='mse', optimizer=keras.optimizers.Adam(1e-3, epsilon=1e-8))\n"
        "opt = tf.compat.v1.train.MomentumOptimizer(0.1, 0.9)\ntrain_op = opt.minimize(loss)\n"
        "model.compile('adam', 'mse')\n",
    ),
    (
        "keras-accuracy-key",
        "model.compile(loss='mse', optimizer='adam', metrics=['accuracy'])\n"
        "h = model.fit(X, y)\nplt.plot(h.history['acc'])  # expect: keras-accuracy-key\n"
        "v = logs.get('val_acc')  # expect: keras-accuracy-key\n",
        "model.compile(loss='mse', optimizer='adam', metrics=['acc'])\n"
        "h = model.fit(X, y)\nplt.plot(h.history['acc'])\nv = logs.get('val_acc')\n",
    ),
    (
        "assign-validate-shape",
        "import tensorflow.compat.v1 as tf\nv = tf.Variable(tf.zeros([0]), trainable=False)\n"
        "up = tf.assign(v, tf.concat([v, x], 0), validate_shape=False)"
        "  # expect: assign-validate-shape\n"
        "self.buf = make_local('buf', shape=[0])\n"
        "op = self.buf.assign(tf.concat([self.buf, y], 0), validate_shape=False)"
        "  # expect: assign-validate-shape\n",
        "import tensorflow.compat.v1 as tf\n"
        "v = tf.Variable(tf.zeros([0]), trainable=False, validate_shape=False)\n"
        "up = tf.assign(v, tf.concat([v, x], 0), validate_shape=False)\n"
        "w = tf.assign(u, tf.zeros([3]))\n",
    ),
    (
        "keras-optimizer-lr",
        "from keras.optimizers import Adam\nopt = Adam(lr=1e-3)  # expect: keras-optimizer-lr\n",
        "from keras.optimizers import Adam\nopt = Adam(learning_rate=1e-3)\nfit(lr=0.1)\n",
    ),
    (
        "keras-optimizer-decay",
        "import tensorflow as tf\n"
        "sgd = tf.keras.optimizers.SGD(learning_rate=0.01, decay=1e-6)"
        "  # expect: keras-optimizer-decay\n",
        "import tensorflow as tf\nsgd = tf.keras.optimizers.SGD(learning_rate=0.01)\n"
        "opt = tf.compat.v1.train.RMSPropOptimizer(0.01, decay=0.9)\n",
    ),
    (
        "cond-branch-variable",
        "import tensorflow.compat.v1 as tf\nopt = tf.train.AdamOptimizer(0.1)\n"
        "tf.cond(ok, lambda: opt.apply_gradients(gv), tf.no_op)"
        "  # expect: cond-branch-variable\n"
        "amp = tf.train.experimental.enable_mixed_precision_graph_rewrite(opt)"
        "  # expect: cond-branch-variable\n",
        "import tensorflow.compat.v1 as tf\nsgd = tf.train.MomentumOptimizer(0.1, 0.9)\n"
        "tf.cond(ok, lambda: sgd.apply_gradients(gv), tf.no_op)\n"
        "train = opt.apply_gradients(gv)\nscipy.optimize.minimize(f, x0)\n"
        "amp = tf.train.experimental.enable_mixed_precision_graph_rewrite(sgd)\n",
    ),
    (
        "tf2-summary-merge-fetched",
        "import tensorflow as tf\nsess = tf.compat.v1.Session()\n"
        "tf.summary.scalar('loss', loss)  # expect: tf2-summary-merge-fetched\n"
        "self.write_op = tf.compat.v1.summary.merge_all()\n"
        "_, s = sess.run([train_op, self.write_op])\n",
        "import tensorflow as tf\nsess = tf.compat.v1.Session()\n"
        "tf.summary.scalar('loss', loss)\nmerged = tf.compat.v1.summary.merge_all()\n"
        "_, s = sess.run([train_op, loss])\n",
    ),
    (
        "dataset-v1-api",
        "import tensorflow as tf\nds = tf.data.TFRecordDataset(files).batch(2)\n"
        "# expect: dataset-v1-api\n"
        "it = tf.data.Iterator.from_structure(ds.output_types, ds.output_shapes)\n"
        "x = ds.make_one_shot_iterator().get_next()  # expect: dataset-v1-api\n",
        "import tensorflow as tf\nds = tf.data.TFRecordDataset(files).batch(2)\n"
        "it = tf.compat.v1.data.Iterator.from_structure(\n"
        "    tf.compat.v1.data.get_output_types(ds), tf.compat.v1.data.get_output_shapes(ds))\n"
        "x = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()\n"
        "shape = model.output_shape\nit = ds.make_one_shot_iterator\n",
    ),
    (
        "tf0-concat-split-order",  # openai/improved-gan's imagenet generator, TF 0.x
        "import tensorflow as tf\n"
        "h0 = tf.concat(3, [h0, h0z])  # expect: tf0-concat-split-order\n"
        "joint = tf.compat.v1.concat(-1, parts)  # expect: tf0-concat-split-order\n"
        "a, b = tf.split(1, 2, x)  # expect: tf0-concat-split-order\n",
        "import tensorflow as tf\n"
        "h0 = tf.concat([h0, h0z], 3)\njoint = tf.concat(parts, axis=-1)\n"
        "a, b = tf.split(x, 2, 1)\nc = tf.concat(axis, [h0, h0z])\nd = tf.split(x, 2)\n",
    ),
    (
        "keras-image-transforms",
        "import tensorflow as tf\n"
        "gen = tf.keras.preprocessing.image.ImageDataGenerator(rotation_range=15)"
        "  # expect: keras-image-transforms\n"
        "from tensorflow.keras.preprocessing.image import random_shift\n"
        "y = random_shift(x, 0.1, 0.1)  # expect: keras-image-transforms\n",
        "import tensorflow as tf\n"
        "gen = tf.keras.preprocessing.image.ImageDataGenerator(horizontal_flip=True, "
        "rotation_range=0)\n"
        "from keras.preprocessing.image import random_shift\n"
        "y = random_shift(x, 0.1, 0.1)\n",
    ),
    (
        "keras-cell-in-v1-rnn",
        "import tensorflow as tf\ncell = tf.keras.layers.GRUCell(8)\n"
        "out, s = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)  # expect: keras-cell-in-v1-rnn\n"
        "o = tf.compat.v1.nn.static_rnn(tf.keras.layers.LSTMCell(4), xs, dtype=tf.float32)"
        "  # expect: keras-cell-in-v1-rnn\n",
        "import tensorflow as tf\ncell = tf.keras.layers.GRUCell(8)\n"
        "out, s = tf.nn.dynamic_rnn(cell, x, initial_state=h0)\n"
        "gru = tf.compat.v1.nn.rnn_cell.GRUCell(8)\n"
        "out, s = tf.nn.dynamic_rnn(gru, x, dtype=tf.float32)\n"
        "y = tf.keras.layers.RNN(cell, return_sequences=True)(x)\n",
    ),
]
