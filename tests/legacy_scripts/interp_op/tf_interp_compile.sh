#!/bin/bash
# Builds tf_interp_so.so against the TensorFlow of the python on PATH, as
# TF 1.x custom-op build scripts did (pip's TensorFlow 1.15 ships
# libtensorflow_framework.so.1 and was built with the old C++ ABI).
cd "$(dirname "$0")"
TF_INC=$(python -c 'import tensorflow as tf; print(tf.sysconfig.get_include())')
TF_LIB=$(python -c 'import tensorflow as tf; print(tf.sysconfig.get_lib())')
g++ -std=c++11 tf_interp.cpp -o tf_interp_so.so -shared -fPIC -I $TF_INC \
  -I $TF_INC/external/nsync/public -L$TF_LIB -l:libtensorflow_framework.so.1 -O2 \
  -D_GLIBCXX_USE_CXX11_ABI=0
