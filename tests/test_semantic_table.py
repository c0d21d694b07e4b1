"""The semantic-cache library table (promptlint/profiles/semantic_caches.toml): packaged data,
loaded with importlib.resources, validated on load with errors that name the entry and the key."""
from __future__ import annotations

from importlib import resources

import pytest

from promptlint.profiles.semantic_caches import TableError, parse_table, table

PACKAGED = resources.files("promptlint.profiles").joinpath("semantic_caches.toml").read_text(encoding="utf-8")


def test_packaged_table_loads_with_the_libraries_and_their_defaults():
    libraries = table().by_key
    assert len(libraries) == 12
    defaults = {key: (lib.threshold.param, lib.threshold.kind, lib.threshold.default)
                for key, lib in libraries.items() if lib.threshold}
    assert defaults == {
        "langchain_redis.RedisSemanticCache": ("distance_threshold", "distance", 0.2),
        "langchain_redis.LangCacheSemanticCache": ("distance_threshold", "distance", 0.2),
        "langchain_community.RedisSemanticCache": ("score_threshold", "distance", 0.2),
        "langchain_community.CassandraSemanticCache": ("score_threshold", "similarity", 0.85),
        "AstraDBSemanticCache": ("similarity_threshold", "similarity", 0.85),
        "redisvl.SemanticCache": ("distance_threshold", "distance", 0.1),
        "redisvl.llmcache.SemanticCache": ("distance_threshold", "distance", 0.1),
        "litellm.redis-semantic": ("similarity_threshold", "similarity", 0.8),
        "litellm.valkey-semantic": ("similarity_threshold", "similarity", 0.8),
        "litellm.qdrant-semantic": ("similarity_threshold", "similarity", 0.8),
        "gptcache.Config": ("similarity_threshold", "similarity", 0.8),
    }
    assert libraries["litellm.redis-semantic"].threshold.documented is False
    assert libraries["redisvl.SemanticCache"].threshold.range == "0-2"
    assert libraries["langchain_community.RedisSemanticCache"].ttl_check == "absent"
    assert libraries["langchain_community.CassandraSemanticCache"].ttl_params == ("ttl_seconds",)
    assert libraries["redisvl.llmcache.SemanticCache"].params is None  # positional order unknown
    assert libraries["AstraDBSemanticCache"].params == ()  # keyword-only


def test_every_number_cites_a_public_source_inside_no_local_file():
    sources = [lib.source for lib in table().libraries]
    sources += [lib.threshold.source for lib in table().libraries if lib.threshold]
    sources += [table().litellm.source, table().gptcache.source]
    for source in sources:
        assert "https://" in source, source
        assert "PROVIDERS.md" not in source and "../" not in source and "/work/" not in source, source


def test_names_types_and_mentions_index_the_libraries():
    t = table()
    assert t.by_name["redisvl.extensions.cache.llm.SemanticCache"].key == "redisvl.SemanticCache"
    assert t.by_name["langchain.cache.RedisSemanticCache"].key == "langchain_community.RedisSemanticCache"
    assert t.by_litellm_type["qdrant-semantic"] is t.by_litellm_enum["QDRANT_SEMANTIC"]
    assert t.gptcache_library.ttl_check == "gptcache"
    assert t.ttl_setters == {"set_ttl"}
    mentions = set(t.mentions())
    assert {("langchain_redis", "RedisSemanticCache"), ("redisvl", "SemanticCache"), ("litellm", "Cache"),
            ("gptcache", "init_similar_cache"), ("", "cache_params")} <= mentions
    assert all(name for _, name in mentions)


def test_the_packaged_text_round_trips():
    assert parse_table(PACKAGED) == table()


def _first(old: str, new: str) -> str:
    assert old in PACKAGED, old
    return PACKAGED.replace(old, new, 1)


@pytest.mark.parametrize("text, message", [
    (_first('project = "redisvl"', 'project = "redisvl"\ncolour = "red"'),
     "library 6 (redisvl.SemanticCache): unknown key `colour`"),
    (_first("default = 0.1\n", 'default = "0.1"\n'),
     "library 6 (redisvl.SemanticCache): `threshold.default` must be a number"),
    (_first('kind = "distance"', 'kind = "cosine"'),
     "library 1 (langchain_redis.RedisSemanticCache): `threshold.kind` must be one of distance, similarity"),
    (_first("default = 0.2\n", "default = 2.5\n"),
     "library 1 (langchain_redis.RedisSemanticCache): `threshold.default` 2.5 is outside its range 0-2"),
    (_first('range = "0-2"', 'range = "two"'), "`threshold.range` must read LOW-HIGH"),
    (_first('unit = "Redis cosine distance"\n', ""),
     "library 1 (langchain_redis.RedisSemanticCache): missing `threshold.unit`"),
    (_first('\nttl_check = "kwarg"', '\nttl_check = "sometimes"'),
     "library 1 (langchain_redis.RedisSemanticCache): `ttl_check` must be one of kwarg, absent, gptcache, none"),
    (_first('ttl_params = ["ttl"]\n', ""),
     "library 1 (langchain_redis.RedisSemanticCache): `ttl_params` is required"),
    (_first('names = ["langchain_redis.RedisSemanticCache", ', 'names = [3, '),
     "library 1 (langchain_redis.RedisSemanticCache): `names` must be a list of strings"),
    (_first('"langchain_redis.cache.LangCacheSemanticCache"]', '"langchain_redis.RedisSemanticCache"]'),
     "name `langchain_redis.RedisSemanticCache` belongs to two libraries"),
    (_first("applies_when = { metric = [\"cosine\"] }", "applies_when = { metric = \"cosine\" }"),
     "`threshold.applies_when` must map parameters to lists of strings"),
    (_first('type_enum = "LiteLLMCacheType"', 'type_enum = "LiteLLMCacheType"\nextra = 1'),
     "[litellm]: unknown key `extra`"),
    (_first('ttl_carrier_positions = [0, 3]', 'ttl_carrier_positions = ["first"]'),
     "[gptcache]: `ttl_carrier_positions` must be a list of non-negative integers"),
    (_first('library = "gptcache"', 'library = "gpt-cache"'), "[gptcache] `library` names no [[library]] key"),
    (_first("schema_version = 1", "schema_version = 2"), "`schema_version` must be 1"),
    (PACKAGED + "\n[[library\n", "not valid TOML"),
])
def test_a_malformed_table_is_an_error_naming_the_entry_and_key(text, message):
    with pytest.raises(TableError) as error:
        parse_table(text)
    assert message in str(error.value)
    assert str(error.value).startswith("semantic_caches.toml")
