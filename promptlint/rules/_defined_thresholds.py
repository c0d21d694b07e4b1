"""PRM402's judgement of the semantic response caches a module defines (`python/semantic/classes.py`
states them): a constructor whose match threshold defaults to None, with no number put in its place
anywhere in the class, makes every cache built with the defaults accept the nearest stored answer
however far it is. A warning at the parameter when the class itself turns the filter off when none
is set (a read of the kept threshold tested for truth: `if self.t`, `self.t or 0.0`); info when it
only hands the None on to a search whose own default is not shown here (Policy 7: not sure, not a
warning). The reads of the kept threshold are its related locations.
"""
from __future__ import annotations

from ..model import Related, Severity
from ..python.semantic.classes import defined_caches


def findings(rule, module):
    """PRM402 diagnostics of the semantic cache classes `module` defines."""
    for cache in defined_caches(module):
        param = cache.threshold_param
        if param is None or not cache.threshold_default_none or cache.threshold_fallback \
                or not cache.threshold_reads:
            continue
        related = [Related(module.span(read), "the threshold is read here: None (or 0) filters nothing")
                   for read in cache.threshold_reads]
        yield rule.diagnostic(
            f"`{cache.cls.name}(...)` defaults `{param.arg}` to None and never puts a number in its place: "
            "a cache made with the defaults has no threshold and returns the nearest stored answer to any "
            "question, however different; give the threshold a default tuned to the embedding model"
            + ("" if cache.threshold_tested else " (the None is handed on to the search here: what it does "
               "with None is not shown in this module)"),
            module.span(param), related=related, severity=None if cache.threshold_tested else Severity.INFO)
