"""Pillow names TF1-era programs read that the Pillow TensorFlow 2.21 comes
with (TensorBoard requires Pillow, and pip gives the newest) no longer has.

Pillow 10 removed ``Image.ANTIALIAS`` (the name of ``Image.LANCZOS`` since
Pillow 2.7), ``Image.LINEAR`` and ``Image.CUBIC`` (``BILINEAR``,
``BICUBIC``): ``img.resize((w, h), Image.ANTIALIAS)`` is the resize of
countless data-preparation scripts, and FixMatch's CTAugment lists it among
its resampling filters. Each raised ``AttributeError`` where the program had
run for years. ``install()`` puts them back as the same values, and
``PIL.PILLOW_VERSION`` as ``PIL.__version__``, which it was, so nothing
computes differently.

What is not put back stays a scanner finding (tf1_train/port/pillow_rules.py):
the text-measuring methods Pillow 10 removed (``draw.textsize``,
``font.getsize``, ...), whose replacements measure a box, not the same sizes.
"""

# PIL.Image's names Pillow 10 removed -> the name of the same value.
IMAGE = {"ANTIALIAS": "LANCZOS", "LINEAR": "BILINEAR", "CUBIC": "BICUBIC"}
PACKAGE = {"PILLOW_VERSION": "__version__"}
# Methods Pillow 10 removed -> what to call instead (not put back).
METHODS = {
    "textsize": "draw.textbbox((0, 0), text, font=font), a (left, top, right, bottom) box",
    "multiline_textsize": "draw.multiline_textbbox((0, 0), text, font=font), a box",
    "getsize": "font.getbbox(text), a (left, top, right, bottom) box, or font.getlength(text) "
    "for the advance width",
    "getsize_multiline": "draw.multiline_textbbox((0, 0), text, font=font), a box",
    "getoffset": "font.getbbox(text)[:2]",
}


def install(set_attribute) -> None:
    """Put back what this Pillow lacks of IMAGE and PACKAGE, through
    ``set_attribute`` (_install._set: uninstall() removes them); nothing
    when Pillow is not installed."""
    try:
        import PIL
        from PIL import Image
    except ImportError:
        return
    for where, names in ((Image, IMAGE), (PIL, PACKAGE)):
        for old, new in names.items():
            if old not in vars(where):
                set_attribute(where, old, getattr(where, new))
