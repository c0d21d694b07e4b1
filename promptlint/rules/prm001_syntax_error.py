"""PRM001 syntax-error."""
from __future__ import annotations

from ..model import Severity
from .base import Rule


class SyntaxErrorRule(Rule):
    """## What it does
    Reports a file that could not be read or parsed (Python, Jinja, YAML, TOML, prompt files).
    The run goes on with the other files.

    ## Why is this bad?
    promptlint cannot see the prompts in a file it cannot parse, so a cache-breaking change there
    would pass unnoticed. Binary, non-UTF-8 and unreadable files are reported the same way.

    ## Example
    ```python
    def broken(:
    ```

    ## Fix safety
    No fix: repair the file.
    """

    code = "PRM001"
    severity = Severity.ERROR
