"""Trigger and twin snippets (rule, trigger, clean, file name) for a code
base's own C++/CUDA ops (tf1_train/port/native_rules.py), joined to
tests/port_scan_cases.py's CASES: a library loaded from Python, the build
flags of scripts, makefiles and Python strings, and C++ sources. Snippets are
never run or built."""

V1 = "import os\nimport tensorflow.compat.v1 as tf\n"

NATIVE = [
    (
        "load-op-library",
        V1 + "BASE_DIR = os.path.dirname(os.path.abspath(__file__))\n"
        "grouping = tf.load_op_library(os.path.join(BASE_DIR, 'tf_grouping_so.so'))"
        "  # expect: load-op-library\n"
        "from tensorflow.python.framework import load_library\n"
        "ctc = load_library.load_op_library('./libwarpctc.so')  # expect: load-op-library\n",
        # the twin: a shared library that is not TensorFlow's to load
        "import ctypes\nlib = ctypes.CDLL('./libfoo.so')\n",
        "snippet.py",
    ),
    (
        "op-build-abi",
        # StyleGAN2's custom_ops.py writes its nvcc line in Python
        "compile_opts = '--compiler-options \\'-fPIC -D_GLIBCXX_USE_CXX11_ABI=0\\''"
        "  # expect: op-build-abi\n"
        "setup(ext_modules=[Extension('ops', ['ops.cc'],\n"
        "      extra_compile_args=['-D_GLIBCXX_USE_CXX11_ABI=0'])])  # expect: op-build-abi\n"
        "args = tf.sysconfig.get_compile_flags() + ['-D_GLIBCXX_USE_CXX11_ABI=0']"
        "  # expect: op-build-abi\n",
        "compile_opts = '--compiler-options \\'-fPIC -D_GLIBCXX_USE_CXX11_ABI=1\\''\n"
        "flags = tf.sysconfig.get_compile_flags()\n"
        # prose that names the flag (warp-ctc's setup.py warns so) builds nothing
        "warnings.warn('If you compiled tensorflow from source and did not set '\n"
        "              '-D_GLIBCXX_USE_CXX11_ABI=0 during compilation, set TF_CXX11_ABI=1')\n"
        "print('Built with -D_GLIBCXX_USE_CXX11_ABI=0 first. Then rebuilt.')\n"
        # TensorFlow's own flags after it: the compiler takes the last -D
        "args = ['-O2', '-D_GLIBCXX_USE_CXX11_ABI=0'] + tf.sysconfig.get_compile_flags()\n"
        "args = ['-D_GLIBCXX_USE_CXX11_ABI=0', *tf.sysconfig.get_compile_flags()]\n",
        "snippet.py",
    ),
    (
        "op-build-std",
        "TF_INC=$(python -c 'import tensorflow as tf; print(tf.sysconfig.get_include())')\n"
        "g++ -std=c++11 tf_sampling.cpp -o tf_sampling_so.so -shared -fPIC -I $TF_INC"
        "  # expect: op-build-std\n"
        "nvcc tf_sampling_g.cu -o tf_sampling_g.cu.o -c -O2 -DGOOGLE_CUDA=1 --std=c++14"
        "  # expect: op-build-std\n"
        "g++ tf_grouping.cpp -o tf_grouping_so.so -shared -fPIC \\\n"
        "  -std=c++11 -I $TF_INC  # expect: op-build-std\n"
        "g++ ${TF_CFLAGS[@]} -std=c++14 zero_out.cc -o zero_out.so  # expect: op-build-std\n",
        "# g++ -std=c++11 was TF 1.x's\n"
        "g++ -std=c++17 tf_sampling.cpp -o tf_sampling_so.so -shared -fPIC -I $TF_INC\n"
        # TensorFlow's guide to new ops: its compile flags come after, and the last -std wins
        "g++ -std=c++11 -shared zero_out.cc -o zero_out.so -fPIC ${TF_CFLAGS[@]} ${TF_LFLAGS[@]}\n"
        "g++ -std=c++11 -D_GLIBCXX_USE_CXX11_ABI=0 -shared zero_out.cc -o zero_out.so \\\n"
        "  $(python -c 'import tensorflow as tf; print(*tf.sysconfig.get_compile_flags())')\n",
        "tf_sampling_compile.sh",
    ),
    (
        "op-build-framework",
        "TF_LIB := $(shell python -c 'import tensorflow as tf; print(tf.sysconfig.get_lib())')\n"
        "LDFLAGS = -L$(TF_LIB) -ltensorflow_framework  # expect: op-build-framework\n"
        "LDFLAGS_115 = -L$(TF_LIB) -l:libtensorflow_framework.so.1  # expect: op-build-framework\n"
        "LDLIBS = $(TF_LIB)/libtensorflow_framework.so  # expect: op-build-framework\n",
        "LDFLAGS = -L$(TF_LIB) -l:libtensorflow_framework.so.2\n"
        "LDLIBS = $(TF_LIB)/libtensorflow_framework.so.2\n",
        "Makefile",
    ),
    (
        "op-status-ok",
        'REGISTER_OP("QueryBallPoint")\n'
        "    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {\n"
        "      c->set_output(0, c->input(0));\n"
        "      return Status::OK();  // expect: op-status-ok\n"
        "    });\n"
        "Status Check() { return tensorflow::Status::OK(); }  // expect: op-status-ok\n",
        "    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {\n"
        "      return ::tensorflow::Status();  // TF 1.x: return Status::OK();\n"
        "    });\n",
        "tf_grouping.cpp",
    ),
    (
        "op-cuda-header",
        "#define EIGEN_USE_GPU\n"
        '#include "tensorflow/core/util/cuda_kernel_helper.h"  // expect: op-cuda-header\n'
        "#include <tensorflow/core/util/cuda_launch_config.h>  // expect: op-cuda-header\n",
        '#include "tensorflow/core/util/gpu_kernel_helper.h"\n'
        '// was: #include "tensorflow/core/util/cuda_kernel_helper.h"\n',
        "correlation_op_gpu.cu.cc",
    ),
]
