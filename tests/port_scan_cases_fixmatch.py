"""Trigger and twin snippets (rule, trigger, clean) for what google-research's
FixMatch (d4985a1) hit on TensorFlow 2.21 beyond its TF 1.x names: a variable
as a condition (its EMA getter, tf1_train/port/variable_rules.py), a
generator given to ``np.stack`` (tf1_train/port/numpy_rules.py),
``Image.ANTIALIAS`` (tf1_train/port/pillow_rules.py) and ``.value`` on a
shape in a file that binds the name otherwise elsewhere, or in a lambda
mapped over a shape (lengstrom/fast-style-transfer;
tf1_train/port/shape_rules.py); joined to tests/port_scan_cases.py's CASES.
Snippets are never run."""

TF = "import tensorflow as tf\n"

FIXMATCH = [
    (
        "dimension-value",
        TF + "n = x.get_shape()[1].value  # expect: dimension-value\n"
        "m = x.shape[-1].value  # expect: dimension-value\n"
        "shape = x.get_shape()\nk = shape[0].value  # expect: dimension-value\n"
        "ks = [d.value for d in shape[1:]]  # expect: dimension-value\n"
        "for dim in x.shape:\n    print(dim.value)  # expect: dimension-value\n"
        "def smart_shape(x):\n    s, t = x.shape, tf.shape(x)\n"
        "    return [t[i] if s[i].value is None else s[i] for i in range(4)]"
        "  # expect: dimension-value\n"
        "def interleave(x, batch):\n    s = x.get_shape().as_list()\n    return s[0]\n"
        "b, h = map(lambda i: i.value, layer.get_shape())  # expect: dimension-value\n"
        "for o in op.outputs:  # improved-gan's inception score, copied into many GAN repos\n"
        "    shape = o.get_shape()\n"
        "    shape = [s.value for s in shape]  # expect: dimension-value\n"
        "    for j, s in enumerate(shape):\n        pass\n"
        "def int_shape(x):  # openai/glow's tfops.py\n"
        "    if str(x.get_shape()[0]) != '?':  # expect: dimension-value\n"
        "        return list(map(int, x.get_shape()))\n",
        TF + "n = x.get_shape()[1]\nm = x.shape.dims[-1].value\nk = node.attr[1].value\n"
        "shape = [2, 3]\nk = shape[0].value\nks = [d.value for d in x.shape.dims]\n"
        "for d in nodes:\n    print(d.value)\n"
        "def interleave(x, batch):\n    s = x.get_shape().as_list()\n    return s[0].value\n"
        "def first(shape):\n    return shape[0].value\n"
        "b, h = map(lambda i: i.value, nodes)\nc = map(lambda i, j: i.value, x.shape, x.shape)\n"
        "u = str(x) == '?' or str(x.shape[1:]) == '?' or str(x.get_shape()[0]) == 'None'\n"
        "shape = [2, 3]\nshape = [s.value for s in shape]\n",
    ),
    (
        "numpy-removed",
        "import numpy as np\nb = image.tostring()  # expect: numpy-removed\n"
        "img = np.fromstring(b, dtype=np.uint8)  # expect: numpy-removed\n"
        "r = np.reshape(img, newshape=(2, 2))  # expect: numpy-removed\n"
        "np.lookfor('mean')  # expect: numpy-removed\n"
        "a.itemset(0, 1)  # expect: numpy-removed\n"
        "scaled = (x - x.min(0)) / x.ptp(0)  # expect: numpy-removed\n"
        "i = int(np.random.choice(len(s), size=1))  # expect: numpy-removed\n"
        "q = np.array(action, copy=False)  # expect: numpy-removed\n"
        "batch = np.stack(x['image'] for x in samples)  # expect: numpy-removed\n"
        "total = np.sum(len(x) for x in samples)  # expect: numpy-removed\n",
        "import numpy as np\nimport xml.etree.ElementTree as ET\nb = image.tobytes()\n"
        "img = np.frombuffer(b, dtype=np.uint8)\nv = np.fromstring('1 2', dtype=int, sep=' ')\n"
        "r = np.reshape(img, (2, 2))\ns = ET.tostring(node)\nm = np.row_stack([a, a])\n"
        "q = np.asarray(action)\nc = np.array(action, copy=True)\n"
        "batch = np.stack([x['image'] for x in samples])\n"
        "total = sum(len(x) for x in samples)\nbig = np.max(x for x in samples)\n"
        "scaled = (x - x.min(0)) / np.ptp(x, 0)\ni = int(np.random.choice(len(s)))\n",
    ),
    (
        "variable-truth",
        "import numpy as np\nimport tensorflow.compat.v1 as tf\n"
        "def getter_ema(ema, getter, name, *args, **kwargs):\n"
        "    var = getter(name, *args, **kwargs)\n"
        "    ema_var = ema.average(var)\n"
        "    return ema_var if ema_var else var  # expect: variable-truth\n"
        "def scale():\n    s = tf.get_variable('s', [])\n"
        "    if s:  # expect: variable-truth\n        return s\n",
        "import numpy as np\nimport tensorflow.compat.v1 as tf\n"
        "def getter_ema(ema, getter, name, *args, **kwargs):\n"
        "    var = getter(name, *args, **kwargs)\n"
        "    ema_var = ema.average(var)\n"
        "    return ema_var if ema_var is not None else var\n"
        "def mean(x):\n    m = np.average(x)\n    return m if m else 0.0\n"
        "def scale(flag):\n    s = tf.get_variable('s', []) if flag else None\n"
        "    return flag and s\n",
    ),
    (
        "pillow-removed-alias",
        "from PIL import Image\nfrom PIL.Image import CUBIC  # expect: pillow-removed-alias\n"
        "small = img.resize((w, h), Image.ANTIALIAS)  # expect: pillow-removed-alias\n",
        "from PIL import Image\nfrom PIL.Image import BICUBIC\n"
        "small = img.resize((w, h), Image.LANCZOS)\nANTIALIAS = 1\n",
    ),
    (
        "pillow-removed-method",
        "from PIL import ImageDraw, ImageFont\ndraw = ImageDraw.Draw(img)\n"
        "w, h = draw.textsize(text, font=font)  # expect: pillow-removed-method\n",
        "import os\nfrom PIL import ImageDraw\ndraw = ImageDraw.Draw(img)\n"
        "box = draw.textbbox((0, 0), text, font=font)\nn = os.path.getsize(path)\n",
    ),
]
