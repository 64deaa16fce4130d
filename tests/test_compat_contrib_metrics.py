"""tf.contrib.metrics after tf1_train.compat.install(), held to TensorFlow 1.15.5.

The programs of tests/contrib_metrics_cases.py must compute what TF 1.15.5
computed (tests/goldens/contrib_metrics_tf115.npz, from
scripts/make_contrib_opt_goldens.py): each update op's output and each value
after it over three batches, the metrics' local variables by name, and the
stateless functions' results.
"""

import contrib_metrics_cases as cases
import goldens_tf115
import pytest
import tensorflow as tf

v1 = tf.compat.v1


@pytest.fixture(scope="module")
def golden() -> dict:
    return goldens_tf115.load("contrib_metrics_tf115.npz")


def _metrics():
    names = {}
    exec("import tensorflow.contrib.metrics as metrics", names)  # as a user's module does
    return names["metrics"]


def test_the_goldens_are_tf_1_15_5s_and_every_case_has_them(golden):
    assert str(golden["version"]) == "1.15.5"
    assert goldens_tf115.case_names(golden) == sorted(cases.CASES)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_case_computes_what_tf_1_15_5_computed(installed, golden, name):
    arrays = cases.CASES[name](_metrics(), v1)
    goldens_tf115.assert_matches(arrays, goldens_tf115.of_case(golden, name))


def test_on_tf1s_reference_variables_the_metrics_compute_tf_1_15_5s_numbers(golden, tmp_path):
    """``--v1_variables``: the metrics' local variables are TF 1.x's reference
    variables (streaming_concat's array changes shape on them too)."""
    names = sorted(cases.CASES)
    got = goldens_tf115.run_on_reference_variables("contrib_metrics_cases", "metrics", names,
                                                   tmp_path)  # fmt: skip
    for name in names:
        want = goldens_tf115.of_case(golden, name)
        goldens_tf115.assert_matches(goldens_tf115.of_case(got, name), want)


def test_the_streaming_order_is_predictions_first_unlike_tf_metrics(installed):
    """The porting trap the kept names guard: tf.compat.v1.metrics.auc takes
    (labels, predictions); the renamed call with TF1's positional order
    computes another AUC without an error."""
    with tf.Graph().as_default():
        probs = tf.constant([0.9, 0.4, 0.3, 0.6, 0.7, 0.1])
        labels = tf.constant([True, True, False, True, False, False])
        aucs = {
            "contrib": _metrics().streaming_auc(probs, labels),
            "ported": v1.metrics.auc(labels, probs),
            "renamed only": v1.metrics.auc(probs, tf.cast(labels, tf.float32)),
        }
        with v1.Session() as sess:
            sess.run(v1.local_variables_initializer())
            sess.run({k: u for k, (_, u) in aucs.items()})
            got = sess.run({k: v for k, (v, _) in aucs.items()})
    assert got["contrib"] == got["ported"] == pytest.approx(7 / 9, abs=0.01)  # 7 of 9 pairs
    assert abs(got["renamed only"] - got["contrib"]) > 0.2


def test_the_aggregators_split_pairs_and_maps(installed):
    m = _metrics()
    assert m.aggregate_metrics(("v1", "u1"), ("v2", "u2")) == (["v1", "v2"], ["u1", "u2"])
    assert m.aggregate_metric_map({"a": ("v", "u")}) == ({"a": "v"}, {"a": "u"})
    with pytest.raises(ValueError, match="at least one"):
        m.aggregate_metrics()


def test_every_name_of_tf_1_15s_module_is_served(installed, golden):
    from tf1_train.compat import _contrib, _contrib_metrics

    m = _metrics()
    assert sorted(_contrib_metrics.KEPT) == sorted(golden["names"])  # TF 1.15.5's dir()
    for name in _contrib_metrics.KEPT:
        assert callable(getattr(m, name)), name
        assert _contrib.kept("metrics", name)
    with pytest.raises(AttributeError, match="every name of TF 1.15's .* is kept"):
        m.streaming_auc_of_my_own  # noqa: B018
