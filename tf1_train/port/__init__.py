"""Porting tools for TF1 code bases: `python -m tf1_train.port scan PATH...`.

`scan` reads legacy Python files and says what breaks, changes numbers or needs
a rename on TensorFlow 2.16+ with Keras 3, and how to fix it (see scan.py).
"""
