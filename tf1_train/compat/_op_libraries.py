"""A custom-op library that TensorFlow 2.21 cannot load says why, after install().

TF 1.x code bases with C++ or CUDA ops (point-cloud networks' grouping and
interpolation, NVIDIA's StyleGAN2, CTC and correlation layers) load a
``.so`` with ``tf.load_op_library``. One built against TensorFlow 1.x fails
on 2.21 with a message about something else: ``libtensorflow_framework.so.1:
cannot open shared object file`` (pip's TF 1.15 shipped that name, earlier 1.x
wheels ``libtensorflow_framework.so``, TF 2 ships ``.so.2``), or ``undefined
symbol: _ZNK10tensorflow8OpKernel11TraceString...`` (another TensorFlow's
symbols, or the old C++ ABI: TF 1.x's wheels were built with
``-D_GLIBCXX_USE_CXX11_ABI=0``, TensorFlow 2.21's with ``=1``). After
install() the same ``NotFoundError`` also says that the library was built for
another TensorFlow and gives the compiler line that builds it for this one.
Nothing else changes: a library that loads is returned as before, and other
errors pass through untouched.
"""

import functools
import os
import re

MARK = "_tf1_train_original"


def rebuild_line(library: str) -> str:
    """The g++ line that builds ``library`` against the TensorFlow installed here."""
    import tensorflow as tf

    flags = " ".join(tf.sysconfig.get_compile_flags() + tf.sysconfig.get_link_flags())
    return f"g++ -shared -fPIC -O2 YOUR_OPS.cc -o {library} {flags}"


def why(message: str, library: str) -> str:
    """What a load failure of ``library`` means, or '' when it is not about the build."""
    import tensorflow as tf

    name = os.path.basename(library)
    tf1 = re.search(r"libtensorflow_framework\.so(?:\.1)?(?=: cannot open)", message)
    if tf1:
        cause = f"{name} was built against TensorFlow 1.x (it needs {tf1.group(0)})"
    elif "undefined symbol" in message:
        cause = (
            f"{name} was built against another TensorFlow than this one ({tf.__version__}) "
            "or with TF 1.x's C++ ABI (-D_GLIBCXX_USE_CXX11_ABI=0)"
        )
    else:
        return ""
    return (
        f"{cause}: rebuild it from its sources for TensorFlow {tf.__version__}: "
        f"{rebuild_line(library)} (python -m tf1_train.port scan DIR names the lines of its "
        "sources and build script that this TensorFlow refuses)"
    )


def explained(load):
    """``load`` (load_op_library or load_library), its build failures explained."""
    from tensorflow.python.framework import errors

    @functools.wraps(load)
    def wrapper(library_filename, *args, **kwargs):
        try:
            return load(library_filename, *args, **kwargs)
        except errors.NotFoundError as e:
            cause = why(e.message, str(library_filename))
            if not cause:
                raise
            raise errors.NotFoundError(e.node_def, e.op, f"{e.message}\n{cause}") from None

    setattr(wrapper, MARK, load)
    return wrapper


def install(set_attribute, apis) -> None:
    """Both loaders explained, in TensorFlow's module and every API (``apis``) that exports them."""
    from tensorflow.python.framework import load_library

    for name in ("load_op_library", "load_library"):
        original = getattr(load_library, name)
        original = getattr(original, MARK, original)
        wrapped = explained(original)
        for module in [load_library, *apis]:
            if getattr(module, name, None) is not None:
                set_attribute(module, name, wrapped)
