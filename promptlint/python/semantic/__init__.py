"""Semantic response caches in Python code, as facts: where one is configured and with what.

- `sites`: `find_sites(module)` lists the places a semantic cache is configured (constructor calls,
  GPTCache set-ups, LiteLLM `cache_params` dicts) with their arguments;
- `settings`: `ttl_setting(site, module)` and `threshold_setting(site)` read what a site sets;
- `scopes`: one walk over the `ast` tree (scopes, bindings, calls, dicts) and the helpers that
  follow names bound once.
- `classes`: `defined_caches(module)` lists the semantic cache classes the module itself defines (the
  cache library's own code) with what their code does with a TTL.

The libraries themselves (names, parameters, defaults, sources) are data:
`promptlint/profiles/semantic_caches.toml`. Verdicts and messages belong to the rules PRM401 and
PRM402. Works on `promptlint.python.module.Module` (the stdlib `ast`).
"""
from __future__ import annotations

from .settings import (EXPLICIT_NONE, MISSING, NO_OPTION, SET, UNKNOWN, ThresholdSetting, TtlSetting,
                       threshold_setting, ttl_setting)
from .sites import Site, find_sites, mentions_semantic_cache

__all__ = ["EXPLICIT_NONE", "MISSING", "NO_OPTION", "SET", "UNKNOWN", "Site", "ThresholdSetting",
           "TtlSetting", "find_sites", "mentions_semantic_cache", "threshold_setting", "ttl_setting"]
