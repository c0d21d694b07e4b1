"""PRM001 syntax-error."""
from __future__ import annotations

from ..model import Severity
from .base import Rule


class SyntaxErrorRule(Rule):
    """## What it does
    Reports a file that could not be read or parsed (Python, Jinja, YAML, TOML, prompt files), or
    analysed (too deeply nested, over the size limit: info). The run goes on with the other files.
    A Python file whose text mentions no LLM API, prompt or semantic cache is never parsed, so a
    syntax error there is left to Python's own tools.

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
