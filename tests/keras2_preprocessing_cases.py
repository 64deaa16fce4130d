"""What Keras 2's ``keras.preprocessing`` gives a program: the same calls run
with Keras 2.2.4 on TensorFlow 1.15.5 (scripts/make_keras2_preprocessing_goldens.py
writes tests/goldens/keras2_preprocessing.json) and with the names
tf1_train.compat.install() puts back into Keras 3 (tests/test_compat_keras2_removed.py).
Python 3.7 runs it too.
"""

import random

import numpy as np

TEXTS = ["the cat sat on the mat", "the dog ate my homework", "a cat and a dog", "mat mat mat"]


def _rounded(array):
    return [round(float(v), 4) for v in np.asarray(array, np.float64).ravel()]


def image_outcomes(image):
    """ImageDataGenerator's flows (random transforms, shuffles, featurewise
    statistics) and the transform functions, from fixed seeds."""
    x = np.linspace(0, 255, 6 * 8 * 8 * 3).reshape(6, 8, 8, 3).astype(np.float32)
    x = (x * np.arange(1, 7).reshape(6, 1, 1, 1)) % 255
    y = np.arange(6)
    out = {}
    augment = image.ImageDataGenerator(
        rotation_range=15, width_shift_range=0.1, height_shift_range=0.2, shear_range=5,
        zoom_range=0.1, channel_shift_range=10.0, horizontal_flip=True, vertical_flip=True,
        fill_mode="nearest",
    )  # fmt: skip
    flow = augment.flow(x, y, batch_size=4, seed=3)
    for i in range(2):
        images, labels = next(flow)
        out[f"augment_{i}"] = _rounded(images)
        out[f"augment_labels_{i}"] = [int(v) for v in labels]
    standardize = image.ImageDataGenerator(
        featurewise_center=True, featurewise_std_normalization=True, zca_whitening=True,
        rescale=1.0 / 255,
    )  # fmt: skip
    small = np.random.RandomState(0).uniform(0, 255, (40, 3, 3, 2))  # more images than pixels
    standardize.fit(small)
    images, labels = next(standardize.flow(small, np.arange(40), batch_size=3, seed=1))
    out["standardized"] = _rounded(images)
    out["standardized_labels"] = [int(v) for v in labels]
    out["affine"] = _rounded(
        image.apply_affine_transform(x[1], theta=20, tx=1, ty=2, shear=10, zx=1.1, zy=0.9)
    )
    bright = image.ImageDataGenerator(brightness_range=(0.5, 1.5), rotation_range=40)
    out["brightness"] = _rounded(next(bright.flow(x[:2], batch_size=2, seed=4)))
    np.random.seed(5)
    out["random_rotation"] = _rounded(image.random_rotation(x[2], 30, 0, 1, 2))
    out["random_zoom"] = _rounded(image.random_zoom(x[3], (0.8, 1.2), 0, 1, 2))
    out["random_shift_default_axes"] = _rounded(image.random_shift(x[4], 0.2, 0.1))
    out["random_shear"] = _rounded(image.random_shear(x[5], 20, 0, 1, 2, fill_mode="constant"))
    out["brightness_shift"] = _rounded(image.apply_brightness_shift(x[1] / 4, 1.3))
    return out


def directory_outcomes(image, folder):
    """flow_from_directory over PNGs written to ``folder`` (two classes, two sizes)."""
    import os

    from PIL import Image

    rng = np.random.RandomState(3)
    for label, size in (("cat", (10, 12)), ("dog", (7, 9))):
        os.makedirs(os.path.join(folder, label), exist_ok=True)
        for i in range(3):
            pixels = rng.randint(0, 256, (size[0], size[1], 3)).astype(np.uint8)
            Image.fromarray(pixels).save(os.path.join(folder, label, f"{i}.png"))
    generator = image.ImageDataGenerator(rescale=1.0 / 255, rotation_range=10, zoom_range=0.2)
    flow = generator.flow_from_directory(folder, target_size=(8, 8), batch_size=4, seed=2,
                                         class_mode="sparse")  # fmt: skip
    images, labels = next(flow)
    return {
        "directory_classes": sorted(flow.class_indices.items()),
        "directory_images": _rounded(images),
        "directory_labels": [int(v) for v in labels],
    }


def text_outcomes(text):
    """Tokenizer's vocabulary, sequences and matrices."""
    tokenizer = text.Tokenizer(num_words=6, oov_token="<unk>")
    tokenizer.fit_on_texts(TEXTS)
    return {
        "word_index": sorted(tokenizer.word_index.items()),
        "sequences": tokenizer.texts_to_sequences(TEXTS + ["an unseen cat"]),
        "tfidf": _rounded(tokenizer.texts_to_matrix(TEXTS, mode="tfidf")),
        "binary": _rounded(tokenizer.texts_to_matrix(TEXTS, mode="binary")),
        "words": text.text_to_word_sequence("Hello, World! It's 2018."),
    }


def sequence_outcomes(sequence):
    """skipgrams from a seed, the sampling table, a TimeseriesGenerator batch."""
    random.seed(11)  # its negative samples: Python's random, unseeded by it
    couples, labels = sequence.skipgrams([1, 2, 3, 4, 5], 6, window_size=2, seed=7)
    generator = sequence.TimeseriesGenerator(
        np.arange(20).reshape(10, 2), np.arange(10), length=3, batch_size=2, stride=2
    )
    batch, targets = generator[1]
    return {
        "skipgrams": [list(map(int, c)) for c in couples],
        "skipgram_labels": [int(v) for v in labels],
        "sampling_table": _rounded(sequence.make_sampling_table(12)),
        "timeseries": _rounded(batch),
        "timeseries_targets": [int(v) for v in targets],
        "padded": np.asarray(sequence.pad_sequences([[1, 2], [3, 4, 5, 6]], maxlen=3)).tolist(),
    }


def outcomes(image, text, sequence, folder):
    """Every outcome; ``folder``: an empty directory for flow_from_directory's images."""
    return {**image_outcomes(image), **directory_outcomes(image, folder),
            **text_outcomes(text), **sequence_outcomes(sequence)}  # fmt: skip
