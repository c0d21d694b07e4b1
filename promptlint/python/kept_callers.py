"""Callers in other modules of a function that marks its callers' list (`kept_marks.KeptMark`
with `kept` None): a fact is dropped when the function is called from no place in its own module
and every call found in the other modules of the package passes a list built for that call
(`msgs = convert(events); mark_newest(msgs)`): nothing keeps the marked list, so no breakpoint
is left behind for a later turn. Calls by the function's bare name only (`from .m import f`);
a call of another shape, or more calling modules than `MAX_MODULES`, keeps the fact."""
from __future__ import annotations

from .gated_markers import module_functions
from .kept_marks import KeptMark, list_callers, MarkScope
from .walk import subtree

MAX_MODULES = 4  # calling modules read for one marking function; called from more: not followed


def rebuilt_by_callers(marks: list[KeptMark], module, project) -> list[KeptMark]:
    """`marks` but those of a module function marking its parameter's list whose callers all live
    in other modules and all pass a list built for the call (module docstring)."""
    if project is None or getattr(module, "path", None) is None:
        return marks
    funcs = list(module_functions(module))
    return [m for m in marks if not _rebuilt(m, module, funcs, project)]


def _rebuilt(mark: KeptMark, module, funcs, project) -> bool:
    if mark.kept is not None or mark.via is not None or mark.caller is not None:
        return False
    func = _marking_function(mark.node, funcs)
    if func is None:
        return False
    scope = MarkScope(module, None, func)
    if mark.holder not in scope.params:
        return False  # (an attribute or a key of a parameter: the callers' object)
    got = list_callers(module, funcs, scope, mark.holder)
    if got is None or got[2]:
        return False  # (called in its own module: judged there)
    others = project.callers_of(func.name, module.path, MAX_MODULES)
    found = False
    for other in others or ():
        other_funcs = list(module_functions(other))
        got = list_callers(other, other_funcs, scope, mark.holder)
        if got is not None:
            return False  # (a call passes a kept list, a list of its own callers, or none is found)
        found = True
    return found


def _marking_function(node, funcs):
    """The module-level function (not a method) whose body holds `node`, or None."""
    for cls, func in funcs:
        if cls is None and any(n is node for n in subtree(func)):
            return func
    return None
