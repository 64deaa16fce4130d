"""The scanner and code that already copes with a missing name
(tf1_train/port/guards.py): ``try: ... except:`` probes of TF 0.x names
(carpedm20's DCGAN and its many copies), ``except AttributeError``
fallbacks for versions before 0.7, ``except ImportError`` fallbacks after
imports that still work (StyleGAN's ``nccl_ops``), the lines after an
import that fails in such a ``try`` (OpenSeq2Seq's ``hvd.init()``),
``if "name" in dir(tf)`` and ``hasattr`` tests, tests of TensorFlow's
version (universe-starter-agent's ``use_tf12_api``;
tf1_train/port/version_tests.py). Each program here is written in those
styles; the scan must say ``breaks`` exactly on the lines where running it
raises.
"""

import pytest

from tf1_train.port import scan

V1 = "import tensorflow.compat.v1 as tf\n"

# name -> (program, the lines that raise when it runs)
PROGRAMS = {
    "use_after_a_failed_import": (  # OpenSeq2Seq's optimizers_test.py
        V1 + "try:\n"
        "    import horovod.tensorflow as hvd\n"
        "    hvd.init()\n"
        "except ImportError:\n"
        "    hvd = None\n",
        set(),
    ),
    "use_after_an_import_that_works": (
        V1 + "try:\n"
        "    import numpy as np\n"
        "    merge = tf.merge_all_summaries\n"
        "except ImportError:\n"
        "    merge = None\n",
        {4},
    ),
    "summary_probe": (
        V1 + "try:\n"
        "    image_summary = tf.image_summary\n"
        "    SummaryWriter = tf.train.SummaryWriter\n"
        "except:\n"
        "    image_summary = tf.summary.image\n"
        "    SummaryWriter = tf.summary.FileWriter\n",
        set(),
    ),
    "attribute_error_probe": (
        V1 + "try:\n"
        "    merge = tf.merge_all_summaries\n"
        "except AttributeError:\n"
        "    merge = tf.summary.merge_all\n",
        set(),
    ),
    "probe_that_re_raises": (
        V1 + "try:\n    merge = tf.merge_all_summaries\nexcept AttributeError:\n    raise\n",
        {3},
    ),
    "probe_for_another_error": (
        V1 + "try:\n    merge = tf.merge_all_summaries\nexcept ValueError:\n    merge = None\n",
        {3},
    ),
    "fallback_never_taken": (
        V1 + "def up(x, w):\n"
        "    try:\n"
        "        return tf.nn.conv2d_transpose(x, w, [1, 4, 4, 1], [1, 2, 2, 1])\n"
        "    except AttributeError:  # TensorFlow before 0.7\n"
        "        return tf.nn.deconv2d(x, w, [1, 4, 4, 1], [1, 2, 2, 1])\n"
        "y = up(tf.ones([1, 2, 2, 1]), tf.ones([3, 3, 1, 1]))\n",
        set(),
    ),
    "fallback_taken": (
        V1 + "def merge():\n"
        "    try:\n"
        "        return tf.merge_all_summaries()\n"
        "    except AttributeError:\n"
        "        return tf.merge_summary([])\n"
        "m = merge()\n",
        {6},
    ),
    "fallback_after_a_tf1_name": (
        "import tensorflow as tf\n"
        "try:\n"
        "    cast = tf.to_float\n"
        "except AttributeError:  # a TF 2 program written for both\n"
        "    cast = tf.merge_summary\n",
        {5},
    ),
    "import_fallback_never_taken": (  # StyleGAN's tflib, for TensorFlow before 1.13
        V1 + "try:\n"
        "    from tensorflow.python.ops import nccl_ops\n"
        "except:\n"
        "    import tensorflow.contrib.nccl as nccl_ops\n"
        "all_sum = nccl_ops.all_sum\n",
        set(),
    ),
    "import_fallback_taken": (
        V1 + "try:\n"
        "    import tensorflow.contrib.rnn as rnn\n"
        "except ImportError:\n"
        "    import tensorflow.contrib.legacy_seq2seq as rnn\n",
        {5},
    ),
    "dir_and_hasattr_tests": (
        V1 + 'if "concat_v2" in dir(tf):\n'
        "    c = tf.concat_v2([[1]], 0)\n"
        "else:\n"
        "    c = tf.concat([[1]], 0)\n"
        'if hasattr(tf, "select"):\n'
        "    s = tf.select\n"
        'if hasattr(tf, "where"):\n'
        "    w = tf.mul\n",
        {9},
    ),
    "version_flag": (  # openai/universe-starter-agent's worker.py
        V1 + "import distutils.version\n"
        "use_tf12_api = distutils.version.LooseVersion(tf.VERSION) >= "
        "distutils.version.LooseVersion('0.12.0')\n"
        "if use_tf12_api:\n"
        "    m = tf.summary.merge_all\n"
        "else:\n"
        "    m = tf.merge_all_summaries\n"
        "    w = tf.train.SummaryWriter\n"
        "if not use_tf12_api:\n"
        "    s = tf.scalar_summary\n",
        set(),
    ),
    "version_tests_inline": (
        V1 + "from distutils.version import LooseVersion\n"
        "if LooseVersion(tf.__version__) < LooseVersion('1.0.0'):\n"
        "    p = tf.pack\n"
        "if tf.__version__ >= '1.0':\n"  # a string comparison, as Python makes it
        "    c = tf.concat([[1]], 0)\n"
        "else:\n"
        "    c = tf.concat(0, [[1]])\n"
        "if int(tf.__version__.split('.')[0]) < 1 or tf.VERSION.startswith('0.'):\n"
        "    p = tf.pack\n"
        "if tf.VERSION >= '1.0':\n"
        "    q = tf.pack\n",
        {12},
    ),
    "version_unknown": (  # a test of something else is no guard
        V1 + "import sys\nif sys.version_info[0] >= 3 and tf.VERSION:\n    q = tf.pack\n",
        {4},
    ),
}


