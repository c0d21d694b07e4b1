"""What a semantic-cache site sets: its TTL and its match threshold, as read from the code.

Facts only: `ttl_setting` says whether and how a TTL is passed, `threshold_setting` which number
the threshold is; whether either is a problem is for the rules (PRM401, PRM402) to decide.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ...profiles.semantic_caches import GptCacheSetup, Threshold, table
from ..module import Module
from .scopes import Scope, follow, is_none, qualify, string
from .sites import Site

SET, MISSING, EXPLICIT_NONE, NO_OPTION, UNKNOWN = "set", "missing", "none", "no-option", "unknown"


@dataclass(frozen=True)
class TtlSetting:
    """How a site sets its TTL. `state` is SET (a value that is not None: a literal, a variable,
    configuration, or a later `set_ttl(...)`), MISSING, EXPLICIT_NONE (`ttl=None`, directly or
    through a name), NO_OPTION (the class has no TTL option) or UNKNOWN (arguments not visible, or
    not checked for this library). `param` and `value` are the parameter passed as None and the
    expression written for it (EXPLICIT_NONE only)."""

    state: str
    param: str | None = None
    value: ast.expr | None = None


def ttl_setting(site: Site, module: Module) -> TtlSetting:
    """The TTL the site sets (see TtlSetting)."""
    library = site.library
    if library.ttl_check == "absent":
        return TtlSetting(NO_OPTION)
    if library.ttl_check == "gptcache":
        return TtlSetting(_gptcache_ttl(site, module))
    if library.ttl_check != "kwarg":
        return TtlSetting(UNKNOWN)
    explicit_none: TtlSetting | None = None
    for param in library.ttl_params:
        if param in site.args:
            if not is_none(*site.args[param]):
                return TtlSetting(SET)
            explicit_none = explicit_none or TtlSetting(EXPLICIT_NONE, param, site.args[param][0])
    if site.open:
        return TtlSetting(UNKNOWN)
    if site.ttl_set_later:
        return TtlSetting(SET)
    return explicit_none or TtlSetting(MISSING)


def _gptcache_ttl(site: Site, module: Module) -> str:
    """GPTCache: the data manager decides. Absent -> in-memory LRU (MISSING); a gptcache manager
    call with a `ttl` anywhere in it -> SET; without one -> MISSING; anything else -> UNKNOWN."""
    if "data_manager" not in site.args:
        return UNKNOWN if site.open else MISSING
    expr, scope = site.args["data_manager"]
    return _ttl_in(module, table().gptcache, expr, scope, depth=4)


def _ttl_in(module: Module, setup: GptCacheSetup, expr: ast.expr, scope: Scope, depth: int) -> str:
    """SET when a `ttl` with a value is visible in a GPTCache data-manager expression (in its
    arguments, nested gptcache calls and dicts), MISSING when all of it is visible and none is,
    UNKNOWN when a part that could carry one (a call outside gptcache, an unreadable name passed
    where a TTL may sit, `*args` or `**kwargs`) is not."""
    found = follow(expr, scope)
    if found is None or depth == 0:
        return UNKNOWN
    node, scope = found
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            return UNKNOWN
        has_ttl = any(string(key, scope) == "ttl" and not is_none(value, scope)
                      for key, value in zip(node.keys, node.values))
        return SET if has_ttl else MISSING
    if not isinstance(node, ast.Call):
        return MISSING if isinstance(node, ast.Constant) else UNKNOWN
    dotted = qualify(module, node.func, scope)
    if dotted is None or not dotted.startswith("gptcache."):
        return UNKNOWN
    passed = [(None, index, arg) for index, arg in enumerate(node.args)]
    passed += [(keyword.arg, None, keyword.value) for keyword in node.keywords]
    state = MISSING
    for keyword, index, value in passed:
        if isinstance(value, ast.Starred) or (keyword is None and index is None):
            return UNKNOWN  # `*args` or `**kwargs`
        if keyword == "ttl":
            if not is_none(value, scope):
                return SET
            continue
        carrier = keyword in setup.ttl_carriers or index in setup.ttl_carrier_positions
        if not carrier and not isinstance(value, (ast.Dict, ast.Call)):
            continue
        inner = _ttl_in(module, setup, value, scope, depth - 1)
        if inner == SET:
            return SET
        if inner == UNKNOWN and carrier:
            state = UNKNOWN
    return state


@dataclass(frozen=True)
class ThresholdSetting:
    """The number a site passes as its library's threshold. `node` is the argument expression in
    the call (or dict), `origin` the literal it came from when that is elsewhere (a constant);
    `options` the string values passed for the parameters of `threshold.applies_when` (None for
    a value that is not a string literal)."""

    threshold: Threshold
    value: float
    node: ast.expr
    origin: ast.expr | None
    options: dict[str, str | None]


def threshold_setting(site: Site) -> ThresholdSetting | None:
    """The site's threshold when it is passed as a number the code states (a literal or a name
    bound once to one); None when the library has no threshold, none is passed, or its value
    is not known statically."""
    threshold = site.library.threshold
    if threshold is None:
        return None
    value = site.number(threshold.param)
    if value is None:
        return None
    options = {param: site.text(param) for param, _ in threshold.applies_when if param in site.args}
    return ThresholdSetting(threshold, value, site.args[threshold.param][0], site.origin(threshold.param),
                            options)
