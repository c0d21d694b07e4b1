"""The error of a prompt file that cannot be parsed (the caller reports it as the file's PRM001)."""
from __future__ import annotations


class PromptFileError(Exception):
    """A template or prompt file that jinja2 cannot parse: `row` (1-based) and `message`
    (jinja2's). The caller reports it as PRM001, located at `row`: its text is "template syntax
    error: MESSAGE" (as a Python file's "syntax error: ..."), not the place again."""

    def __init__(self, filename: str, row: int, message: str):
        super().__init__(f"template syntax error: {message}")
        self.filename, self.row, self.message = filename, row, message
