"""The one exception type for bad input.

Anything raised as ``UserError`` reaches the user as a single line (no
traceback) and a non-zero exit status; the message names the flag or file and
says what would be valid.
"""


class UserError(Exception):
    """Bad input from the user: a flag value, a combination, a file, a port."""
