"""The located tree of a config file (every string replaced by a `_Str`), parsed by suffix
(`.toml`, `.yaml` / `.yml`, `.json`), and the string at a key path of it."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .json_tree import _json_tree
from .located import LocatedValue, _Lines, _Str
from .toml_tree import _toml_tree
from .yaml_tree import _yaml_tree


def locate_value(path: Path, text: str, keys: list[str | int]) -> LocatedValue | None:
    """Find the string at `keys` (as in `tomllib.loads(text)["a"]["b"]`, `yaml.safe_load`,
    `json.load`) in a `.toml`, `.yaml` / `.yml` or `.json` file's text. Returns None when the file
    does not parse or the value is not a string."""
    tree = located_tree(path, text)
    if tree is None:
        return None
    node = tree[0]
    for key in keys:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return None
    if not isinstance(node, _Str):
        return None
    lines = _Lines(text)
    positions = [lines.position(o) for o in node.offsets]
    return LocatedValue(node.value, positions[0], node.verbatim(text), positions)


def located_tree(path: Path, text: str, fmt: str | None = None) -> tuple[Any, dict[tuple, int]] | None:
    """(data with every string replaced by a `_Str`, {key path: offset of its key}) for a TOML,
    YAML or JSON file, chosen by `fmt` ("toml", "yaml", "json") or else by suffix; None when it
    does not parse. Raises `safe_yaml.YamlBombError` for YAML whose aliases expand past the limits."""
    from ..safe_yaml import YamlBombError
    suffix = "." + fmt if fmt else Path(path).suffix.lower()
    try:
        if suffix == ".toml":
            return _toml_tree(text)
        if suffix in (".yaml", ".yml"):
            return _yaml_tree(text)
        if suffix == ".json":
            return _json_tree(text)
    except YamlBombError:
        raise
    except (ValueError, RecursionError):
        return None
    return None
