"""Is the input pipeline the bottleneck? Real MNIST-format files vs synthetic data.

Writes 60,000 + 10,000 random 28x28 images as the four MNIST IDX files in a
temporary directory and builds two lenet5 training graphs: one reading those
files through the real pipeline (IDX -> in-memory source -> tf.data), one
with --use_synthetic_data (inputs already on the device). Both sessions stay
open and run alternating blocks of steps, so a load change on the machine
hits both alike; the script prints the median examples/sec of each over the
blocks, their ratio, and the median of the ratios of neighbouring blocks
(robust to other work on the machine). The real pipeline is good enough at
>= 95%.

    python scripts/input_throughput.py [--blocks 40] [--block_steps 10]
        [--batch_size 128] [--num_gpus 1] [--gzip]
"""

import argparse
import gzip
import os
import statistics
import struct
import sys
import tempfile
import time

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tf1_train import config as cfglib  # noqa: E402  (this checkout's package)
from tf1_train import data, devices, graph  # noqa: E402

v1 = tf.compat.v1


def write_idx(path: str, array: np.ndarray, compress: bool) -> None:
    header = struct.pack(f">I{array.ndim}I", 0x800 | array.ndim, *array.shape)
    opener = gzip.open if compress else open
    with opener(path + (".gz" if compress else ""), "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


def write_mnist(directory: str, compress: bool) -> None:
    rng = np.random.RandomState(0)
    for prefix, n in (("train", 60000), ("t10k", 10000)):
        images = rng.randint(0, 256, (n, 28, 28))
        write_idx(os.path.join(directory, f"{prefix}-images-idx3-ubyte"), images, compress)
        labels = rng.randint(0, 10, n)
        write_idx(os.path.join(directory, f"{prefix}-labels-idx1-ubyte"), labels, compress)


def open_session(args, data_dir: str, synthetic: bool):
    """A built graph and an initialised session for one input mode."""
    data_cfg = cfglib.DataConfig(
        dataset="mnist", data_dir=data_dir, use_synthetic_data=synthetic, batch_size=args.batch_size
    )
    dev_cfg = cfglib.DeviceConfig(num_towers=args.num_gpus, device="cpu")
    opt_cfg = cfglib.OptimizerConfig(optimizer="momentum", learning_rate=0.01)
    plan = devices.plan_devices(dev_cfg, 0)
    g = graph.build("lenet5", data.load_source(data_cfg), data_cfg, dev_cfg, opt_cfg, plan, 1)
    sess = v1.Session(graph=g.graph, config=devices.session_config(dev_cfg, plan))
    sess.run(g.init_op)
    sess.run(g.input_init)
    return sess, g.train_op


def block_rate(sess, train_op, steps: int, examples_per_step: int) -> float:
    start = time.perf_counter()
    for _ in range(steps):
        sess.run(train_op)
    return steps * examples_per_step / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=40)
    parser.add_argument("--block_steps", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--num_gpus", type=int, default=1)
    parser.add_argument("--gzip", action="store_true", help="write the IDX files gzipped")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        write_mnist(tmp, args.gzip)
        runs = {
            mode: open_session(args, tmp, mode == "synthetic") for mode in ("real", "synthetic")
        }
    per_step = args.batch_size * args.num_gpus
    rates = {mode: [] for mode in runs}
    for sess, op in runs.values():
        block_rate(sess, op, 2 * args.block_steps, per_step)  # warm-up
    for block in range(args.blocks):
        order = ("real", "synthetic") if block % 2 == 0 else ("synthetic", "real")
        for mode in order:
            sess, op = runs[mode]
            rates[mode].append(block_rate(sess, op, args.block_steps, per_step))
    real, synth = statistics.median(rates["real"]), statistics.median(rates["synthetic"])
    paired = statistics.median(r / s for r, s in zip(rates["real"], rates["synthetic"]))
    print(
        f"lenet5, batch {args.batch_size} x {args.num_gpus} tower(s), {args.blocks} alternating "
        f"blocks of {args.block_steps} steps: median examples/sec real MNIST files {real:.0f}, "
        f"synthetic {synth:.0f}; ratio of medians {100 * real / synth:.1f}%, "
        f"median of paired ratios {100 * paired:.1f}%"
    )


if __name__ == "__main__":
    main()
