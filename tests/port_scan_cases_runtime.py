"""Trigger and twin snippets (rule, trigger, clean) for what a program hits
when it runs beyond TensorFlow's API table: TF 1.4's _parse_flags
(tf1_train/port/runtime_rules.py), NumPy's removed builtin aliases and NumPy
2's removals (tf1_train/port/numpy_rules.py); joined to tests/port_scan_cases.py's
CASES. Snippets are never run."""

TF = "import tensorflow as tf\n"

RUNTIME = [
    (
        "flags-parse-flags",
        TF + "FLAGS = tf.flags.FLAGS\nFLAGS._parse_flags()  # expect: flags-parse-flags\n",
        TF + "FLAGS = tf.flags.FLAGS\nFLAGS(sys.argv)\nparser.parse_flags()\n",
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
        "numpy-removed",
        "import numpy as np\nb = image.tostring()  # expect: numpy-removed\n"
        "img = np.fromstring(b, dtype=np.uint8)  # expect: numpy-removed\n"
        "r = np.reshape(img, newshape=(2, 2))  # expect: numpy-removed\n"
        "np.lookfor('mean')  # expect: numpy-removed\n"
        "a.itemset(0, 1)  # expect: numpy-removed\n",
        "import numpy as np\nimport xml.etree.ElementTree as ET\nb = image.tobytes()\n"
        "img = np.frombuffer(b, dtype=np.uint8)\nv = np.fromstring('1 2', dtype=int, sep=' ')\n"
        "r = np.reshape(img, (2, 2))\ns = ET.tostring(node)\nm = np.row_stack([a, a])\n",
    ),
]
