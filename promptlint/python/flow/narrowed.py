"""A field read off an instance known only by its base class: the one subclass that declares it.

    class StrategyConfig(BaseModel): ...
    class RefineConfig(StrategyConfig):
        refinement_template: str = Field(default="You have the current plan:\\n{current_plan} ...")

    class Editor:
        def __init__(self, config: StrategyConfig):
            self.config = config
        def refine(self):
            PromptTemplate(template=self.config.refinement_template, ...)

No class of `StrategyConfig`'s MRO has `refinement_template`: the object the code reads it from
is an instance of a subclass that does. When exactly one class of the tree that names the base
among its bases (directly, or through one more such class) declares or assigns the field, that is
the instance's class, and the field reads as it does there (its default, for an instance handed
in); with none or several, nothing is narrowed.
"""
from __future__ import annotations

import ast

from .class_facts import self_assigns
from .class_members import members_named
from .open_classes import MAX_SUBCLASSERS, _is, _names

#: How many levels of subclasses are searched below the annotated class.
_LEVELS = 2


def declaring_subclass(evaluator, module, cls: ast.ClassDef, attr: str, reader=None) -> tuple | None:
    """(module, class) of the one subclass of `cls` (of `module`) in the package trees of
    `module` and of `reader` (the module that reads the field) that declares or assigns `attr`,
    when no class of `cls`'s MRO has it; None otherwise (also when the subclasses cannot all be
    read: `MAX_SUBCLASSERS` modules in a tree)."""
    if any(_has(c, attr) for _, c in evaluator.mro(module, cls)):
        return None
    found: list[tuple] = []
    level = [(module, cls)]
    for _ in range(_LEVELS):
        below = []
        for m, c in level:
            subs = _subclasses(evaluator, m, c, reader)
            if subs is None:
                return None
            below.extend(subs)
        found.extend((m, c) for m, c in below if _has(c, attr))
        level = [(m, c) for m, c in below if not _has(c, attr)]
        if not level:
            break
    unique = {id(c): (m, c) for m, c in found}
    return next(iter(unique.values())) if len(unique) == 1 else None


def _has(cls: ast.ClassDef, attr: str) -> bool:
    return bool(members_named(cls, attr)) or bool(self_assigns(cls, attr))


def _subclasses(evaluator, module, cls: ast.ClassDef, reader) -> list[tuple] | None:
    """(module, class) of the classes of the package trees of `module` and `reader` that name
    `cls` among their bases; None past `MAX_SUBCLASSERS` modules in one of them."""
    modules = {}
    for near in (module, reader):
        path = getattr(near, "path", None)
        found = ([near] if near is not None else []) if path is None \
            else evaluator.project.subclassers_of(cls.name, path, MAX_SUBCLASSERS)
        if found is None:
            return None
        modules.update((id(m), m) for m in found)
    return [(other, klass) for other in modules.values() for klass in other.classes.values()
            if klass is not cls and any(_names(b, cls.name) and _is(evaluator, other, b, cls) for b in klass.bases)]
