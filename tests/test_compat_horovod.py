"""``horovod.tensorflow`` served for one process by tf1_train.compat.install()
where Horovod is not installed (it does not build on TensorFlow >= 2.16).

A Horovod program run so trains exactly as it does without Horovod (what
``horovodrun -np 1`` gave it); what one process cannot be is refused in one
line. Horovod's own one-process rules are held here: fp16 compression rounds,
the scale factors multiply, ``sparse_as_dense`` makes a dense gradient
(Horovod 0.20 and later), a root rank other than 0 raises.
"""

import os
import sys

import numpy as np
import pytest
import tensorflow as tf
from conftest import run_cli

from tf1_train.compat import _horovod as hvd
from tf1_train.port import scan

SCRIPT = os.path.join(os.path.dirname(__file__), "legacy_scripts", "horovod_style.py")
COMPAT = "tf1_train.compat"


def _run(tmp_path, *args, env=None):
    out = run_cli(["--v1", SCRIPT, *args], module=COMPAT, cwd=tmp_path,
                  env={"TF_CPP_MIN_LOG_LEVEL": "2", **(env or {})})  # fmt: skip
    return out, [line for line in out.stdout.splitlines() if line.startswith(("step", "metric"))]


def test_a_horovod_program_trains_as_it_does_without_horovod(tmp_path):
    served, lines = _run(tmp_path, f"--checkpoint_dir={tmp_path / 'ckpt'}")
    assert served.returncode == 0, served.stderr[-3000:]
    plain, plain_lines = _run(tmp_path, "--no_horovod")
    assert plain.returncode == 0, plain.stderr[-3000:]
    assert lines[:5] == plain_lines[:5] and len(lines) == 6  # five steps, equal to the digit
    assert lines[5] == "metric 1.000000 2.500000"  # through float16: 1.0001 rounds to 1
    assert plain_lines[5] == "metric 1.000100 2.500000"
    assert served.stderr.count(hvd.NOTE) == 1 and hvd.NOTE not in plain.stderr
    assert any(n.startswith("model.ckpt") for n in os.listdir(tmp_path / "ckpt"))  # rank 0 saves


def test_a_launch_of_several_processes_is_one_error_line(tmp_path):
    out, lines = _run(tmp_path, env={"OMPI_COMM_WORLD_SIZE": "2"})
    assert out.returncode == 2 and not lines
    assert out.stderr.strip().splitlines() == [out.stderr.strip()]  # one line, no traceback
    assert out.stderr.startswith("error: OMPI_COMM_WORLD_SIZE=2: this program was launched")


@pytest.mark.parametrize("name", hvd.LAUNCHER_SIZES)
def test_init_refuses_each_launchers_process_count(monkeypatch, name):
    for other in hvd.LAUNCHER_SIZES:
        monkeypatch.delenv(other, raising=False)
    monkeypatch.setenv(name, "1")
    hvd.init()
    monkeypatch.setenv(name, "8")
    with pytest.raises(hvd.Refused, match=f"^{name}=8: .*one process only"):
        hvd.init()


def test_one_process_reductions_keep_what_moves_numbers():
    hvd.init()
    assert (hvd.size(), hvd.rank(), hvd.local_rank(), hvd.local_size()) == (1, 0, 0, 1)
    x = tf.constant([1.0001, 2.5])
    np.testing.assert_array_equal(hvd.allreduce(x), x)
    np.testing.assert_array_equal(
        hvd.allreduce(x, compression=hvd.Compression.fp16), np.float16([1.0001, 2.5])
    )
    assert hvd.allreduce(x, compression=hvd.Compression.fp16).dtype == tf.float32
    np.testing.assert_allclose(hvd.allreduce(x, prescale_factor=2.0, postscale_factor=3.0), x * 6)
    np.testing.assert_array_equal(hvd.allreduce(x, average=False), x)
    sparse = hvd.allreduce(tf.IndexedSlices(x, tf.constant([0, 3]), tf.constant([4])))
    assert isinstance(sparse, tf.IndexedSlices)
    np.testing.assert_array_equal(hvd.broadcast(x, 0), x)
    with pytest.raises(ValueError, match="root_rank 1"):
        hvd.broadcast(x, 1)
    with pytest.raises(ValueError, match="only one of them"):
        hvd.allreduce(x, average=True, op=hvd.Sum)


