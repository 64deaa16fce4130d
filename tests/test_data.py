"""Input sources: each reader returns exactly what was written; order, shards,
resume and augmentation are pure functions of the seed and the step."""

import dataclasses
import gzip

import numpy as np
import pytest
import tensorflow as tf

from tests import data_files
from tests.conftest import small_config
from tf1_train import data, devices, graph, train
from tf1_train.config import DataConfig
from tf1_train.data import cifar10, files, mnist, pipeline, synthetic, tfrecord
from tf1_train.data.source import ArraySource
from tf1_train.errors import UserError

v1 = tf.compat.v1


def _run(fetch_ds, steps=None):
    """Every element (or ``steps`` of them) of the dataset ``fetch_ds()`` builds."""
    with tf.Graph().as_default():
        it = v1.data.make_initializable_iterator(fetch_ds())
        nxt = it.get_next()
        out = []
        with v1.Session() as sess:
            sess.run(it.initializer)
            while steps is None or len(out) < steps:
                try:
                    out.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    break
    return out


def read_split(source, split):
    """(uint8 images, labels) of a whole split in stored order, via tf.data.

    Sources read only their test split in order; the training files of a
    TFRecordSource are read by a copy that takes them for its test split.
    """
    if split == "train" and isinstance(source, tfrecord.TFRecordSource):
        source = dataclasses.replace(
            source, test_files=source.train_files, test_counts=source.train_counts
        )
    if split == "train" and isinstance(source, ArraySource):
        return source.train_images, source.train_labels
    batches = _run(lambda: source.eval_batches(7))
    return np.concatenate([b[0] for b in batches]), np.concatenate([b[1] for b in batches])


def _check_same(source, written):
    for split in ("train", "test"):
        images, labels = read_split(source, split)
        np.testing.assert_array_equal(images, written[f"{split}_images"])
        np.testing.assert_array_equal(labels, written[f"{split}_labels"])


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_mnist_reader_gives_exactly_the_written_pixels(tmp_path, compress):
    written = data_files.write_mnist(tmp_path, compress=compress)
    source = mnist.load(str(tmp_path))
    assert source.image_shape == (28, 28, 1) and source.num_train == 24
    _check_same(source, written)


def test_cifar10_reader_turns_channel_planes_into_hwc_pixels(tmp_path):
    written = data_files.write_cifar10(tmp_path)
    source = cifar10.load(str(tmp_path))
    assert source.image_shape == (32, 32, 3) and source.num_train == 20
    _check_same(source, written)


def test_cifar10_is_found_in_the_tarballs_folder(tmp_path):
    nested = tmp_path / "cifar-10-batches-bin"
    nested.mkdir()
    written = data_files.write_cifar10(nested)
    np.testing.assert_array_equal(cifar10.load(str(tmp_path)).test_labels, written["test_labels"])


def test_png_tfrecord_reader_is_pixel_exact(tmp_path):
    written = data_files.write_tfrecord(tmp_path, "png", shape=(6, 5, 3))
    source = tfrecord.load(str(tmp_path))
    assert source.image_shape == (6, 5, 3)
    assert source.train_counts == (5, 5) and source.num_test == 4
    assert source.num_classes == written["train_labels"].max() + 1  # no labels.txt
    _check_same(source, written)


def test_jpeg_tfrecord_reader_gives_labels_and_shape(tmp_path):
    written = data_files.write_tfrecord(tmp_path, "jpeg", shape=(16, 12, 1))
    source = tfrecord.load(str(tmp_path))
    assert source.image_shape == (16, 12, 1)
    images, labels = read_split(source, "train")
    assert images.shape == written["train_images"].shape
    np.testing.assert_array_equal(labels, written["train_labels"])


def test_converter_round_trip_keeps_order_pixels_and_labels(tmp_path, cli):
    src_dir, out_dir = tmp_path / "mnist", tmp_path / "tfr"
    src_dir.mkdir()
    written = data_files.write_mnist(src_dir, compress=True, n_train=11, n_test=5)
    args = ["--dataset=mnist", f"--data_dir={src_dir}", f"--output_dir={out_dir}"]
    out = cli(args + ["--train_shards=3"], module="tf1_train.data.to_tfrecord")
    assert out.returncode == 0, out.stderr
    source = tfrecord.load(str(out_dir))
    assert len(source.train_files) == 3 and source.num_classes == 10  # from labels.txt
    _check_same(source, written)
    again = cli(args, module="tf1_train.data.to_tfrecord")  # refuses to mix old shards in
    errors = [line for line in again.stderr.splitlines() if line.startswith("error: ")]
    assert again.returncode == 2 and errors[0].startswith(f"error: --output_dir={out_dir}: ")


def test_digits_convert_to_8bit_pixels(tmp_path):
    from tf1_train.data import digits, to_tfrecord

    src = digits.load()
    to_tfrecord.convert(src, str(tmp_path), train_shards=2)
    images, labels = read_split(tfrecord.load(str(tmp_path)), "test")
    np.testing.assert_array_equal(images, to_tfrecord.to_8bit(src.test_images, 16.0))
    np.testing.assert_array_equal(labels, src.test_labels)
    assert images.max() == 255


