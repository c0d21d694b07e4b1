"""Prompt files whose text is structured data, not prompt text: a `.prompt` file that is one YAML
mapping of fields (PyRIT keeps its seed prompts and seed datasets so: `name:`, `parameters:`,
`value: |`, `seeds: - value: ...`). Such a file is read as a config file (`config_strings`),
whose strings are prompts by their keys, place and content; a dataset's entries are not."""
from __future__ import annotations

import re
from pathlib import Path

#: A field of a YAML mapping, as the first line of a data file writes it: a lower-case identifier.
_FIELD_LINE = re.compile(r"^[a-z_][a-z0-9_-]*:(\s|$)")
_FIELD = re.compile(r"^[a-z_][a-z0-9_-]*$")
_SUFFIXES = (".prompt",)  # prompt files whose format is not fixed by their suffix


def yaml_fields(path: Path, text: str) -> bool:
    """True when a `.prompt` file's text is one YAML mapping of two fields or more, every key a
    lower-case identifier (`dataset_name`, `value`), at least one holding structure: a list, a
    mapping with a value, or text over several lines (a `|` block). Prompt text that happens to
    parse as YAML ("Context: {context}" lines, capitalised labels, flow mappings of empty
    values) is none; a document that does not parse, or several, is none either."""
    if not Path(path).name.lower().endswith(_SUFFIXES):
        return False
    first = next((ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#") and ln.strip() != "---"), "")
    if not _FIELD_LINE.match(first):
        return False
    from .config_strings.located import _Str
    from .config_strings.tree import located_tree
    from .safe_yaml import YamlBombError
    try:
        located = located_tree(Path(path), text, "yaml")
    except YamlBombError:
        return False
    tree = located[0] if located is not None else None
    if not isinstance(tree, dict) or len(tree) < 2 or not all(isinstance(k, str) and _FIELD.match(k) for k in tree):
        return False
    return any(isinstance(v, list) or (isinstance(v, dict) and any(x is not None for x in v.values()))
               or (isinstance(v, _Str) and "\n" in v.value.strip()) for v in tree.values())
