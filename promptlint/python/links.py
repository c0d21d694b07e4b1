"""Links between Python and the files it reads: rendered templates and config strings.

Hooks the evaluator calls: `template_hook` for `.render(...)` of a Jinja template and
`config_hook` to place a config string at its line in the YAML / TOML / JSON file.
"""
from __future__ import annotations


def config_hook(path, text, keys):
    """(value text, Position of its first character, verbatim) of a config value, or None."""
    try:
        from ..templates.config_strings import locate_value
    except ImportError:  # pragma: no cover
        return None
    try:
        return locate_value(path, text, keys)
    except Exception:
        return None


def template_hook(evaluator, base, node, args, kwargs, frame, env):
    """The rendered text of a template, or None when the template is not known statically."""
    return None
