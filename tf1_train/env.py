"""What must happen before TensorFlow loads: log levels, the oneDNN choice,
CPU XLA clustering. Every entry point (TF1, TF2, bench) and the tests call
these before their first ``import tensorflow``; nothing here imports it or
absl flags. Once it has loaded, the entry points call ``freeze_imports``.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from typing import Optional


def quiet_tensorflow(log_device_placement: bool, cluster_task: bool = False) -> None:
    """Hides TensorFlow's C++ info chatter, unless placement logging is on:
    TF_CPP_MIN_LOG_LEVEL >= 1 also hides the stderr copy of those lines
    (docs/PORTING.md P13). A cluster task also hides C++ warnings: the gRPC runtime
    logs "Local rendezvous is aborting ... Cleanup" for ordinary steps; real
    failures still reach Python as errors. A level the user set is kept."""
    if not log_device_placement:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2" if cluster_task else "1")


def choose_onednn(choice: Optional[str], environ=os.environ) -> str:
    """Sets TF_ENABLE_ONEDNN_OPTS before TensorFlow loads; returns its value.

    TensorFlow 2.21 turns its oneDNN CPU kernels on only for CPUs with
    AVX-512 VNNI/BF16, AVX-VNNI or AMX; elsewhere (AVX2 CPUs such as AMD
    Zen 3) convolutions fall back to Eigen and train several times slower
    (lenet5 on 28x28: 3.7x here). On by default, so a run's speed does not
    depend on which CPU generation the machine has; --onednn=off, or
    TF_ENABLE_ONEDNN_OPTS=0 in the environment, keeps Eigen's kernels (their
    round-off differs slightly from oneDNN's).
    """
    if choice is not None:
        environ["TF_ENABLE_ONEDNN_OPTS"] = "1" if choice == "on" else "0"
    return environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "1")


def enable_cpu_xla(xla: bool, num_towers: int) -> None:
    """--xla sets the session's global JIT level, which TensorFlow applies to
    GPUs only; on CPU, auto-clustering also needs this TF_XLA_FLAGS switch.

    With several towers on virtual CPU devices XLA's CPU clusters span the
    devices and the step fails ("Multiple CPU devices"), so CPU clustering
    is only switched on for one tower; GPUs cluster per device either way.
    """
    flag = "--tf_xla_cpu_global_jit"
    current = os.environ.get("TF_XLA_FLAGS", "")
    if xla and num_towers > 1:
        print(
            "warning: --xla: CPU auto-clustering stays off with several towers (it "
            "fails across virtual CPU devices); on GPUs it applies per device",
            file=sys.stderr,
            flush=True,
        )
    elif xla and flag not in current:
        os.environ["TF_XLA_FLAGS"] = f"{current} {flag}".strip()


def freeze_imports() -> None:
    """Hides every object alive now (TensorFlow's, Keras's and the user's
    modules: 270,000 after ``import tensorflow``) from the garbage
    collector, and at exit the run's own objects too.

    None of them becomes garbage, yet each full collection walks them all,
    and the interpreter's shutdown runs several: without this, a short run
    took 14% (TF1) and 31% (TF2) more CPU (docs/SPEED.md, "Process start
    and exit").
    ``gc.freeze`` is the interpreter's switch for this. At exit nothing of
    ours waits on the collector: the summary writers, checkpoints and run
    files are closed before the entry point returns; the OS frees the rest.
    """
    gc.freeze()
    atexit.unregister(gc.freeze)  # once, however often it is called
    atexit.register(gc.freeze)