def _sources(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "t").mkdir()
    data_files.write_mnist(tmp_path / "m", n_train=17)
    data_files.write_tfrecord(tmp_path / "t", per_file=6)
    return {
        "mnist": mnist.load(str(tmp_path / "m")),
        "tfrecord": tfrecord.load(str(tmp_path / "t")),
    }


def _train_batches(source, start_step, steps, seed=3, batch=5, augment=False):
    return _run(
        lambda: pipeline.train_dataset(source, batch, seed, start_step, augment=augment), steps
    )


@pytest.mark.parametrize("kind", ["mnist", "tfrecord"])
def test_resumed_input_continues_exactly_across_epochs(tmp_path, kind):
    source = _sources(tmp_path)[kind]
    full = _train_batches(source, 0, 9)  # 45 examples: more than 2 epochs
    resumed = _train_batches(source, 5, 4)
    for (a, la), (b, lb) in zip(full[5:], resumed):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(la, lb)
    firsts = [b[0][0].tobytes() for b in full]
    assert len(set(firsts)) > 1  # batches differ: data really flows
    other_seed = _train_batches(source, 0, 3, seed=4)
    assert any((x[0] != y[0]).any() for x, y in zip(full, other_seed))


@pytest.mark.parametrize("kind", ["mnist", "tfrecord"])
def test_an_epoch_is_a_permutation_of_the_workers_shard(tmp_path, kind):
    source = _sources(tmp_path)[kind]
    train_images = read_split(source, "train")[0]
    index = {image.tobytes(): i for i, image in enumerate(train_images)}
    shards = 3 if kind == "mnist" else 2  # tfrecord shards whole files (2 of 6 records)
    for shard in range(shards):
        n = source.shard_size(shards, shard)
        two_epochs = _run(
            lambda s=shard, n=n: pipeline.train_dataset(source, n, 3, 0, shards, s), 2
        )
        first, second = [[index[x.tobytes()] for x in images] for images, _ in two_epochs]
        mine = range(shard, 17, 3) if kind == "mnist" else range(6 * shard, 6 * shard + 6)
        assert sorted(first) == sorted(second) == list(mine)
        assert first != second  # each epoch has its own order


def test_tfrecord_shards_are_whole_files(tmp_path):
    source = _sources(tmp_path)["tfrecord"]
    assert [source.shard_size(2, i) for i in range(2)] == [6, 6]
    with pytest.raises(UserError, match=r"2 train-\* file\(s\) cannot be split over 3 workers"):
        source.shard_size(3, 0)


def _cifar(tmp_path):
    data_files.write_cifar10(tmp_path, per_batch=2)
    return cifar10.load(str(tmp_path))


def test_augmentation_crops_and_flips_reproducibly_and_resumes_exactly(tmp_path):
    source = _cifar(tmp_path)
    plain = _train_batches(source, 0, 6, batch=4)
    aug = _train_batches(source, 0, 6, batch=4, augment=True)
    again = _train_batches(source, 0, 6, batch=4, augment=True)
    resumed = _train_batches(source, 3, 3, batch=4, augment=True)
    other = _train_batches(source, 0, 6, batch=4, augment=True, seed=9)
    for a, b in zip(aug, again):
        np.testing.assert_array_equal(a[0], b[0])
    for a, b in zip(aug[3:], resumed):
        np.testing.assert_array_equal(a[0], b[0])
    assert any((a[0] != b[0]).any() for a, b in zip(aug, other))
    moved = 0
    for (x, labels), (y, aug_labels) in zip(plain, aug):
        np.testing.assert_array_equal(labels, aug_labels)  # same order
        for original, augmented in zip(x, y):
            shift, flipped = _find_crop(original, augmented)
            moved += shift != (4, 4) or flipped
    assert moved > 12  # most of 24 examples were shifted or flipped


def _find_crop(original, augmented):
    """The (dy, dx, flipped) window of the zero-padded original it came from."""
    padded = np.pad(original, [(4, 4), (4, 4), (0, 0)])
    for dy in range(9):
        for dx in range(9):
            window = padded[dy : dy + 32, dx : dx + 32]
            for flipped in (False, True):
                if np.array_equal(window[:, ::-1] if flipped else window, augmented):
                    return (dy, dx), flipped
    raise AssertionError("augmented image is no crop/flip of the padded original")


def test_augmentation_is_for_cifar10_training_only():
    assert data.augments(DataConfig(dataset="cifar10", data_dir="x"))
    assert not data.augments(DataConfig(dataset="cifar10", data_dir="x", augment=False))
    assert not data.augments(DataConfig(dataset="cifar10", use_synthetic_data=True))
    assert not data.augments(DataConfig(dataset="mnist", data_dir="x"))


@pytest.mark.parametrize("dataset", ["digits", "mnist", "cifar10", "tfrecord"])
def test_synthetic_data_needs_no_files(dataset):
    source = data.load_source(DataConfig(dataset=dataset, use_synthetic_data=True))
    assert source.image_shape == synthetic.SPECS[dataset].image_shape
    images, labels = read_split(source, "test")
    assert images.shape == (synthetic.EVAL_EXAMPLES, *source.image_shape)
    assert labels.max() < source.num_classes
    (batch, _), (again, _) = _train_batches(source, 0, 2, batch=4)
    assert batch.shape == (4, *source.image_shape) and (batch != again).any()


