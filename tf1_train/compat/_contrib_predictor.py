"""``tf.contrib.predictor.from_saved_model`` after install().

TF 1.x inference scripts loaded an exported model in one line,
``predict = tf.contrib.predictor.from_saved_model(export_dir)``, and called
``predict({"x": batch})`` for a dict of NumPy outputs (BERT's and the
Estimator tutorials' serving checks). The module went with ``tf.contrib``;
TensorFlow 2.21 still loads a TF1 SavedModel into a session
(``tf.compat.v1.saved_model.loader.load``), which is what TF 1.15's predictor
did: a graph of its own, the ``serve`` tags, the ``serving_default``
signature (or the one named, or ``input_names``/``output_names``), and
``session.run`` of the signature's outputs fed with the given inputs. This
module does the same, in those steps, with TF 1.15's checks and messages.
``from_estimator`` and ``from_contrib_estimator`` are not served (their line
says: export the Estimator with ``export_saved_model`` and load that).
"""

from __future__ import annotations

import tensorflow as tf

KEPT = ("Predictor", "from_saved_model")
DEFAULT_TAGS = "serve"


class Predictor:
    """A loaded model as TF 1.15's predictor was: called with a dict of inputs."""

    def __init__(self, graph, session, feed_tensors, fetch_tensors):
        self._graph, self._session = graph, session
        self._feed_tensors, self._fetch_tensors = feed_tensors, fetch_tensors

    graph = property(lambda self: self._graph)
    session = property(lambda self: self._session)
    feed_tensors = property(lambda self: self._feed_tensors)
    fetch_tensors = property(lambda self: self._fetch_tensors)

    def __repr__(self):
        return (f"{type(self).__name__} with feed tensors {self._feed_tensors} and "
                f"fetch_tensors {self._fetch_tensors}")  # fmt: skip

    def __call__(self, input_dict):
        unexpected = set(input_dict) - set(self._feed_tensors)
        if unexpected:
            raise ValueError(
                f"Got unexpected keys in input_dict: {unexpected}\n"
                f"expected: {set(self._feed_tensors)}"
            )
        feed = {t: input_dict[k] for k, t in self._feed_tensors.items()
                if input_dict.get(k) is not None}  # fmt: skip
        return self._session.run(fetches=self._fetch_tensors, feed_dict=feed)


def _signature(meta_graph, key):
    key = key or tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    if key in meta_graph.signature_def:
        return meta_graph.signature_def[key]
    alternative = f"default_input_alternative:{key}"  # an Estimator's export of TF 1.x
    if alternative in meta_graph.signature_def:
        return meta_graph.signature_def[alternative]
    raise ValueError(
        f'Got signature_def_key "{key}". Available signatures are {list(meta_graph.signature_def)}.'
    )


def from_saved_model(export_dir, signature_def_key=None, signature_def=None, input_names=None,
                     output_names=None, tags=None, graph=None, config=None):  # fmt: skip
    """TF 1.15's: the SavedModel loaded into a session of its own graph."""
    if (input_names is None) != (output_names is None):
        raise ValueError(
            "input_names and output_names must both be specified or both be unspecified."
        )
    given = [signature_def_key is not None, signature_def is not None, input_names is not None]
    if sum(given) > 1:
        raise ValueError(
            "You must specify at most one of signature_def_key OR signature_def OR "
            "(input_names AND output_names)."
        )
    graph = graph or tf.Graph()
    with graph.as_default():
        session = tf.compat.v1.Session(config=config)
        meta_graph = tf.compat.v1.saved_model.loader.load(
            session, (tags or DEFAULT_TAGS).split(","), export_dir
        )
    if input_names is None:
        signature = signature_def or _signature(meta_graph, signature_def_key)
        input_names = {k: v.name for k, v in signature.inputs.items()}
        output_names = {k: v.name for k, v in signature.outputs.items()}
    feeds = {k: graph.get_tensor_by_name(v) for k, v in input_names.items()}
    fetches = {k: graph.get_tensor_by_name(v) for k, v in output_names.items()}
    return Predictor(graph, session, feeds, fetches)


def resolve(name: str):
    """``tf.contrib.predictor.<name>`` after install()."""
    return {"Predictor": Predictor, "from_saved_model": from_saved_model}[name]
