"""PRM401 semantic-cache-without-ttl: a semantic response cache whose entries never expire."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..model import Diagnostic
from ..python.semantic_caches import EXPLICIT_NONE, MISSING, NO_OPTION, find_sites, ttl_message, ttl_state
from .base import Rule

if TYPE_CHECKING:  # pragma: no cover
    from ..python.project import Module


class SemanticCacheWithoutTtlRule(Rule):
    """## What it does
    Flags a semantic response cache configured without a TTL: LangChain `RedisSemanticCache`
    (langchain_redis `ttl`; the langchain_community class has no TTL at all),
    `CassandraSemanticCache` (`ttl_seconds`), redisvl `SemanticCache` (`ttl`), LiteLLM
    `Cache(type="redis-semantic" | "qdrant-semantic" | "valkey-semantic")` and its `cache_params`
    (`ttl`, `default_in_redis_ttl`), and GPTCache set up with a data manager that never expires
    entries. Reported once, at the constructor (or `cache.init(...)`, or the `cache_params` dict).

    ## Why is this bad?
    A semantic cache returns a stored answer to any question close enough to an earlier one.
    Without a TTL the answer is served until the store runs out of space: once a price, a policy
    or a fact changes, every similar question keeps getting the old answer, and the store grows
    without bound. These libraries default to no expiry (PROVIDERS.md section 5).

    ## Example
    ```python
    from langchain_redis import RedisSemanticCache

    cache = RedisSemanticCache(embeddings=embeddings, redis_url=REDIS_URL)
    ```

    Use instead:
    ```python
    cache = RedisSemanticCache(embeddings=embeddings, redis_url=REDIS_URL, ttl=CACHE_TTL_SECONDS)
    ```

    A TTL passed as a variable or read from configuration counts as set; `ttl=None` does not.

    ## Fix safety
    No fix is offered: how long an answer stays true is a product decision. The message
    proposes a TTL.
    """

    code = "PRM401"
    fix_availability = "none"

    def check_module(self, module: "Module") -> Iterable[Diagnostic]:
        for site in find_sites(module):
            state = ttl_state(site, module)
            if state in (MISSING, EXPLICIT_NONE, NO_OPTION):
                yield self.diagnostic(ttl_message(site, state), module.span(site.node))
