"""YAML strings located from PyYAML's node marks (`yaml.compose`; a str node's `value` is the
loaded string itself): the offsets of each character of plain, quoted, literal `|` and folded
`>` scalars. Aliases are bounded by `safe_yaml`."""
from __future__ import annotations

from typing import Any

from .located import _Str


def _yaml_tree(text: str):
    import yaml

    from ..safe_yaml import compose_all
    try:
        docs = compose_all(text)  # aliases bounded: a bomb raises YamlBombError (the file's PRM001)
    except yaml.YAMLError as exc:
        raise ValueError(str(exc)) from exc
    key_offsets: dict[tuple, int] = {}

    def build(node, keys: tuple):
        if isinstance(node, yaml.MappingNode):
            out = {}
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value != "<<":
                    key = _yaml_key(k)
                    key_offsets[keys + (key,)] = k.start_mark.index
                    out[key] = build(v, keys + (key,))
            return out
        if isinstance(node, yaml.SequenceNode):
            out = []
            for i, v in enumerate(node.value):
                key_offsets[keys + (i,)] = v.start_mark.index
                out.append(build(v, keys + (i,)))
            return out
        if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:str":
            return _Str(node.value, _yaml_offsets(text, node))
        return None

    trees = [build(d, ()) for d in docs if d is not None]
    if len(trees) != 1:  # several documents: index them like a list
        return trees, key_offsets
    return trees[0], key_offsets  # a str node's `value` is the loaded string: nothing to check


def _yaml_key(node) -> Any:
    import yaml

    if node.tag == "tag:yaml.org,2002:int":
        try:
            return yaml.safe_load(node.value)
        except yaml.YAMLError:
            return node.value
    return node.value


def _yaml_offsets(text: str, node) -> list[int]:
    value, start, end = node.value, node.start_mark.index, node.end_mark.index
    style = node.style
    if style in ("|", ">"):
        start = text.find("\n", start, end)
        start = end if start < 0 else start + 1
        if style == "|":
            exact = _literal_block(text, value, start, end)
            if exact is not None:
                return exact
    elif style in ("'", '"'):
        start += 1
    units = _dq_units(text, start, end) if style == '"' else [(text[i], i) for i in range(start, end)]
    return _align(value, units, start)


def _literal_block(text: str, value: str, start: int, end: int) -> list[int] | None:
    """Exact offsets of a `|` block: value lines are source lines minus the indentation."""
    src_lines = text[start:end].split("\n")
    first = next((ln for ln in src_lines if ln.strip()), "")
    indent = len(first) - len(first.lstrip(" "))
    offsets, line_start = [], start
    val_lines = value.split("\n")
    for i, vline in enumerate(val_lines):
        if i >= len(src_lines):
            return None
        sline = src_lines[i]
        if vline and sline[indent:indent + len(vline)] != vline:
            return None
        base = line_start + min(indent, len(sline))
        offsets.extend(base + j for j in range(len(vline)))
        if i < len(val_lines) - 1:
            offsets.append(line_start + len(sline))  # the newline
        line_start += len(sline) + 1
    offsets.append(offsets[-1] + 1 if offsets else start)
    return offsets


def _dq_units(text: str, start: int, end: int) -> list[tuple[str | None, int]]:
    """Characters of a double-quoted YAML scalar with escapes decoded, each with its offset."""
    units, i = [], start
    simple = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "b": "\b", "e": "\x1b",
              "f": "\f", "v": "\v", '"': '"', "/": "/", "\\": "\\", " ": " ", "N": "\x85",
              "_": "\xa0", "L": "\u2028", "P": "\u2029", "\t": "\t"}
    while i < end:
        ch = text[i]
        if ch == "\\" and i + 1 < end:
            nxt = text[i + 1]
            width = {"x": 2, "u": 4, "U": 8}.get(nxt)
            if width:
                try:
                    units.append((chr(int(text[i + 2:i + 2 + width], 16)), i))
                except ValueError:
                    units.append((nxt, i))
                i += 2 + width
                continue
            if nxt == "\n":  # escaped line break: nothing
                i += 2
                continue
            units.append((simple.get(nxt, nxt), i))
            i += 2
            continue
        units.append((ch, i))
        i += 1
    return units


_REMOVABLE = {" ", "\t", "\n", "\r", "'", '"', None}


def _align(value: str, units: list[tuple[str | None, int]], start: int) -> list[int]:
    """Map each value character to a source unit, skipping the whitespace, quotes and line
    breaks that folding, indentation and quoting remove. Characters that cannot be matched keep
    the last matched offset (not exact, never wrong by more than that run)."""
    offsets, j, last = [], 0, start
    for ch in value:
        k, matched = j, None
        while k < len(units):
            unit = units[k][0]
            if unit == ch or (ch == " " and unit == "\n"):  # equal, or a folded line break
                matched = k
                break
            if unit not in _REMOVABLE:
                break
            k += 1
        if matched is None:
            offsets.append(last)
            continue
        last = units[matched][1]
        offsets.append(last)
        j = matched + 1
        if ch == " " and units[matched][0] == "\n":  # folded: skip the next line's indentation
            while j < len(units) and units[j][0] in (" ", "\t"):
                j += 1
    offsets.append(offsets[-1] + 1 if offsets else start)
    return offsets
