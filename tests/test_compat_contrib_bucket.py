"""``tf.contrib.training.bucket`` and ``bucket_by_sequence_length`` after
tf1_train.compat.install().

Held to a model of their queues in Python: with one enqueue thread, each
bucket's queue is FIFO, so the batches of bucket ``i``, in the order they
come off the top queue, are the first of the elements that went to ``i`` in
input order, cut into ``batch_size`` pieces (none of a dropped element).
Which bucket's batch comes next depends on thread timing, as on TF 1.x, so
each bucket's batches are held to a prefix of its model. At the end of input
the elements left in buckets are dropped, as on TF 1.x (one warning line).
Padding, the returned structure, the shapes, the queue runners and
summaries, and TF 1.15's argument errors are held too. Kyubyong's Tacotron input pipeline
(``slice_input_producer``, ``decode_raw``, ``py_func``, then
``bucket_by_sequence_length`` with ``dynamic_pad=True``) is the user.
"""

import numpy as np
import pytest
import tensorflow as tf

v1 = tf.compat.v1
LENGTHS = [3, 7, 1, 12, 5, 9, 2, 15, 6, 4, 11, 8, 13, 2, 10, 5, 14, 1, 7, 3]
BOUNDARIES = [4, 8, 12]  # buckets: <4, 4-7, 8-11, >=12


def _bucket_of(length, boundaries=BOUNDARIES):
    return sum(length >= b for b in boundaries)


def _model(items, which, batch_size, keep=lambda i: True, passes=20):
    """bucket -> its full batches in order, for ``passes`` over ``items``:
    the queues' model (one enqueue thread, FIFO buckets)."""
    per_bucket = {}
    for i, item in enumerate(items * passes):
        if keep(i % len(items)):
            per_bucket.setdefault(which(item), []).append(item)
    out = {}
    for b, queue in per_bucket.items():
        size = batch_size[b] if isinstance(batch_size, list) else batch_size
        out[b] = [queue[i : i + size] for i in range(0, len(queue) - size + 1, size)]
    return out


def _assert_prefixes(got, model):
    """Each bucket's batches are the first ones the model gives it."""
    for b, batches in got.items():
        assert batches == model[b][: len(batches)], b


def _run(outputs, steps=None):
    """``steps`` batches, or (None) every batch until the input is exhausted."""
    batches = []
    with v1.Session() as sess:
        sess.run([v1.local_variables_initializer(), v1.global_variables_initializer()])
        coord = v1.train.Coordinator()
        threads = v1.train.start_queue_runners(sess, coord)
        try:
            while steps is None or len(batches) < steps:
                batches.append(sess.run(outputs))
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
            coord.join(threads)
    return batches


def _pipeline(batch_size, smaller, num_epochs=None, keep=None):
    """One element per length (``num_epochs`` passes over LENGTHS): ids
    0..n-1, padded, its index and its length."""
    import tensorflow.contrib.training as training

    flat = np.concatenate([np.arange(n, dtype=np.int32) for n in LENGTHS])
    starts = np.cumsum([0] + LENGTHS[:-1]).astype(np.int32)
    index = v1.train.range_input_producer(
        len(LENGTHS), num_epochs=num_epochs, shuffle=False
    ).dequeue()
    length = tf.gather(tf.constant(LENGTHS), index)
    seq = tf.slice(tf.constant(flat), [tf.gather(tf.constant(starts), index)], [length])
    return training.bucket_by_sequence_length(
        input_length=length,
        tensors={"seq": seq, "index": index},
        batch_size=batch_size,
        bucket_boundaries=BOUNDARIES,
        dynamic_pad=True,
        allow_smaller_final_batch=smaller,
        keep_input=True if keep is None else keep(index),
    )


def _by_bucket(batches):
    got = {}
    for batch_lengths, out in batches:
        buckets = {_bucket_of(n) for n in batch_lengths}
        assert len(buckets) == 1, batch_lengths
        assert list(batch_lengths) == [LENGTHS[i] for i in out["index"]]
        # padded on the right with zeros to the longest in the batch
        assert out["seq"].shape == (len(batch_lengths), max(batch_lengths))
        for row, n in zip(out["seq"], batch_lengths):
            assert list(row) == list(range(n)) + [0] * (max(batch_lengths) - n)
        got.setdefault(buckets.pop(), []).append([int(n) for n in batch_lengths])
    return got


@pytest.mark.parametrize("batch_size", [2, 3, [1, 2, 3, 2]])
@pytest.mark.parametrize("smaller", [False, True])
def test_each_batch_is_one_buckets_elements_in_input_order(installed, batch_size, smaller):
    with tf.Graph().as_default():
        lengths, outputs = _pipeline(batch_size, smaller)
        assert sorted(outputs) == ["index", "seq"]
        got = _by_bucket(_run([lengths, outputs], steps=12))
    _assert_prefixes(got, _model(LENGTHS, _bucket_of, batch_size))
    assert sum(map(len, got.values())) == 12


