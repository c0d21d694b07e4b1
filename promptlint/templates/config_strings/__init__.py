"""Prompt strings in YAML and TOML files, located at their exact rows and columns.

YAML positions come from PyYAML's node marks (`yaml.compose`; a str node's value is the loaded
string itself); TOML has no positions in tomllib,
so a small scanner walks the TOML text and records, for every string value, the source offset of
each of its characters (basic, literal and multi-line strings, escapes and line-ending
backslashes; the newline right after an opening `\"\"\"` / `'''` is trimmed, as TOML does). JSON
(for `json.load` in Python) is scanned the same way. Values are checked against tomllib / PyYAML /
json: a value the scanner reads differently is kept at its first character only (`verbatim`
False).

Modules: `prompts` (which strings of a file are prompts, and their parts), `segments` (the
segments of one string value), `tree` (the located tree of a file, chosen by suffix, and lookup by
key path), `located` (located strings and positions), `yaml_tree`, `toml_tree`, `json_tree` (one
per file kind).
"""
from __future__ import annotations

from .located import LocatedValue
from .prompts import ConfigPrompt, config_prompts
from .segments import located_segments, value_segments
from .tree import locate_value, located_tree

__all__ = ["ConfigPrompt", "LocatedValue", "config_prompts", "locate_value", "located_segments",
           "located_tree", "value_segments"]
