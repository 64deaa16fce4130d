"""``tf.contrib.graph_editor`` after install(): TF 1.15's graph editor
(select ops and tensors, views of subgraphs, reroute, detach and connect,
copy and ``graph_replace``) on TensorFlow 2.21's graphs, with TF 1.15's
names, arguments and results.

It went with ``tf.contrib`` in TensorFlow 2.0, and the programs that import
it stop at that line whatever they were asked to do: every GPT-2
fine-tuner built on nshepperd's ``train.py`` or gpt-2-simple (OpenAI's
gradient checkpointing, ``memory_saving_gradients.py``, imports it at the
top), meta-learning and hyperparameter-gradient code (``graph_replace``),
saliency tools. ``import tensorflow.contrib.graph_editor as ge`` and
``from tensorflow.contrib.graph_editor import subgraph`` give this package
and its modules.
"""

from tf1_train.compat.graph_editor import edit, reroute, select, subgraph, transform, util
from tf1_train.compat.graph_editor.edit import *  # noqa: F403
from tf1_train.compat.graph_editor.reroute import *  # noqa: F403
from tf1_train.compat.graph_editor.select import *  # noqa: F403
from tf1_train.compat.graph_editor.subgraph import *  # noqa: F403
from tf1_train.compat.graph_editor.transform import *  # noqa: F403
from tf1_train.compat.graph_editor.util import *  # noqa: F403

ph = util.make_placeholder_from_dtype_and_shape
sgv = subgraph.make_view
sgv_scope = subgraph.make_view_from_scope

MODULES = ("edit", "reroute", "select", "subgraph", "transform", "util")
# every public name of TF 1.15's tensorflow.contrib.graph_editor
NAMES = tuple(
    sorted(
        {name for m in (edit, reroute, select, subgraph, transform, util) for name in m.__all__}
        | set(MODULES)
        | {"ph", "sgv", "sgv_scope"}
    )
)


def sys_modules(package: str) -> dict:
    """``{name: module}`` serving this package as ``<package>.graph_editor``."""
    import sys

    this = sys.modules[__name__]
    full = f"{package}.graph_editor"
    return {full: this, **{f"{full}.{m}": getattr(this, m) for m in MODULES}}