def test_keep_input_drops_elements_before_they_reach_a_bucket(installed):
    with tf.Graph().as_default():
        lengths, outputs = _pipeline(2, False, keep=lambda index: tf.not_equal(index % 3, 2))
        got = _by_bucket(_run([lengths, outputs], steps=10))
    _assert_prefixes(got, _model(LENGTHS, _bucket_of, 2, keep=lambda i: i % 3 != 2))


def test_at_the_end_of_input_what_is_left_in_buckets_is_dropped_as_on_tf_1x(installed, caplog):
    # tensorflow/tensorflow#8182: the runner feeding the buckets closes the top
    # queue when its input runs out, allow_smaller_final_batch or not.
    with tf.Graph().as_default():
        lengths, outputs = _pipeline(3, True, num_epochs=1)
        got = _by_bucket(_run([lengths, outputs]))
    one_pass = _model(LENGTHS, _bucket_of, 3, passes=1)
    _assert_prefixes(got, one_pass)  # full batches only: no smaller final one
    full = sum(len(b) for batches in one_pass.values() for b in batches)
    assert full == 18  # of 20: buckets 8-11 and >=12 keep one each
    assert sum("tensorflow/tensorflow#8182" in r.getMessage() for r in caplog.records) == 1


def test_bucket_returns_the_bucket_id_a_list_static_shapes_runners_and_summaries(installed):
    import tensorflow.contrib.training as training

    with tf.Graph().as_default():
        value = v1.train.range_input_producer(12, shuffle=False).dequeue()
        image = tf.fill([2, 3], tf.cast(value, tf.float32))
        which, (images, values) = training.bucket(
            [image, value], which_bucket=value % 3, batch_size=2, num_buckets=3, capacity=8
        )
        assert images.shape.as_list() == [2, 2, 3] and values.shape.as_list() == [2]
        assert which.dtype == tf.int32 and which.shape.rank == 0
        runners = v1.get_collection(v1.GraphKeys.QUEUE_RUNNERS)
        names = [s.op.name for s in v1.get_collection(v1.GraphKeys.SUMMARIES)][1:]
        batches = _run([which, values, images], steps=9)
    # the producer's runner and summary, then one per bucket and one feeding the buckets
    assert len(runners) == 1 + 4
    assert names == [f"bucket/bucket/bucket/bucket_queue_{i}/size" for i in range(3)] + [
        "bucket/bucket/bucket/top_queue/fraction_of_8_full"
    ]
    got = {}
    for which_value, batch, imgs in batches:
        assert all(v % 3 == which_value for v in batch)
        assert (imgs == batch[:, None, None]).all()
        got.setdefault(int(which_value), []).append([int(v) for v in batch])
    _assert_prefixes(got, _model(list(range(12)), lambda v: v % 3, 2))
    assert sum(map(len, got.values())) == 9


def test_smaller_final_batches_leave_the_first_dimension_unknown(installed):
    with tf.Graph().as_default():
        lengths, outputs = _pipeline(2, True)
        assert lengths.shape.as_list() == [None]
        assert outputs["seq"].shape.as_list() == [None, None]
    with tf.Graph().as_default():
        lengths, outputs = _pipeline(2, False)
        assert lengths.shape.as_list() == [2] and outputs["seq"].shape.as_list() == [2, None]
    with tf.Graph().as_default():
        lengths, _ = _pipeline([1, 2, 3, 2], False)
        assert lengths.shape.as_list() == [None]


@pytest.mark.parametrize(
    "kwargs,error,message",
    [
        ({"bucket_boundaries": 4}, TypeError, "bucket_boundaries must be a list or tuple"),
        ({"bucket_boundaries": []}, ValueError, "bucket_boundaries must not be empty"),
        ({"bucket_boundaries": [4, 4]}, ValueError, "sequential increasing lengths, but saw: 4"),
        ({"bucket_boundaries": [4, 8.0]}, TypeError, "bucket boundaries must be integers"),
        ({"batch_size": [2, 2]}, ValueError, "must have num_buckets elements"),
        ({"bucket_capacities": [8]}, ValueError, r"must have exactly num_buckets \(3\)"),
    ],
)
def test_argument_errors_are_tf_1_15s(installed, kwargs, error, message):
    import tensorflow.contrib.training as training

    args = {"input_length": 3, "tensors": [tf.constant([1, 2, 3])], "batch_size": 2,
            "bucket_boundaries": [4, 8]}  # fmt: skip
    with tf.Graph().as_default(), pytest.raises(error, match=message):
        training.bucket_by_sequence_length(**{**args, **kwargs})
