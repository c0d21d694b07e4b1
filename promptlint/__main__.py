"""`python -m promptlint`: the command line.

`python -m` puts the current folder first on `sys.path`, so a `click.py` or `libcst.py` of the
project being checked would be imported instead of promptlint's dependencies. It is taken off
before anything else is imported (as `python -P` does); promptlint itself is already imported.
"""
import os
import sys


def _drop_current_folder() -> None:
    if getattr(sys.flags, "safe_path", False) or not sys.path:
        return
    first = sys.path[0]
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:  # the current folder was removed
        here = None
    if first == "" or (here is not None and os.path.realpath(first) == here):
        del sys.path[0]


_drop_current_folder()

from promptlint.cli import main  # noqa: E402

main(prog_name="promptlint")  # as the installed command is named, in --help and usage errors
