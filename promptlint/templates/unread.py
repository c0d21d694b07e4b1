"""Why a prompt or config file holds no prompt promptlint reads, for `explain` (one sentence per
string, never a guess): the decision `config_strings.judged_strings` made of each string of a
YAML / TOML file (or of a `.prompt` file of YAML fields), and what makes a text file a prompt."""
from __future__ import annotations

from pathlib import Path

_LISTED = 3  # strings explained when no line is asked for: the longest ones


def why_not_read(path: Path, text: str | None, line: int | None, kind: str | None) -> list[str]:
    """Lines saying why the file `path` (its `text`; None when it cannot be read) of discovery
    kind `kind` gives no prompt at `line` (1-based; None: the whole file). [] when there is
    nothing to say (a Python file, a prompt text file, which is read whole)."""
    from .data_files import yaml_fields
    if kind is None:
        return ["promptlint does not read this file: a text file is a prompt when the project's Python names it and "
                "it is kept in a folder named for prompts, templates or instructions, or named like "
                "`system_prompt.txt`; a `.prompt` file, a template (`.j2`), a Prompty file, a YAML / TOML file and "
                "the files matching `prompt-globs` are read wherever they are (README, \"Prompt text files\")"]
    fmt = "yaml" if kind == "prompt-text" and text is not None and yaml_fields(path, text) else None
    if kind != "config" and fmt is None or text is None:
        return []
    from .config_strings.prompts import SIGNALS, judged_strings
    judged = judged_strings(path, path.name, text, fmt)
    if judged is None:
        return ["this file does not parse as YAML or TOML: it is skipped, as most such files are not prompts"]
    said = dict(SIGNALS)
    if line is not None:
        here = [j for j in judged if j.row <= line <= j.end_row]
        if not here:
            return [f"line {line} holds no text value of this file"]
        chosen = here
    else:
        chosen = sorted((j for j in judged if j.prompt is None), key=lambda j: (-j.chars, j.row))[:_LISTED]
        chosen.sort(key=lambda j: j.row)
    out = []
    for j in chosen:
        where = f"line {j.row}" if j.end_row == j.row else f"lines {j.row}-{j.end_row}"
        key = ".".join(str(k) for k in j.keys) or "(the document)"
        if j.prompt is not None:
            out.append(f"`{key}` ({where}) is read as a prompt: {said.get(j.reason, j.reason)}")
        else:
            out.append(f"`{key}` ({where}) is not read as a prompt: {j.reason}")
    return out


def why_not_read_file(target: Path, line: int | None, settings=None) -> list[str]:
    """`why_not_read` of the file `target` as discovery sees it under `settings` (a
    `config.Settings`: its template and prompt globs); [] for a folder or a Python file."""
    from ..discovery import file_kind
    from ..source import SourceError, read_text
    if not target.is_file() or target.suffix.lower() == ".py":
        return []
    try:
        text = read_text(target)
    except SourceError:
        text = None
    globs = (settings.template_globs, settings.prompt_globs) if settings is not None else (None, None)
    return why_not_read(target, text, line, file_kind(target, *globs))
