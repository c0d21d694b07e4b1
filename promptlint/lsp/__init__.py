"""The language server (`promptlint server`): promptlint's findings in any LSP editor.

- `convert`: pure conversions between promptlint's model and LSP types (positions, diagnostics,
  fix edits, hover text);
- `suppression`: the edit that adds a `promptlint: ignore[...]` comment, verified to change nothing
  but comments;
- `analysis`: which files a run checks (the open documents, their project's config, the Python
  files that render an open template) and the run itself, with unsaved buffers as overlays;
- `server`: the pygls wiring (stdio), the debounced scheduler, code actions and hover.
"""
from __future__ import annotations

__all__ = ["serve"]


def serve(debounce: float = 0.25) -> None:
    """Run the language server on stdin/stdout until the client exits. `debounce` is the quiet
    time in seconds after a change before the buffers are checked again."""
    from .server import serve as _serve
    _serve(debounce)
