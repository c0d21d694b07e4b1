"""PRM402 semantic-threshold-too-loose: a match threshold looser than the library's reference."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..model import Diagnostic, Related
from ..python.semantic_caches import find_sites, loose_threshold, threshold_message
from .base import Rule

if TYPE_CHECKING:  # pragma: no cover
    from ..python.project import Module


class SemanticThresholdTooLooseRule(Rule):
    """## What it does
    Flags a semantic-cache threshold looser than the library's documented default (for LiteLLM,
    which has none, than the value its documentation uses), read in the library's own meaning:
    a *distance* (lower is stricter: LangChain `RedisSemanticCache` `distance_threshold` /
    `score_threshold` 0.2, redisvl `SemanticCache` `distance_threshold` 0.1, both Redis cosine
    distance on a 0-2 scale) or a *similarity* (higher is stricter: GPTCache `Config`
    `similarity_threshold` 0.8, LiteLLM `similarity_threshold` 0.8, Cassandra / Astra DB 0.85).
    Only numbers written as literals or module/function constants are judged.

    ## Why is this bad?
    The threshold decides how different two questions may be and still share an answer. Too
    loose, and "can I cancel my annual plan?" gets the answer stored for "can I cancel my monthly
    plan?". Mixing up the two meanings is common: `distance_threshold=0.9` reads as "90% similar"
    but accepts almost anything.

    ## Example
    ```python
    cache = SemanticCache(name="faq", distance_threshold=0.5)
    ```

    Use instead:
    ```python
    cache = SemanticCache(name="faq", distance_threshold=0.1)
    ```

    ## Fix safety
    No fix is offered: the right threshold depends on the embedding model and the questions;
    measure it on real traffic.
    """

    code = "PRM402"
    fix_availability = "none"

    def check_module(self, module: "Module") -> Iterable[Diagnostic]:
        for site in find_sites(module):
            loose = loose_threshold(site)
            if loose is None:
                continue
            related = []
            if loose.constant is not None:
                related.append(Related(module.span(loose.constant), "threshold value set here"))
            yield self.diagnostic(threshold_message(loose), module.span(loose.node), related=related)
