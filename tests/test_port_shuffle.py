"""A seeded ``Dataset.shuffle(...)`` followed directly by ``repeat()``
(tf1_train/port/shuffle_rules.py): TF 1.15.5 fused the pair and served
another order than TensorFlow 2.21 does with the same seeds, from the first
epoch; the pipelines it did not fuse serve TF 1.15.5's order on 2.21. The scan
says ``changes numbers`` on exactly the fused ones."""

import pytest
import tensorflow as tf

from tf1_train.port import scan

# Measured on TensorFlow 1.15.5 (2026-12-07): two epochs of range(10), one batch each.
FIRST = [7, 9, 3, 6, 5, 1, 8, 4, 0, 2]  # the op's seeds themselves: TF 1.15's fused first epoch
PIPELINES = {
    "d.shuffle(100, seed=1).repeat(2)": [FIRST, [2, 9, 7, 6, 8, 5, 1, 0, 3, 4]],
    "d.shuffle(100, seed=1, reshuffle_each_iteration=False).repeat(2)": [FIRST, FIRST],
    "d.shuffle(100, seed=1).map(lambda x: x * 2).repeat(2)": [
        [0, 18, 10, 2, 4, 14, 6, 16, 12, 8], [16, 18, 14, 10, 8, 12, 4, 2, 0, 6]],
    "d.shuffle(100, seed=1).batch(5).repeat(2).unbatch()": [
        [0, 9, 5, 1, 2, 7, 3, 8, 6, 4], [8, 9, 7, 5, 4, 6, 2, 1, 0, 3]],
}  # fmt: skip
FUSED = "d.shuffle(100, seed=1).repeat(2)"


def _epochs(pipeline: str) -> list:
    with tf.Graph().as_default():
        d = tf.data.Dataset.range(10)  # noqa: F841 (the pipeline's text reads it)
        dataset = eval(pipeline).batch(10)
        batch = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
        with tf.compat.v1.Session() as sess:
            return [sess.run(batch).tolist() for _ in range(2)]


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
def test_only_the_fused_pipeline_leaves_tf_1_15_5s_order_and_only_it_is_reported(
    tmp_path, pipeline
):
    fused = pipeline == FUSED
    epochs = _epochs(pipeline)
    assert (epochs == PIPELINES[pipeline]) != fused
    assert all(sorted(e) == sorted(PIPELINES[pipeline][0]) for e in epochs)
    (tmp_path / "prog.py").write_text(
        f"import tensorflow as tf\nd = tf.data.Dataset.range(10)\nx = {pipeline}\n"
    )
    found = [f for f in scan.scan([str(tmp_path)]).findings if f.rule == "dataset-shuffle-repeat"]
    assert [(f.line, f.severity) for f in found] == ([(3, "changes numbers")] if fused else [])
