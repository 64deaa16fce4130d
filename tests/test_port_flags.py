"""TF 1.0-1.4's flag idioms (tf1_train/port/flag_rules.py) against TensorFlow
2.21 itself: each line the scan says breaks raises there, the line it says
changes runs and gives absl's Flag objects, not values, and the fixes it names
run and give the values. Each line runs on its own after the ones above, in a
fresh interpreter (absl's flags are process-wide)."""

import json
import subprocess
import sys

from tf1_train.port import scan

# One statement a line, as TF 1.4 code wrote them (DCGAN-tensorflow, the text
# CNNs, carpedm20's deep-rl code).
PROGRAM = """import json
import tensorflow.compat.v1 as tf
flags = tf.app.flags
flags.DEFINE_integer('batch_size', 64, 'examples per batch')
flags.DEFINE_boolean('use_gpu', False, 'on a GPU')
FLAGS = flags.FLAGS
FLAGS(['prog', '--batch_size=32'])
shown = dict(FLAGS.__flags)
values = FLAGS.__dict__['__flags']
text = json.dumps(FLAGS.__flags)
FLAGS.data_format = 'NCHW' if FLAGS.use_gpu else 'NHWC'
"""
FIXED = {
    8: "shown = dict(FLAGS.flag_values_dict())",
    9: "values = FLAGS.flag_values_dict()",
    10: "text = json.dumps(FLAGS.flag_values_dict())",
    11: "flags.DEFINE_string('data_format', 'NHWC', 'layout'); "
    "FLAGS.data_format = 'NCHW' if FLAGS.use_gpu else 'NHWC'",
}
HARNESS = """
import json, sys
names, raised = {}, {}
for number, line in enumerate(open(sys.argv[1]).read().splitlines(), 1):
    try:
        exec(line, names)
    except Exception as e:
        raised[number] = type(e).__name__
shown = names.get('shown', {})
print(json.dumps({'raised': raised, 'batch_size': repr(shown.get('batch_size')),
                  'text': names.get('text'),
                  'data_format': repr(getattr(names['FLAGS'], 'data_format', None))}))
"""


def _run(path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", HARNESS, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_each_breaking_line_raises_on_tensorflow_2_and_its_fix_runs(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    report = scan.scan([str(tmp_path)])
    verdicts = {f.line: (f.rule, f.severity) for f in report.findings if f.rule.startswith("flags")}
    assert verdicts == {
        8: ("flags-private-dict", "changes numbers"),
        9: ("flags-dict-breaks", "breaks"),
        10: ("flags-dict-breaks", "breaks"),
        11: ("flags-undefined-assign", "breaks"),
    }
    ran = _run(tmp_path / "prog.py")
    assert {int(k): v for k, v in ran["raised"].items()} == {
        9: "KeyError",
        10: "TypeError",
        11: "UnrecognizedFlagError",
    }
    assert ran["batch_size"].startswith("<absl.flags._flag.Flag object")  # not 32

    lines = PROGRAM.splitlines()
    for number, fixed in FIXED.items():
        lines[number - 1] = fixed
    (tmp_path / "prog.py").write_text("\n".join(lines) + "\n")
    assert not [f for f in scan.scan([str(tmp_path)]).findings if f.rule.startswith("flags")]
    ran = _run(tmp_path / "prog.py")
    assert ran["raised"] == {}
    assert ran["batch_size"] == "32" and json.loads(ran["text"])["batch_size"] == 32
    assert ran["data_format"] == "'NHWC'"
