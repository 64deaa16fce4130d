from setuptools import find_packages, setup

setup(
    name="tf1_train",
    version="0.1.0",
    description="TF1-style graph training (towers, parameter servers) on TensorFlow 2.16+",
    packages=find_packages(include=["tf1_train", "tf1_train.*"]),
    package_data={"tf1_train.data": ["digits.npz"]},
    python_requires=">=3.9",
    install_requires=["absl-py>=1.0", "numpy>=1.23"],
    extras_require={
        # tensorflow-cpu 2.21 no longer pulls in TensorBoard: `tensorboard --logdir`
        # and the event-file tests need it.
        # ml_dtypes (TensorFlow's, >=0.5.1,<1): 0.7.0's extension takes 0.4 s to
        # load (0.6.0: 0.04 s), paid by every process that imports TensorFlow.
        "cpu": ["tensorflow-cpu>=2.16,<2.22", "tensorboard>=2.16", "ml_dtypes>=0.5.1,<0.7"],
        "gpu": ["tensorflow[and-cuda]>=2.16,<2.22", "tensorboard>=2.16", "ml_dtypes>=0.5.1,<0.7"],
        # tf-slim and tensorflow-estimator (no dependencies of their own) let the tests
        # run legacy slim and Estimator code through tf1_train.compat.install(); neither
        # is needed at run time.
        # SciPy: legacy programs of the tests import what SciPy moved (install() puts it back).
        # librosa, matplotlib: the scan's rules for them are held to the versions that
        # install today. tensorflow-hub 0.15.0, the last with the TF1 Hub format: a
        # module TF 1.15.5 exported is loaded through tf1_train.compat.
        # pytest-xdist: ./run.sh test runs the suite in one worker per core.
        "test": [
            "pytest>=7",
            "pytest-timeout>=2.1",
            "pytest-xdist>=3",
            "ruff>=0.5",
            "tf-slim==1.1.0",
            "tensorflow-estimator==2.15.0",
            "scipy>=1.13",
            "librosa==0.11.0",
            "matplotlib==3.11.2",
            "tensorflow-hub==0.15.0",
        ],
    },
    entry_points={"console_scripts": ["tf1-train=tf1_train.main:run"]},
)