def test_synthetic_inputs_are_local_variables_on_each_tower_device(tmp_path):
    cfg = small_config(
        tmp_path, model="lenet5", towers=2, batch=4, dataset="cifar10", use_synthetic_data=True
    )
    plan = devices.plan_devices(cfg.devices, 0)
    g = graph.build(
        cfg.model, data.load_source(cfg.data), cfg.data, cfg.devices, cfg.optimizer, plan, 1
    )
    with g.graph.as_default():
        local = {v.op.name: v for v in v1.local_variables()}
        global_names = {v.op.name for v in v1.global_variables()}
    assert sorted(local) == [f"synthetic_{i}/{n}" for i in (0, 1) for n in ("images", "labels")]
    assert not global_names & set(local)  # never checkpointed
    for i in (0, 1):
        assert devices.canonical(local[f"synthetic_{i}/images"].device) == f"/device:CPU:{i}"
    assert local["synthetic_1/images"].shape == (4, 32, 32, 3)
    with v1.Session(graph=g.graph, config=devices.session_config(cfg.devices, plan)) as sess:
        sess.run(g.init_op)
        before = sess.run(local["synthetic_0/images"])
        sess.run(g.train_op)
        np.testing.assert_array_equal(sess.run(local["synthetic_0/images"]), before)


@pytest.mark.parametrize("dataset", ["mnist", "cifar10", "tfrecord"])
def test_a_few_steps_train_on_each_real_format(tmp_path, dataset):
    writer = {
        "mnist": lambda d: data_files.write_mnist(d, compress=True),
        "cifar10": data_files.write_cifar10,
        "tfrecord": data_files.write_tfrecord,
    }[dataset]
    (tmp_path / "data").mkdir()
    writer(tmp_path / "data")
    cfg = small_config(
        tmp_path / "run",
        model="lenet5",
        towers=2,
        batch=2,
        steps=3,
        dataset=dataset,
        data_dir=str(tmp_path / "data"),
    )
    result = train.run(cfg, gpus_found=0)
    assert len(result.losses) == 3 and all(np.isfinite(result.losses))
    assert result.summary["dataset"] == dataset and 0 <= result.summary["test_accuracy"] <= 1


def _idx_problem(d, kind):
    data_files.write_mnist(d)
    images, labels = d / "train-images-idx3-ubyte", d / "train-labels-idx1-ubyte"
    if kind == "magic":
        images.write_bytes(labels.read_bytes())
        return images, "magic number 0x00000801, expected 0x00000803"
    if kind == "long":
        images.write_bytes(images.read_bytes() + b"\0")
        return images, "too long: the header promises 24 x 28 x 28 = 18816 bytes"
    if kind == "huge":  # 4e9 images: the header alone is refused, nothing read
        raw = images.read_bytes()
        images.write_bytes(raw[:4] + (4_000_000_000).to_bytes(4, "big") + raw[8:])
        return images, "= 3,136,000,000,000 bytes, more than the 2,147,483,648 a dataset"
    if kind == "label":
        raw = bytearray(labels.read_bytes())
        raw[8 + 5] = 12
        labels.write_bytes(bytes(raw))
        return labels, "label 12 at record 5; MNIST labels are 0..9"
    data_files.write_idx(str(labels), np.zeros(23, np.uint8))
    return labels, "holds 23 labels but"


@pytest.mark.parametrize("kind", ["magic", "long", "huge", "label", "count"])
def test_idx_problems_name_the_file_and_what_was_expected(tmp_path, kind):
    path, needle = _idx_problem(tmp_path, kind)
    with pytest.raises(UserError) as e:
        mnist.load(str(tmp_path))
    assert str(e.value).startswith(f"--data_dir: {path}: ") and needle in str(e.value)


def test_a_gz_is_decompressed_in_chunks_and_refused_past_the_limit(tmp_path):
    path = tmp_path / "x.gz"
    path.write_bytes(gzip.compress(bytes(3 * 2**20 + 5)))
    assert files.read_bytes(str(path), limit=3 * 2**20 + 5) == bytes(3 * 2**20 + 5)
    with pytest.raises(UserError, match=r"x\.gz: inflates past 3,145,728 bytes, more than a"):
        files.read_bytes(str(path), limit=3 * 2**20)


def test_preloaded_arrays_stay_out_of_the_graph_def():
    rng = np.random.RandomState(0)
    images = rng.randint(0, 256, (2000, 32, 32, 3)).astype(np.uint8)  # 6 MB
    source = ArraySource("big", images, np.zeros(2000), images[:10], np.zeros(10), 10)
    with tf.Graph().as_default() as g:
        pipeline.train_dataset(source, 8, 1)
        pipeline.eval_dataset(source, 8)
    assert g.as_graph_def().ByteSize() < 100_000
    assert len(_train_batches(source, 0, 2, batch=8)) == 2  # and it still reads them
