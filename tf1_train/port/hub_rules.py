"""TensorFlow Hub's TF1 format: ``hub.Module(handle)``, ``create_module_spec``,
``add_signature``, ``text_embedding_column``, ... (ELMo, the Universal
Sentence Encoder and BERT's first hub modules were published so, and TF1 code
bases load them). tensorflow-hub 0.16 removed all of it (and needs tf_keras
to import); 0.15.0, the last with it, imports ``tf.compat.v1.estimator``,
which TensorFlow 2.16 dropped, so on TensorFlow 2.21 it imports only after
tf1_train.compat.install() serves the Estimator from tensorflow-estimator
2.15.0. Then a module TensorFlow 1.15.5 exported loads, computes and
fine-tunes as it did there (tests/test_compat_hub.py).

Reported at each use of a removed name, ``works`` where the program runs
through tf1_train.compat and tensorflow-hub 0.15 (or older) and
tensorflow-estimator are installed.
"""

import ast
import functools
from importlib import metadata
from typing import Dict, Iterator, Tuple

from tf1_train.port.names import Aliases
from tf1_train.port.rules import BREAKS, _rule

ROW = "TensorFlow Hub's TF1 format"
# The public names tensorflow-hub 0.15.0 has and 0.16.1 does not.
REMOVED = (
    "ImageModuleInfo",
    "LatestModuleExporter",
    "Module",
    "ModuleSpec",
    "add_signature",
    "attach_image_module_info",
    "attach_message",
    "create_module_spec",
    "create_module_spec_from_saved_model",
    "eval_function_for_module",
    "get_expected_image_size",
    "get_num_image_channels",
    "image_embedding_column",
    "load_module_spec",
    "register_module_for_export",
    "sparse_text_embedding_column",
    "text_embedding_column",
    "text_embedding_column_v2",
)
_rule(
    "hub-tf1-format",
    BREAKS,
    "tensorflow-hub 0.16 removed the TF1 Hub format ({name}: AttributeError, and without "
    "tf_keras the import fails first); pip install tensorflow-hub==0.15.0 "
    "tensorflow-estimator==2.15.0 and run the program through python -m tf1_train.compat "
    "(0.15.0 reads tf.compat.v1.estimator, which install() serves; a module TF 1.x exported "
    "loads and fine-tunes as it did); in TF 2, hub.load or hub.KerasLayer of the module's "
    "TF2 SavedModel version",
    "leaves it unchanged and reports nothing",
    ROW,
)


def findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Each read or import of a name of the TF1 Hub format."""
    hub = Aliases(tree, roots=("tensorflow_hub",))
    if not hub.names:
        return
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "tensorflow_hub":
            for alias in (a for a in node.names if a.name in REMOVED):
                yield node, "hub-tf1-format", f"tensorflow_hub.{alias.name}", {"name": alias.name}
        elif isinstance(node, ast.Attribute) and id(node) not in inner:
            path = hub.resolve(node) or ""
            name = path[len("tensorflow_hub.") :]
            if path.startswith("tensorflow_hub.") and name in REMOVED:
                yield node, "hub-tf1-format", ast.unparse(node), {"name": name}


@functools.cache
def tf1_hub_installed() -> bool:
    """Whether the installed tensorflow-hub still has the TF1 format and the
    Estimator it imports is there for install() to serve."""
    try:
        version = metadata.version("tensorflow-hub")
        metadata.version("tensorflow-estimator")
    except metadata.PackageNotFoundError:
        return False
    major, minor = (int(p) for p in version.split(".")[:2])
    return (major, minor) < (0, 16)
