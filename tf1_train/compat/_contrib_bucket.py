"""``tf.contrib.training.bucket`` and ``bucket_by_sequence_length``, as TF 1.15 built them.

Before ``tf.data``, TF 1.x programs batched variable-length sequences by
length with these two queue helpers: Kyubyong's Tacotron and dc_tts,
google/seq2seq's input pipeline, CRNN-style OCR trainers, speech
recognisers. They went with ``tf.contrib``; the queues they were made of did
not (``tf.compat.v1`` keeps ``FIFOQueue``, ``PaddingFIFOQueue`` and queue
runners), so they are built here again from their documented behaviour:

- one queue per bucket (``PaddingFIFOQueue`` under ``dynamic_pad``, else
  ``FIFOQueue``), of ``bucket_capacities[i]`` (default ``capacity``)
  elements; an element goes to the queue ``which_bucket`` names, or
  nowhere when ``keep_input`` is False;
- per bucket, a queue runner that moves ``batch_size`` elements at a time
  (``dequeue_many``, or ``dequeue_up_to`` under
  ``allow_smaller_final_batch``) onto one top ``PaddingFIFOQueue`` of
  ``capacity`` batches, with the bucket's id; a runner with ``num_threads``
  copies of the enqueue op feeds the buckets;
- the result is the next batch off the top queue, as ``(bucket id,
  tensors)`` in the structure given (list or dict; sparse tensors go
  through ``SparseTensorsMap`` as ``tf.train.batch``'s do, by TensorFlow's
  own helpers for that);
- the summaries TF 1.15 added, by its names: ``bucket/<queue>/size`` per
  bucket (which reported the top queue's size, as there) and
  ``bucket/<top queue>/fraction_of_<capacity>_full``.

TF 1.x's end of input comes with it: the runner feeding the buckets closes
the top queue when its input runs out, so the elements still in buckets
never arrive, ``allow_smaller_final_batch`` or not (tensorflow/tensorflow
#8182, "17 batches of 5" for 100 elements). Programs trained so; a porter
who asks for smaller final batches gets one warning line saying so.

``bucket_by_sequence_length`` puts a length ``l`` in bucket ``i`` where
``b[i-1] <= l < b[i]`` over the boundaries with -inf and +inf added, and
returns the batch's lengths first. Argument errors are TF 1.15's messages.
tests/test_compat_contrib_bucket.py holds both to a model of their queues
in Python: every batch is one bucket's elements, in the order they came.
"""

from __future__ import annotations

import importlib
from typing import Any, Sequence, Tuple

from absl import logging

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_NO_SMALLER_BATCH = (
    "tf.contrib.training.bucket(allow_smaller_final_batch=True): as on TF 1.x, when the input "
    "ends the top queue closes first, so what is still in a bucket is dropped, not returned "
    "as a smaller batch (tensorflow/tensorflow#8182); tf.data.experimental."
    "bucket_by_sequence_length returns it"
)


def _input():
    """TensorFlow's own tf.train.batch helpers (sparse tensors, shapes, queue kind)."""
    return importlib.import_module("tensorflow.python.training.input")


def _as_tensors(values) -> list:
    """Tensors, IndexedSlices kept (what TF 1.15's bucket() checked its inputs with)."""
    slices = importlib.import_module("tensorflow.python.framework.indexed_slices")
    return slices.convert_n_to_tensor_or_indexed_slices(values)


