"""Paths: `Path(...)`, `base / part`, `os.path.join(...)`: a path is static when every part is
(a file read at a static path is static content located in that file); a part that changes (a
clock, an id, the user's input) makes the path change with it (docs/policies.md, Policy 9).
A package's data read through `importlib.resources.files("app.prompts")` is a file of that
package's folder in the analysed tree.
"""
from __future__ import annotations

from pathlib import Path

from ... import source
from ...model import Kind, Segment, Volatility
from .segment_text import const_str
from .values import PathV, Value, most_volatile


class PathsMixin:
    """Path building of the Evaluator."""

    def path_join(self, base: PathV, parts: list[Value], frame) -> PathV:
        """`base / part / ...`: static when every part is; a volatile part is kept."""
        volatile = base.volatile
        names = []
        for part in parts:
            if isinstance(part, PathV):
                names.append(None if part.path is None else str(part.path))
                volatile = volatile or part.volatile
                continue
            text = const_str(part)
            if text is None and volatile is None:
                volatile = _volatile(self.text_of(part, frame))
            names.append(text)
        if base.path is None or any(n is None for n in names):
            return PathV(None, volatile)
        return PathV(base.path.joinpath(*names), volatile)

    def path_ctor(self, args: list, frame, env) -> Value:
        if not args:
            return PathV(None)
        vals = [self.eval(a, frame, env) for a in args]
        first = vals[0]
        if isinstance(first, PathV):
            return self.path_join(first, vals[1:], frame)
        s = const_str(first)
        if s is not None and not Path(s).is_absolute() and s and (source.is_file(Path.cwd() / s)
                                                                  or (Path.cwd() / s).is_dir()):
            # relative to the working folder: an application run from its root reads it there
            return self.path_join(PathV(Path.cwd() / s), vals[1:], frame)
        if s is None or not Path(s).is_absolute():  # relative to an unknown working folder: not static
            volatile = _volatile(self.text_of(first, frame)) if s is None else None
            return self.path_join(PathV(None, volatile), vals[1:], frame)
        return self.path_join(PathV(Path(s)), vals[1:], frame)

    def package_folder(self, args: list, kwargs: dict, frame, env) -> PathV:
        """`importlib.resources.files("app.prompts")` (the `importlib_resources` backport too):
        the folder of the package of that dotted name in the analysed tree (its `__init__.py`'s
        folder), `files(__package__)` the folder of the calling module's own package; an unknown
        path for a name that is not static or not a package of the tree."""
        arg = args[0] if args else kwargs.get("anchor", kwargs.get("package"))
        own = getattr(frame.module, "path", None)
        if getattr(arg, "id", None) == "__package__" and own is not None and source.is_file(own.parent / "__init__.py"):
            return PathV(own.parent)
        name = const_str(self.eval(arg, frame, env)) if arg is not None else None
        if not name or not all(part.isidentifier() for part in name.split(".")):
            return PathV(None)
        found = self.project.find(name)
        if found is None or found.path.name != "__init__.py":
            return PathV(None)
        return PathV(found.path.parent)


def _volatile(segs: list[Segment]) -> Segment | None:
    """The segment that makes a path part change (a clock, an id, user input), or None."""
    src = most_volatile(segs)
    if src is not None and (src.kind in (Kind.TIMESTAMP, Kind.UNIQUE_ID, Kind.USER_INPUT) or src.volatility in (
            Volatility.PER_REQUEST, Volatility.PER_CONVERSATION, Volatility.PER_DAY)):
        return src
    return None