def _runs(source: str) -> set:
    """The line whose execution raises: the innermost frame in the program."""
    try:
        exec(compile(source, "prog.py", "exec"), {})
    except Exception as e:  # noqa: BLE001 - any error is the line's
        tb, line = e.__traceback__, 0
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == "prog.py":
                line = tb.tb_lineno
            tb = tb.tb_next
        return {line}
    return set()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_scan_breaks_exactly_where_the_program_raises(tmp_path, name):
    source, raises = PROGRAMS[name]
    assert _runs(source) == raises
    (tmp_path / "prog.py").write_text(source)
    findings = scan.scan([str(tmp_path)]).findings
    assert {f.line for f in findings if f.severity == "breaks"} == raises, findings


def test_a_guarded_line_says_which_guard_and_is_still_one_finding(tmp_path):
    source = PROGRAMS["summary_probe"][0] + PROGRAMS["dir_and_hasattr_tests"][0][len(V1) :]
    (tmp_path / "prog.py").write_text(source)
    works = [f for f in scan.scan([str(tmp_path)]).findings if f.severity == "works"]
    assert len(works) == 1 and works[0].line == 3  # once per file and rule
    assert works[0].fix.startswith("guarded by try/except: on TensorFlow 2.21 the except branch")
    (tmp_path / "prog.py").write_text(PROGRAMS["dir_and_hasattr_tests"][0])
    (found,) = [f for f in scan.scan([str(tmp_path)]).findings if f.severity == "works"]
    assert found.line == 3 and "a test for 'concat_v2'" in found.fix
    (tmp_path / "prog.py").write_text(PROGRAMS["fallback_never_taken"][0])
    (found,) = [f for f in scan.scan([str(tmp_path)]).findings if f.severity == "works"]
    assert found.line == 6 and found.fix.startswith("an except AttributeError fallback")
    (tmp_path / "prog.py").write_text(PROGRAMS["import_fallback_never_taken"][0])
    (found,) = [f for f in scan.scan([str(tmp_path)]).findings if f.severity != "rename"]
    assert found.line == 5 and found.severity == "works"  # the use, line 6: no finding
    assert found.fix.startswith("an except ImportError fallback")


def test_a_version_test_names_itself_and_says_which_branch_tf1_ran(tmp_path):
    (tmp_path / "prog.py").write_text(
        V1 + "TF2 = int(tf.__version__.split('.')[0]) >= 2\n"
        "if TF2:\n    x = 1\nelse:\n    p = tf.pack\n"
        "if tf.__version__ < '0.12':\n    p = tf.pack\n"
    )
    found = [f for f in scan.scan([str(tmp_path)]).findings if f.severity == "works"]
    assert [f.line for f in found] == [6]  # once per file and rule
    assert found[0].fix.startswith(
        "guarded by the version test `TF2`: on TensorFlow 2.21.0 this branch does not run "
        "(TensorFlow 1.15 ran it: the other branch runs instead)"
    )
    (tmp_path / "prog.py").write_text(V1 + "if tf.__version__ < '0.12':\n    p = tf.pack\n")
    (found,) = scan.scan([str(tmp_path)]).findings
    assert found.fix.startswith("guarded by the version test `tf.__version__ < '0.12'`: on ")
    assert "1.15 ran it" not in found.fix


VERSION_TESTS = [
    "LooseVersion(tf.VERSION) >= LooseVersion('0.12.0')",
    "StrictVersion(tf.__version__) < StrictVersion('2.0.0')",
    "version.parse(tf.__version__) >= version.parse('2.0')",
    "tuple(map(int, tf.__version__.split('.')[:2])) >= (1, 4)",
    "int(tf.__version__.split('.')[1]) >= 12",
    "tf.__version__[0] == '2'",
    "tf.version.VERSION.startswith('1.') and not tf.VERSION < '1.2'",
    "float(tf.__version__[:3]) < 1.5 or tf.__version__ == '2.21.0'",
]


@pytest.mark.parametrize("test", VERSION_TESTS)
def test_a_version_test_is_evaluated_as_python_evaluates_it(test):
    """Against Python itself, with a module that has each TensorFlow's version."""
    import ast
    import types
    from distutils.version import LooseVersion, StrictVersion

    from packaging import version

    from tf1_train.port.version_tests import TF1_VERSION, TF_VERSION, VersionTests

    tree = ast.parse("import tensorflow as tf\nif " + test + ":\n    pass\n")
    expected = []
    for v in (TF_VERSION, TF1_VERSION):
        inner = types.SimpleNamespace(VERSION=v)
        tf = types.SimpleNamespace(VERSION=v, __version__=v, version=inner)
        names = dict(tf=tf, LooseVersion=LooseVersion, StrictVersion=StrictVersion)
        expected.append(bool(eval(test, {**names, "version": version})))
    assert VersionTests(tree).outcome(tree.body[1].test) == tuple(expected)
