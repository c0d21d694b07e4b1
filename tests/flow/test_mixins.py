"""The evaluator is one class made of mixins (python/flow/): a method name defined in two of them
silently makes one shadow the other (the first in the MRO wins), which merges of parallel work
have done (`_static` in core and objects)."""
from __future__ import annotations

from promptlint.python.flow.core import Evaluator


def _own_methods(cls) -> set[str]:
    return {name for name, value in vars(cls).items() if callable(value) or isinstance(value, (staticmethod, classmethod))}


def test_no_method_is_defined_in_two_parts_of_the_evaluator():
    owners: dict[str, list[str]] = {}
    for cls in Evaluator.__mro__:
        if cls is object:
            continue
        for name in _own_methods(cls):
            if not (name.startswith("__") and name.endswith("__")):
                owners.setdefault(name, []).append(cls.__name__)
    shadowed = {name: classes for name, classes in owners.items() if len(classes) > 1}
    assert shadowed == {}


def test_the_check_sees_a_shadowed_method():
    class A:
        def f(self): ...

    class B:
        def f(self): ...

    class C(A, B):
        pass

    names = [n for cls in C.__mro__ if cls is not object for n in _own_methods(cls)]
    assert names.count("f") == 2
