"""A Kyubyong-Tacotron-style input pipeline (tests/legacy_scripts/
bucket_pipeline_style.py, ours: slice_input_producer, decode_raw, py_func,
``tf.contrib.training.bucket_by_sequence_length`` with dynamic_pad and 16
enqueue threads) trains as written under ``python -m tf1_train.compat --v1``.
Before tf1_train.compat had the bucketing queues it stopped at that line with
AttributeError."""

import os
import re

from conftest import ROOT, run_cli

SCRIPT = os.path.join(ROOT, "tests", "legacy_scripts", "bucket_pipeline_style.py")


def test_a_bucketed_pipeline_trains_as_written():
    proc = run_cli(["--v1", SCRIPT], module="tf1_train.compat", timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    bounds = [
        int(b) for b in re.search(r"^boundaries ([\d ]+)$", proc.stdout, re.M).group(1).split()
    ]
    batches = [
        list(map(int, b.split())) for b in re.findall(r"^batch \d+ ([\d ]+)$", proc.stdout, re.M)
    ]
    assert len(batches) == 40 and all(len(b) == 4 for b in batches)
    for lengths in batches:  # one bucket's texts in each batch
        assert len({sum(n >= b for b in bounds) for n in lengths}) == 1, (lengths, bounds)
    losses = [float(v) for v in re.findall(r"^loss \d+ ([\d.]+)$", proc.stdout, re.M)]
    assert max(losses[-5:]) < 0.5 * losses[0], losses
    assert proc.stdout.rstrip().endswith("done")
