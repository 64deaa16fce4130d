"""Write tests/goldens/contrib_seq2seq_<group>.json: what the programs of
tests/contrib_seq2seq_cases*.py computed with TF 1.15's own
``tf.contrib.seq2seq``, which tests/test_compat_contrib_dynamic_decode.py
holds tf1_train.compat's to.

TF 1.15 does not install on today's Python, but its seq2seq package is
Python over core ops but one (``gather_tree``, a C++ kernel). Take the
package from the wheel (it stays outside the repository) and run its source
on TensorFlow 2.21 with tf_keras, in an environment of its own (tf_keras
pulls the full ``tensorflow`` package, which tf1_train must not depend on):

    pip download --no-deps --python-version 3.7 --only-binary=:all: \\
        tensorflow-cpu==1.15.0 -d /tmp/tf115
    unzip -o /tmp/tf115/tensorflow_cpu-1.15.0-*.whl \\
        'tensorflow_core/contrib/seq2seq/*' -x '*.so' -d /tmp/tf115
    python -m venv /tmp/oracle && /tmp/oracle/bin/pip install tensorflow==2.21.0 tf_keras==2.21.0
    /tmp/oracle/bin/python scripts/make_contrib_seq2seq_goldens.py \\
        /tmp/tf115/tensorflow_core/contrib [GROUP...]

What 2.21 moved is put back for that source only (``ops.Tensor``,
``control_flow_ops.cond``/``while_loop``/``Assert``, ``array_ops.stack``,
``np.Inf``, tf_keras' legacy ``Dense`` for ``tensorflow.python.layers``), and ``gather_tree`` is the
kernel's loop in NumPy, written from its documentation: the same steps, an
independent implementation of the one op whose code is not Python.
"""

import importlib.util
import json
import os
import pathlib
import sys
import types

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
OPS = "tensorflow.contrib.seq2seq.python.ops"


def gather_tree_numpy(step_ids, parent_ids, max_sequence_lengths, end_token):
    """TF 1.15's GatherTree kernel: each beam's ids followed back through its
    parents from its last step, end_token past a sequence's length and after
    its first end_token."""
    steps, batch, width = step_ids.shape
    beams = np.full_like(step_ids, end_token)
    for b in range(batch):
        length = min(steps, int(max_sequence_lengths[b]))
        for w in range(width if length > 0 else 0):
            beams[length - 1, b, w] = step_ids[length - 1, b, w]
            parent = parent_ids[length - 1, b, w]
            for t in range(length - 2, -1, -1):
                if not 0 <= parent < width:
                    raise ValueError(f"parent id {parent} is not in [0, {width})")
                beams[t, b, w] = step_ids[t, b, parent]
                parent = parent_ids[t, b, parent]
            finished = False
            for t in range(length):
                if finished:
                    beams[t, b, w] = end_token
                finished = finished or beams[t, b, w] == end_token
    return beams


def _load(contrib: pathlib.Path):
    """TF 1.15's tensorflow.contrib.seq2seq, imported from its source."""
    import tensorflow as tf
    import tf_keras
    from tensorflow.python.framework import ops
    from tensorflow.python.ops import array_ops, control_flow_ops
    from tf_keras.src.legacy_tf_layers import core as legacy_core

    np.Inf = np.inf
    ops.Tensor = getattr(ops, "Tensor", tf.Tensor)
    for name in ("cond", "while_loop", "case", "Assert"):
        if not hasattr(control_flow_ops, name):
            setattr(control_flow_ops, name, getattr(tf.compat.v1, name))
    array_ops.stack = getattr(array_ops, "stack", tf.stack)

    def gather_tree(step_ids, parent_ids, max_sequence_lengths, end_token, name=None):
        out = tf.compat.v1.py_func(
            gather_tree_numpy, [step_ids, parent_ids, max_sequence_lengths, end_token],
            step_ids.dtype,
        )  # fmt: skip
        out.set_shape(step_ids.shape)
        return out

    def module(name, path=None, **attrs):
        sys.modules[name] = types.ModuleType(name)
        sys.modules[name].__path__ = [str(path)] if path else []
        sys.modules[name].__dict__.update(attrs)
        return sys.modules[name]

    module("tensorflow.contrib", contrib)
    module("tensorflow.contrib.seq2seq.ops")
    module("tensorflow.contrib.seq2seq.ops.gen_beam_search_ops", gather_tree=gather_tree)
    module("tensorflow.contrib.util")
    module("tensorflow.contrib.util.loader", load_op_library=lambda path: None)
    framework = "tensorflow.contrib.framework.python.framework"
    for name in ("tensorflow.contrib.framework", "tensorflow.contrib.framework.python"):
        module(name)
    module(framework, tensor_util=module(framework + ".tensor_util", with_same_shape=_same))
    spec = importlib.util.spec_from_file_location(
        "tensorflow.contrib.seq2seq", contrib / "seq2seq" / "__init__.py",
        submodule_search_locations=[str(contrib / "seq2seq")],
    )  # fmt: skip
    seq2seq = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = seq2seq
    spec.loader.exec_module(seq2seq)
    for name in ("basic_decoder", "beam_search_decoder", "attention_wrapper"):
        source = sys.modules[f"{OPS}.{name}"]
        for attr, value in (("layers_base", types.SimpleNamespace(Layer=tf_keras.layers.Layer)),
                            ("layers_core", legacy_core), ("layers", tf_keras.layers)):  # fmt: skip
            if hasattr(source, attr):
                setattr(source, attr, value)
    return seq2seq


def _same(old, new):
    """contrib.framework's with_same_shape: ``new`` given ``old``'s static shape."""
    new.set_shape(old.shape)
    return new


def main() -> int:
    contrib = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else None
    if contrib is None or not (contrib / "seq2seq" / "__init__.py").is_file():
        print("error: give TF 1.15's tensorflow_core/contrib directory (see this "
              "script's docstring)", file=sys.stderr)  # fmt: skip
        return 2
    seq2seq = _load(contrib)
    import tensorflow.compat.v1 as tf

    sys.path.insert(0, str(ROOT / "tests"))
    import contrib_seq2seq_cases as cases

    for group in sys.argv[2:] or cases.GROUPS:
        results = {name: cases.run(seq2seq, tf, fn) for name, fn in cases.cases(group).items()}
        out = ROOT / "tests" / "goldens" / f"contrib_seq2seq_{group}.json"
        report = {"tensorflow": "1.15.0", "source": "contrib/seq2seq/python/ops"}
        out.write_text(json.dumps({**report, "cases": results}, indent=None, sort_keys=True) + "\n")
        print(f"{out}: {len(results)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