def test_a_query_before_init_raises_as_horovods_did():
    hvd.shutdown()
    with pytest.raises(ValueError, match="Horovod has not been initialized"):
        hvd.size()
    hvd.init()
    assert hvd.is_initialized()


def test_distributed_optimizer_gives_the_wrapped_optimizers_gradients():
    hvd.init()
    with tf.Graph().as_default():
        emb = tf.compat.v1.get_variable("emb", initializer=tf.ones([5, 2]))
        loss = tf.reduce_sum(tf.gather(emb, [1, 3]))
        plain = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        ((sparse, _),) = hvd.DistributedOptimizer(plain).compute_gradients(loss)
        dense_opt = hvd.DistributedOptimizer(plain, sparse_as_dense=True)
        ((dense, _),) = dense_opt.compute_gradients(loss)
        assert isinstance(sparse, tf.IndexedSlices) and isinstance(dense, tf.Tensor)
        assert dense_opt.get_name() == "DistributedGradientDescentOptimizer"
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(dense), [[0, 0], [1, 1], [0, 0], [1, 1], [0, 0]])
    with pytest.raises(hvd.Refused, match="backward_passes_per_step=2"):
        hvd.DistributedOptimizer(plain, backward_passes_per_step=2)
    keras_opt = tf.keras.optimizers.SGD(0.1)
    assert hvd.DistributedOptimizer(keras_opt) is keras_opt  # one process: nothing to reduce


def test_distributed_gradient_tape_gives_the_tapes_gradients():
    hvd.init()
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape = hvd.DistributedGradientTape(tape)
        loss = tf.reduce_sum(w * w)
    np.testing.assert_array_equal(tape.gradient(loss, [w])[0], [2.0, 4.0])
    hvd.broadcast_variables([w], root_rank=0)
    np.testing.assert_array_equal(w, [1.0, 2.0])


def test_the_finder_serves_horovod_only_where_it_is_not_installed(installed, tmp_path, monkeypatch):
    import horovod.tensorflow as served
    from horovod.tensorflow.mpi_ops import _allreduce

    assert served.DistributedOptimizer is hvd.DistributedOptimizer and _allreduce is hvd._allreduce
    with pytest.raises(ModuleNotFoundError, match="serves horovod.tensorflow, .* only"):
        import horovod.torch  # noqa: F401
    (tmp_path / "horovod").mkdir()  # an installed Horovod: the program gets it
    (tmp_path / "horovod" / "__init__.py").write_text("REAL = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [n for n in sys.modules if n == "horovod" or n.startswith("horovod.")]:
        monkeypatch.delitem(sys.modules, name)
    import horovod

    assert horovod.REAL


@pytest.mark.parametrize("compat", [False, True])
def test_the_scan_says_which_horovod_names_work_after_install(tmp_path, compat):
    (tmp_path / "prog.py").write_text(
        "import horovod.tensorflow as hvd\n"
        "hvd.init()\n"
        "opt = hvd.DistributedOptimizer(opt, compression=hvd.Compression.fp16)\n"
        "import horovod.tensorflow.keras as hk\n"
        "hk.callbacks.BroadcastGlobalVariablesCallback(0)\n"
    )
    found = scan.scan([str(tmp_path)], compat=compat).findings
    severities = {(f.line, f.severity) for f in found if f.rule == "horovod"}
    first = "works" if compat else "breaks"
    expected = {(1, first), (4, "breaks"), (5, "breaks")}
    expected |= set() if compat else {(2, "breaks"), (3, "breaks")}  # works: once per file
    assert severities == expected
    assert all(f.fix.startswith(hvd.SERVED) for f in found if f.severity == "works")
