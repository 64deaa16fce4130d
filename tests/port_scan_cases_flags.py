"""Trigger and twin snippets (rule, trigger, clean) for TF 1.0-1.4's tf.flags
idioms, which absl's flags (TF 1.5 on) refuse or answer otherwise
(tf1_train/port/flag_rules.py: the text CNNs' ``_parse_flags()``,
DCGAN-tensorflow's ``pp.pprint(flags.FLAGS.__flags)``, carpedm20's deep-rl
code setting a flag it never defined); joined to
tests/port_scan_cases_runtime.py's RUNTIME. Snippets are never run."""

TF = "import tensorflow as tf\n"

FLAGS = [
    (
        "flags-parse-flags",
        TF + "FLAGS = tf.flags.FLAGS\nFLAGS._parse_flags()  # expect: flags-parse-flags\n",
        TF + "FLAGS = tf.flags.FLAGS\nFLAGS(sys.argv)\nparser.parse_flags()\n",
    ),
    (
        "flags-private-dict",
        TF + "import pprint, json\nflags = tf.app.flags\n"
        "pprint.pprint(flags.FLAGS.__flags)  # expect: flags-private-dict\n"
        "FLAGS = tf.flags.FLAGS\n"
        "for attr, value in sorted(FLAGS.__flags.items()):  # expect: flags-private-dict\n"
        "    print(attr, value)\n"
        "print(json.dumps(tf.flags.FLAGS.flag_values_dict()), tf.flags.FLAGS.__flags)"
        "  # expect: flags-private-dict\n",
        TF + "import pprint\nflags = tf.app.flags\npprint.pprint(flags.FLAGS.flag_values_dict())\n"
        "class Model(object):\n    def __init__(self):\n        self.__flags = {}\n"
        "        self.flags = self._Model__flags\n",
    ),
    (
        "flags-dict-breaks",
        TF + "import json\nconf = tf.app.flags.FLAGS\n"
        "for k, v in conf.__dict__['__flags'].items():  # expect: flags-dict-breaks\n"
        "    print(k, v)\n"
        "json.dump(conf.__flags, open('flags.json', 'w'))  # expect: flags-dict-breaks\n",
        TF + "conf = tf.app.flags.FLAGS\nfor k, v in conf.flag_values_dict().items():\n"
        "    print(k, v)\nstate = obj.__dict__['weights']\n",
    ),
    (
        "flags-undefined-assign",
        TF + "flags = tf.app.flags\nflags.DEFINE_string('env_name', 'Breakout', 'the game')\n"
        "flags.DEFINE_boolean('use_gpu', True, 'on a GPU')\nconf = flags.FLAGS\n"
        "FLAGS = conf\n"
        "if not conf.use_gpu:\n"
        "    conf.data_format = 'NHWC'  # expect: flags-undefined-assign\n"
        "FLAGS.env_name = 'Pong'\nconf.alsologtostderr = True\n"
        "tf.flags.FLAGS.observation_dims = [80, 80]  # expect: flags-undefined-assign\n"
        "flags.DEFINE_integer(name='steps', default=3, help='')\n"
        "FLAGS.stepz = 4  # expect: flags-undefined-assign\n",
        TF + "flags = tf.app.flags\nflags.DEFINE_string('env_name', 'Breakout', 'the game')\n"
        "flags.DEFINE_string('data_format', 'NCHW', 'layout')\nconf = flags.FLAGS\n"
        "conf.data_format = 'NHWC'\nconf.env_name = 'Pong'\nconfig.observation_dims = [80, 80]\n"
        "for name in ('steps', 'epochs'):\n    flags.DEFINE_integer(name, 3, '')\n"
        "conf.stepz = 4\n",
    ),
]
