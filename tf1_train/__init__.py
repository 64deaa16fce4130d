"""tf1_train: TF1-style graph training on modern TensorFlow.

Importing the package does not import TensorFlow, so the CLI can set
environment variables (log levels, device order) before TensorFlow loads.
"""

__version__ = "0.1.0"
