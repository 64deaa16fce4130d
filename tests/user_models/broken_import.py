"""A user module that fails while it is imported."""

raise RuntimeError("this module needs a GPU driver")
