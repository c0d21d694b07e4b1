"""Fix builders for the old libcst analysis: a thin shim over `promptlint.codemod`.

The evaluator and the call-site finder build fixes with their own libcst `Module` (it has
`.tree`, `.source`, `.positions`, `.code`, `.qualified_name` and `.imports`, all the builders
need). The builders themselves live in `promptlint.codemod`; this module goes when the old
analysis does.
"""
from __future__ import annotations

from ..codemod._common import extent as _extent
from ..codemod.keywords import add_keyword_fix, orjson_sort_keys_fix, sort_keys_fix
from ..codemod.moves import move_to_end_fix
from ..codemod.sorting import KEY_FLAT, KEY_NESTED, KEY_OBJECT, sort_tools_fix, wrap_sorted_fix

__all__ = [
    "add_keyword_fix", "orjson_sort_keys_fix", "sort_keys_fix", "wrap_sorted_fix",
    "sort_tools_fix", "move_to_end_fix", "KEY_NESTED", "KEY_FLAT", "KEY_OBJECT", "_extent",
]