def bucket(tensors, which_bucket, batch_size, num_buckets: int, num_threads: int = 1,
           capacity: int = 32, bucket_capacities=None, shapes=None, dynamic_pad: bool = False,
           allow_smaller_final_batch: bool = False, keep_input=True, shared_name=None,
           name=None) -> Tuple[Any, Any]:  # fmt: skip
    """(bucket id, batched ``tensors``): the next batch of one bucket's elements."""
    import tensorflow.compat.v1 as tf

    sizes, per_bucket = _batch_sizes(batch_size, num_buckets)
    capacities = _capacities(bucket_capacities, capacity, num_buckets)
    if allow_smaller_final_batch:
        logging.warning(_NO_SMALLER_BATCH)
    helpers = _input()
    flat = helpers._as_tensor_list(tensors)
    with tf.name_scope(name, "bucket", flat):
        flat = _as_tensors(flat)
        if not flat:
            raise ValueError("Expected at least one tensor in bucket().")
        keep = helpers._validate_keep_input(keep_input, enqueue_many=False)
        flat, sparse_info = helpers._store_sparse_tensors(flat, enqueue_many=False,
                                                          keep_input=keep)  # fmt: skip
        sizes = [_static_or_tensor(s) for s in sizes]
        types = helpers._dtypes([flat])
        shapes = helpers._shapes([flat], shapes, enqueue_many=False)
        which = tf.convert_to_tensor(which_bucket, dtype=tf.int32, name="which_bucket")
        queues = _bucket_queues(helpers._which_queue(dynamic_pad), capacities, types, shapes,
                                shared_name)  # fmt: skip
        # A fixed first dimension only when every batch is surely full and of one known size.
        fixed = not (allow_smaller_final_batch or per_bucket) and isinstance(sizes[-1], int)
        first = sizes[-1] if fixed else None
        top = tf.PaddingFIFOQueue(
            capacity=capacity,
            dtypes=[tf.int32] + types,
            shapes=[tf.TensorShape([])] + [tf.TensorShape([first]).concatenate(s)
                                           for s in queues[0].shapes],
            shared_name=shared_name,
            name="top_queue",
        )  # fmt: skip
        _add_runners(queues, top, sizes, _enqueue_op(queues, which, flat, keep), num_threads,
                     allow_smaller_final_batch)  # fmt: skip
        _add_summaries(queues, top, capacity)
        dequeued = top.dequeue(name="dequeue_top")
        batch = helpers._restore_sparse_tensors(dequeued[1:], sparse_info)
        return dequeued[0], helpers._as_original_type(tensors, batch)


def bucket_by_sequence_length(input_length, tensors, batch_size, bucket_boundaries,
                              num_threads: int = 1, capacity: int = 32, bucket_capacities=None,
                              shapes=None, dynamic_pad: bool = False,
                              allow_smaller_final_batch: bool = False, keep_input=True,
                              shared_name=None, name=None) -> Tuple[Any, Any]:  # fmt: skip
    """(the batch's lengths, batched ``tensors``), elements bucketed by length."""
    import tensorflow.compat.v1 as tf

    flat = _input()._as_tensor_list(tensors)
    _check_boundaries(bucket_boundaries)
    with tf.name_scope(name, "bucket_by_sequence_length", [input_length] + flat):
        length = tf.convert_to_tensor(input_length, dtype=tf.int32, name="input_length")
        lows = [_INT32_MIN] + list(bucket_boundaries)
        highs = list(bucket_boundaries) + [_INT32_MAX]
        inside = tf.logical_and(tf.less_equal(lows, length), tf.less(length, highs))
        which = tf.cast(tf.reduce_min(tf.where(inside)), tf.int32)
        _, batch = bucket(
            tensors=[length] + flat,
            which_bucket=which,
            batch_size=batch_size,
            num_buckets=len(bucket_boundaries) + 1,
            num_threads=num_threads,
            capacity=capacity,
            bucket_capacities=bucket_capacities,
            shapes=None if shapes is None else [tf.TensorShape([])] + list(shapes),
            dynamic_pad=dynamic_pad,
            allow_smaller_final_batch=allow_smaller_final_batch,
            keep_input=keep_input,
            shared_name=shared_name,
        )
        return batch[0], _input()._as_original_type(tensors, batch[1:])


