"""PRM001 syntax-error."""
from __future__ import annotations

from ..model import Severity
from .base import Rule


class SyntaxErrorRule(Rule):
    """## What it does
    Reports a file that could not be read or parsed (Python, Jinja, prompt files), or analysed
    (too deeply nested, over the size limit: info). The run goes on with the other files. Every
    checked Python file is parsed, as ruff reports a syntax error in every file it checks, also
    one whose text mentions no LLM API, prompt or semantic cache (it is not analysed further); so
    is a module of the tree that an analysed file imports a value from for a prompt, checked or
    not, with the import as a related location: the value is unknown to the importer. Python 3.12's
    type parameters and `type` statements (PEP 695) are read whatever Python runs promptlint
    (rewritten in place for an older parser, rows and columns kept); what else that parser lacks
    (3.12's f-strings, PEP 701) is a PRM001 at its place, naming the Python that read it. YAML and
    TOML files that do not parse are not reported: most are not prompts (a Helm template is not YAML until
    it is rendered).

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
    brief = "a file that cannot be read or parsed (the run goes on)"
    severity = Severity.ERROR
