"""A legacy TF1 package in the manner of TensorFlow's NMT code base: its
modules import each other relatively and it is started as ``python -m
nmt_package.train`` (tests run it through ``python -m tf1_train.compat -m``)."""