def _batch_sizes(batch_size, num_buckets: int) -> Tuple[list, bool]:
    if isinstance(batch_size, (list, tuple)):
        if len(batch_size) != num_buckets:
            raise ValueError("If batch_size is a list it must have num_buckets elements")
        return list(batch_size), True
    return [batch_size] * num_buckets, False


def _capacities(bucket_capacities, capacity: int, num_buckets: int) -> list:
    capacities = [capacity] * num_buckets if bucket_capacities is None else bucket_capacities
    if len(capacities) != num_buckets:
        raise ValueError(
            f"The list bucket_capacities ({capacities}) must have exactly num_buckets "
            f"({num_buckets}) elements."
        )
    return list(capacities)


def _check_boundaries(boundaries: Sequence[int]) -> None:
    if not isinstance(boundaries, (list, tuple)):
        raise TypeError(f"bucket_boundaries must be a list or tuple, but received: {boundaries}")
    if not boundaries:
        raise ValueError("bucket_boundaries must not be empty")
    for low, high in zip(boundaries[:-1], boundaries[1:]):
        if not isinstance(low, int) or not isinstance(high, int):
            raise TypeError(f"bucket boundaries must be integers, but saw: {low} and {high}")
        if low >= high:
            raise ValueError(
                f"Buckets must contain sequential increasing lengths, but saw: {low} before {high}"
            )


def _static_or_tensor(size):
    """A batch size as a Python int when it is a constant, else an int32 tensor."""
    import tensorflow.compat.v1 as tf

    size = tf.convert_to_tensor(size, dtype=tf.int32, name="batch_size")
    value = tf.get_static_value(size)
    return int(value) if value is not None else size


def _bucket_queues(make_queue, capacities, types, shapes, shared_name) -> list:
    return [
        make_queue(
            capacity=capacity,
            dtypes=types,
            shapes=shapes,
            shared_name=None if shared_name is None else f"{shared_name}_{i}",
            name=f"bucket_queue_{i}",
        )
        for i, capacity in enumerate(capacities)
    ]


def _enqueue_op(queues, which, flat, keep):
    """The element into the queue ``which`` names (each bucket's enqueue under
    a cond on its id), or nothing when ``keep`` is False."""
    import tensorflow.compat.v1 as tf

    def enqueue_which():
        return tf.group(
            *[
                tf.cond(tf.equal(which, i), lambda q=q: q.enqueue(flat), tf.no_op)
                for i, q in enumerate(queues)
            ],
            name="group_enqueues",
        )

    kept = tf.get_static_value(keep)
    if kept is not None:  # as TF 1.x's smart_cond: no cond for a Python or constant bool
        return enqueue_which() if kept else tf.no_op()
    return tf.cond(keep, enqueue_which, tf.no_op)


def _add_runners(queues, top, sizes, enqueue, num_threads: int, smaller: bool) -> None:
    import tensorflow.compat.v1 as tf

    closed = (tf.errors.OutOfRangeError, tf.errors.CancelledError)
    for i, (queue, size) in enumerate(zip(queues, sizes)):
        take = queue.dequeue_up_to if smaller else queue.dequeue_many
        move = top.enqueue([tf.constant(i)] + take(size, name=f"read_bucket_{i}"),
                           name=f"enqueue_from_bucket_{i}")  # fmt: skip
        tf.train.add_queue_runner(
            tf.train.QueueRunner(queue, [move], queue_closed_exception_types=closed)
        )
    tf.train.add_queue_runner(
        tf.train.QueueRunner(top, [enqueue] * num_threads, queue_closed_exception_types=closed)
    )


def _add_summaries(queues, top, capacity: int) -> None:
    import tensorflow.compat.v1 as tf

    size = tf.cast(top.size(), tf.float32)
    for queue in queues:
        tf.summary.scalar(f"bucket/{queue.name}/size", size)
    tf.summary.scalar(f"bucket/{top.name}/fraction_of_{capacity}_full", size * (1.0 / capacity))
