"""PRM401 semantic-cache-without-ttl and PRM402 semantic-threshold-too-loose, run on parsed modules.

Each library's constructor is checked with and without a TTL (literal, variable, configuration,
`None`), and each threshold meaning (distance vs similarity, 0-1 vs 0-2 scales).
"""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from promptlint.model import Severity
from promptlint.python.module import load
from promptlint.python.semantic import find_sites, mentions_semantic_cache
from promptlint.rules.prm401_semantic_cache_without_ttl import SemanticCacheWithoutTtlRule
from promptlint.profiles.semantic_caches import table
from promptlint.rules.prm402_semantic_threshold_too_loose import MARGIN, SemanticThresholdTooLooseRule, reference

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "cases"


def parse(path: Path):
    return load(path, path.read_text(encoding="utf-8"))


def run(rule, path: Path):
    return list(rule.check_module(parse(path)))


def lint(tmp_path: Path, source: str, rule=None, name: str = "example.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return run(rule or SemanticCacheWithoutTtlRule(), path)


def rows(diagnostics) -> list[int]:
    return [d.span.start.row for d in diagnostics]


def loose(tmp_path: Path, source: str):
    return lint(tmp_path, source, SemanticThresholdTooLooseRule())


# --- acceptance: the shared cases -------------------------------------------------------------


def test_case_semantic_cache_no_ttl_reports_constructor_line_12():
    found = run(SemanticCacheWithoutTtlRule(), FIXTURES / "semantic-cache-no-ttl" / "llm_cache.py")
    assert [(d.code, d.name, d.span.start.row, d.span.start.column, d.severity) for d in found] == [
        ("PRM401", "semantic-cache-without-ttl", 12, 13, Severity.WARNING)]
    assert found[0].fix is None
    assert "ttl=3600" in found[0].message and "never expire" in found[0].message


@pytest.mark.parametrize("rule", [SemanticCacheWithoutTtlRule, SemanticThresholdTooLooseRule])
@pytest.mark.parametrize("case, filename", [
    ("semantic-cache-no-ttl", "llm_cache.py"),  # distance_threshold=0.1 is stricter than 0.2
    ("clean-breakpoint-on-static-system", "answer_cache.py"),
    ("clean-breakpoint-on-static-system", "claude_chat.py"),
])
def test_cases_clean_for(rule, case, filename):
    found = run(rule(), FIXTURES / case / filename)
    if rule is SemanticCacheWithoutTtlRule and case == "semantic-cache-no-ttl":
        assert rows(found) == [12]
    else:
        assert found == []


# --- LangChain ----------------------------------------------------------------------------------

LC_REDIS = """
import os
from langchain_redis import RedisSemanticCache

TTL = {const}

def build(embeddings, ttl_param=None):
    local = {local}
    return RedisSemanticCache(embeddings=embeddings, redis_url="redis://r:6379"{extra})
"""


@pytest.mark.parametrize("extra, const, local, expected", [
    ("", "3600", "None", [8]),
    (", ttl=3600", "3600", "None", []),
    (", ttl=None", "3600", "None", [8]),
    (", ttl=TTL", "3600", "None", []),
    (", ttl=TTL", "None", "None", [8]),  # a module constant that is None
    (", ttl=TTL", 'int(os.environ.get("TTL", "600"))', "None", []),  # from configuration
    (", ttl=local", "3600", "None", [8]),  # a local bound to None
    (", ttl=local", "3600", "settings.cache_ttl", []),
    (", ttl=ttl_param", "3600", "None", []),  # a parameter: the caller decides
    (", ttl=unknown_global", "3600", "None", []),
    (", **options", "3600", "None", []),  # arguments not visible
])
def test_langchain_redis_ttl(tmp_path, extra, const, local, expected):
    source = LC_REDIS.format(extra=extra, const=const, local=local)
    found = lint(tmp_path, source)
    assert rows(found) == expected
    if expected and "ttl=None" in extra:
        assert "has `ttl=None`: cached answers never expire" in found[0].message
    elif expected and "ttl=" in extra:
        assert f"has `{extra[2:]}`, which is None:" in found[0].message
    elif expected:
        assert "no `ttl`" in found[0].message


def test_langchain_redis_positional_ttl_counts(tmp_path):
    source = """
    from langchain_redis.cache import RedisSemanticCache
    a = RedisSemanticCache(emb, "redis://r", 0.1, 600)
    b = RedisSemanticCache(emb, "redis://r", 0.1)
    """
    assert rows(lint(tmp_path, source)) == [3]


def test_langchain_redis_alias_and_set_llm_cache(tmp_path):
    source = """
    import langchain_redis as lr
    from langchain_core.globals import set_llm_cache
    set_llm_cache(
        lr.RedisSemanticCache(embeddings=emb)
    )
    """
    found = lint(tmp_path, source)
    assert [(d.span.start.row, d.span.start.column) for d in found] == [(4, 5)]


def test_langcache_semantic_cache(tmp_path):
    source = """
    from langchain_redis import LangCacheSemanticCache
    a = LangCacheSemanticCache(cache_id="c", api_key=KEY)
    b = LangCacheSemanticCache(cache_id="c", api_key=KEY, ttl=3600)
    """
    assert rows(lint(tmp_path, source)) == [2]


def test_community_redis_has_no_ttl_option(tmp_path):
    source = """
    from langchain_community.cache import RedisSemanticCache
    from langchain.cache import RedisSemanticCache as OldCache
    a = RedisSemanticCache(redis_url=URL, embedding=emb)
    b = OldCache(URL, emb, score_threshold=0.1)
    """
    found = lint(tmp_path, source)
    assert rows(found) == [3, 4]
    assert "no TTL option" in found[0].message
    assert "langchain_redis.RedisSemanticCache(ttl=3600" in found[0].message


def test_cassandra_ttl_seconds(tmp_path):
    source = """
    from langchain_community.cache import CassandraSemanticCache
    a = CassandraSemanticCache(session=None, keyspace=None, embedding=emb)
    b = CassandraSemanticCache(session=None, keyspace=None, embedding=emb, ttl_seconds=3600)
    c = CassandraSemanticCache(None, None, emb, "t", "dot", 0.9, 600)
    """
    found = lint(tmp_path, source)
    assert rows(found) == [2]
    assert "no `ttl_seconds`" in found[0].message and "ttl_seconds=3600" in found[0].message


def test_classes_without_ttl_option_are_not_reported(tmp_path):
    source = """
    from langchain_astradb import AstraDBSemanticCache
    from langchain_community.cache import OpenSearchSemanticCache
    a = AstraDBSemanticCache(embedding=emb, api_endpoint=E, token=T)
    b = OpenSearchSemanticCache(opensearch_url=U, embedding=emb)
    """
    assert lint(tmp_path, source) == []


# --- redisvl --------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["redisvl.extensions.llmcache", "redisvl.extensions.cache.llm",
                                  "redisvl.extensions.cache.llm.semantic"])
def test_redisvl_both_import_paths(tmp_path, path):
    source = f"""
    from {path} import SemanticCache
    a = SemanticCache(name="faq", redis_url=URL)
    b = SemanticCache(name="faq", redis_url=URL, ttl=86400)
    c = SemanticCache("faq", 0.1, 600)
    """
    found = lint(tmp_path, source)
    assert rows(found) == [2]
    assert "`SemanticCache(...)` has no `ttl`" in found[0].message


def test_redisvl_set_ttl_after_construction(tmp_path):
    source = """
    from redisvl.extensions.cache.llm import SemanticCache

    class Service:
        def __init__(self):
            self.cache = SemanticCache(name="faq")
            self.cache.set_ttl(3600)
            other = SemanticCache(name="other")
            other.set_ttl(None)
    """
    assert rows(lint(tmp_path, source)) == [7]


def test_locally_defined_class_of_same_name_is_not_a_semantic_cache(tmp_path):
    source = """
    from redisvl.extensions.cache.llm import SemanticCache

    def f():
        SemanticCache = dict
        return SemanticCache(name="x")
    """
    assert lint(tmp_path, source) == []


# --- LiteLLM --------------------------------------------------------------------------------------


@pytest.mark.parametrize("args, expected", [
    ('type="redis-semantic", similarity_threshold=0.8', [3]),
    ('type="redis-semantic", similarity_threshold=0.8, ttl=600', []),
    ('type="redis-semantic", similarity_threshold=0.8, default_in_redis_ttl=600', []),
    ('type="redis-semantic", similarity_threshold=0.8, ttl=None', [3]),
    ('type="qdrant-semantic", similarity_threshold=0.8', [3]),
    ('type="qdrant-semantic", similarity_threshold=0.8, default_in_redis_ttl=600', [3]),  # redis only
    ('type="qdrant-semantic", similarity_threshold=0.8, ttl=TTL', []),
    ('type="valkey-semantic", similarity_threshold=0.8', [3]),
    ('type=LiteLLMCacheType.REDIS_SEMANTIC, similarity_threshold=0.8', [3]),
    ('type="redis"', []),  # exact-match cache: not semantic
    ("", []),  # local in-memory default
    ("type=cache_kind", []),  # unknown type
])
def test_litellm_cache(tmp_path, args, expected):
    source = f"""
    import litellm
    from litellm.types.caching import LiteLLMCacheType
    litellm.cache = litellm.Cache({args})
    """
    assert rows(lint(tmp_path, source)) == expected


def test_litellm_cache_params_dict_and_unpacking(tmp_path):
    source = """
    from litellm.caching.caching import Cache

    cache_params = {"type": "redis-semantic", "similarity_threshold": 0.8}
    cache = Cache(**cache_params)

    settings = {"cache": True, "cache_params": {"type": "qdrant-semantic", "similarity_threshold": 0.9}}
    ok_params = {"type": "redis-semantic", "ttl": 600}
    other = {"type": "redis-semantic"}  # not cache_params and never used: not read
    """
    found = lint(tmp_path, source)
    assert rows(found) == [4, 6]
    assert found[0].message.startswith("`Cache(type=\"redis-semantic\", ...)` has no `ttl`")
    assert found[1].message.startswith("LiteLLM `cache_params` (qdrant-semantic) has no `ttl`")


def test_litellm_enable_cache(tmp_path):
    source = """
    import litellm
    litellm.enable_cache(type="redis-semantic", similarity_threshold=0.8)
    litellm.enable_cache(type="redis-semantic", similarity_threshold=0.8, ttl=60)
    """
    assert rows(lint(tmp_path, source)) == [2]


# --- GPTCache -------------------------------------------------------------------------------------


@pytest.mark.parametrize("init, expected", [
    ("cache.init()", [6]),
    ("cache.init(data_manager=manager_factory('sqlite,faiss', vector_params={'dimension': 8}))", [6]),
    ("cache.init(data_manager=get_data_manager(CacheBase('sqlite'), VectorBase('faiss', dimension=8)))",
     [6]),
    ("cache.init(data_manager=manager_factory('redis,faiss', eviction_manager='redis',"
     " scalar_params={'ttl': 3600}))", []),
    ("cache.init(data_manager=get_data_manager(CacheBase('sqlite'), VectorBase('faiss', dimension=8),"
     " eviction_base=EvictionBase('redis', ttl=600)))", []),
    ("cache.init(data_manager=manager_factory('redis,faiss', eviction_params=EVICTION))", []),
    ("cache.init(data_manager=make_manager())", []),  # a helper: not visible
    ("cache.init(data_manager=dm)", []),  # a parameter
    ("Cache().init()", [6]),
    ("init_similar_cache(data_dir='faq')", [6]),
])
def test_gptcache_data_manager(tmp_path, init, expected):
    source = f"""
    from gptcache import Cache, cache
    from gptcache.adapter.api import init_similar_cache
    from gptcache.manager import CacheBase, EvictionBase, VectorBase, get_data_manager, manager_factory
    EVICTION = {{"url": "redis://r:6379", "ttl": 600}}
    def setup(dm):
        {init}
    """
    found = lint(tmp_path, source)
    assert rows(found) == expected
    if expected:
        assert "never expires entries" in found[0].message and "ttl" in found[0].message


def test_gptcache_object_in_variable_and_langchain_init_func(tmp_path):
    source = """
    import gptcache
    from gptcache.manager.factory import manager_factory
    from langchain_community.cache import GPTCache

    def init_gptcache(cache_obj, llm):
        cache_obj.init(data_manager=manager_factory(manager="map", data_dir=f"map_{llm}"))

    def annotated(obj: gptcache.Cache):
        obj.init()

    def unrelated(obj):
        obj.init()

    local = gptcache.Cache()
    local.init()
    GPTCache(init_gptcache)
    GPTCache()
    """
    assert rows(lint(tmp_path, source)) == [6, 9, 15, 17]


# --- PRM402 thresholds ----------------------------------------------------------------------------


def test_langchain_redis_distance_threshold(tmp_path):
    source = """
    from langchain_redis import RedisSemanticCache
    a = RedisSemanticCache(embeddings=emb, distance_threshold=0.1, ttl=60)
    b = RedisSemanticCache(embeddings=emb, distance_threshold=0.2, ttl=60)
    c = RedisSemanticCache(embeddings=emb, distance_threshold=0.5, ttl=60)
    """
    found = loose(tmp_path, source)
    assert [(d.code, d.span.start.row, d.span.start.column) for d in found] == [("PRM402", 4, 59)]
    assert found[0].message == (
        "`distance_threshold=0.5` accepts cached answers up to Redis cosine distance 0.5 (default 0.2 "
        "on a 0-2 scale; lower is stricter): questions that differ may get the same answer; this is a "
        "distance, not a similarity: to require similarity 0.5 pass 0.5")
    assert found[0].severity is Severity.WARNING and found[0].fix is None


def test_redisvl_distance_on_0_2_scale_and_similarity_mixup(tmp_path):
    # Issue 12 item 6: 0.15 used to be reported against redisvl's 0.1 with no margin, although
    # LangChain's RedisSemanticCache (a redisvl cache) ships 0.2 on the same measure.
    source = """
    from redisvl.extensions.llmcache import SemanticCache
    a = SemanticCache(name="a", distance_threshold=0.1)
    b = SemanticCache(name="b", distance_threshold=0.15)
    c = SemanticCache("c", 0.9)
    d = SemanticCache(name="d", distance_threshold=0.3)
    """
    found = loose(tmp_path, source)
    assert rows(found) == [4, 5]
    assert found[0].message.endswith("to require similarity 0.9 pass 0.1")
    assert "Redis cosine distance 0.3 (default 0.1 on a 0-2 scale" in found[1].message
    assert "similarity" not in found[1].message.split(";")[-1]


def test_community_redis_score_threshold_is_a_distance(tmp_path):
    source = """
    from langchain_community.cache import RedisSemanticCache
    a = RedisSemanticCache(URL, emb, 0.3)
    b = RedisSemanticCache(URL, emb, score_threshold=0.05)
    """
    found = loose(tmp_path, source)
    assert rows(found) == [2]
    assert found[0].message.startswith("`score_threshold=0.3` accepts cached answers up to Redis cosine")


def test_gptcache_similarity_threshold(tmp_path):
    source = """
    from gptcache import Config, cache
    cache.init(config=Config(similarity_threshold=0.6))
    cache.init(config=Config(similarity_threshold=0.9))
    cache.init(config=Config(None, 0.7))
    """
    found = loose(tmp_path, source)
    assert rows(found) == [2, 4]
    assert found[0].message == (
        "`similarity_threshold=0.6` accepts cached answers down to GPTCache similarity score 0.6 "
        "(default 0.8 on a 0-1 scale; higher is stricter): questions that differ may get the same answer")


def test_litellm_similarity_threshold(tmp_path):
    source = """
    from litellm import Cache
    a = Cache(type="redis-semantic", similarity_threshold=0.5, ttl=60)
    b = Cache(type="redis-semantic", similarity_threshold=0.85, ttl=60)
    params = {"cache_params": {"type": "qdrant-semantic", "similarity_threshold": 0.7, "ttl": 60}}
    """
    found = loose(tmp_path, source)
    assert rows(found) == [2, 4]
    assert "no default; its documentation uses 0.8" in found[0].message
    assert found[0].message.endswith("LiteLLM searches with distance 1 - 0.5 = 0.5")


def test_cassandra_and_astradb_similarity_and_metric(tmp_path):
    source = """
    from langchain_community.cache import AstraDBSemanticCache, CassandraSemanticCache
    a = CassandraSemanticCache(None, None, emb, score_threshold=0.7, ttl_seconds=60)
    b = CassandraSemanticCache(None, None, emb, score_threshold=0.9, ttl_seconds=60)
    c = CassandraSemanticCache(None, None, emb, distance_metric="l2", score_threshold=0.7, ttl_seconds=60)
    d = AstraDBSemanticCache(embedding=emb, similarity_threshold=0.6)
    e = AstraDBSemanticCache(embedding=emb, metric="euclidean", similarity_threshold=0.6)
    f = AstraDBSemanticCache(embedding=emb, metric="cosine", similarity_threshold=0.8)
    """
    found = loose(tmp_path, source)
    assert rows(found) == [2, 5, 7]
    assert "dot-product similarity 0.7 (default 0.85; higher is stricter)" in found[0].message


# The margin (issue 12 item 6): a default is a starting point, not a limit. The reference is the
# loosest default of the same measure; reported only past a quarter more accepted distance.
MARGIN_CASES = {
    "langchain_redis": ("from langchain_redis import RedisSemanticCache",
                        "RedisSemanticCache(embeddings=emb, distance_threshold={v}, ttl=60)"),
    "redisvl": ("from redisvl.extensions.cache.llm import SemanticCache",
                'SemanticCache(name="faq", distance_threshold={v}, ttl=60)'),
    "gptcache": ("from gptcache import Config", "Config(similarity_threshold={v})"),
    "litellm": ("from litellm import Cache", 'Cache(type="redis-semantic", similarity_threshold={v}, ttl=60)'),
    "cassandra": ("from langchain_community.cache import CassandraSemanticCache",
                  "CassandraSemanticCache(None, None, emb, score_threshold={v}, ttl_seconds=60)"),
}


@pytest.mark.parametrize("library, value, reported", [
    ("langchain_redis", 0.21, False),  # just looser than its default 0.2
    ("langchain_redis", 0.25, False),  # the edge of the margin
    ("langchain_redis", 0.26, True),
    ("redisvl", 0.15, False),  # issue 12 item 6: was reported against 0.1
    ("redisvl", 0.2, False),  # LangChain's default on the same Redis cosine distance
    ("redisvl", 0.25, False),
    ("redisvl", 0.3, True),
    ("redisvl", 0.9, True),  # a similarity written as a distance
    ("gptcache", 0.79, False),
    ("gptcache", 0.75, False),
    ("gptcache", 0.74, True),
    ("litellm", 0.78, False),
    ("litellm", 0.7, True),
    ("cassandra", 0.84, False),
    ("cassandra", 0.82, False),
    ("cassandra", 0.8, True),
])
def test_threshold_margin(tmp_path, library, value, reported):
    imports, constructor = MARGIN_CASES[library]
    found = loose(tmp_path, f"{imports}\ncache = {constructor.format(v=value)}\n")
    assert rows(found) == ([2] if reported else [])
    if reported:
        param = re.search(r"(\w+)=\{v\}", constructor).group(1)
        assert found[0].message.startswith(f"`{param}={value:g}` accepts cached answers")


def test_margin_reference_is_the_loosest_default_of_the_measure():
    libraries = table().by_key
    assert reference(libraries["redisvl.SemanticCache"].threshold) == 0.2
    assert reference(libraries["langchain_redis.RedisSemanticCache"].threshold) == 0.2
    assert reference(libraries["langchain_redis.LangCacheSemanticCache"].threshold) == 0.2  # its own measure
    assert reference(libraries["langchain_community.CassandraSemanticCache"].threshold) == 0.85
    assert reference(libraries["gptcache.Config"].threshold) == 0.8
    assert MARGIN == 0.25


def test_threshold_from_constants_and_configuration(tmp_path):
    source = """
    import os
    from langchain_redis import RedisSemanticCache

    LOOSE = 0.35
    FROM_ENV = float(os.environ.get("THRESHOLD", "0.5"))

    def build(emb):
        strict = 0.05
        a = RedisSemanticCache(embeddings=emb, distance_threshold=LOOSE, ttl=60)
        b = RedisSemanticCache(embeddings=emb, distance_threshold=FROM_ENV, ttl=60)
        c = RedisSemanticCache(embeddings=emb, distance_threshold=strict, ttl=60)
        return a, b, c
    """
    found = loose(tmp_path, source)
    assert rows(found) == [9]
    assert [(r.span.start.row, r.message) for r in found[0].related] == [(4, "threshold value set here")]


def test_threshold_rebound_name_is_not_judged(tmp_path):
    source = """
    from redisvl.extensions.cache.llm import SemanticCache
    level = 0.5
    level = 0.05
    cache = SemanticCache(name="x", distance_threshold=level, ttl=1)
    """
    assert loose(tmp_path, source) == []


# --- shared analysis ------------------------------------------------------------------------------


def test_modules_without_cache_libraries_are_skipped(tmp_path):
    path = tmp_path / "plain.py"
    path.write_text("def Cache(**kw):\n    return kw\nCache(type='redis-semantic')\n", encoding="utf-8")
    module = parse(path)
    assert not mentions_semantic_cache(module)
    assert find_sites(module) == []


def test_one_site_per_constructor(tmp_path):
    path = tmp_path / "sites.py"
    path.write_text(textwrap.dedent("""
        from langchain_redis import RedisSemanticCache
        from litellm import Cache
        cache_params = {"type": "redis-semantic", "similarity_threshold": 0.8}
        x = Cache(**cache_params)
        y = RedisSemanticCache(embeddings=emb)
    """), encoding="utf-8")
    sites = find_sites(parse(path))
    assert [(s.library.key, s.receiver) for s in sites] == [
        ("litellm.redis-semantic", "x"), ("langchain_redis.RedisSemanticCache", "y")]


def test_imports_inside_functions_are_followed(tmp_path):
    source = """
    def build_cache():
        from redisvl.extensions.cache.llm import SemanticCache
        import litellm as ll
        a = SemanticCache(name="faq")
        b = ll.Cache(type="redis-semantic", similarity_threshold=0.8)
        return a, b

    def other():
        return SemanticCache(name="not imported here")
    """
    assert rows(lint(tmp_path, source)) == [4, 5]


def test_class_attribute_does_not_hide_import_in_methods(tmp_path):
    source = """
    from langchain_redis import RedisSemanticCache

    class Service:
        RedisSemanticCache = None

        def build(self):
            return RedisSemanticCache(embeddings=emb)
    """
    assert rows(lint(tmp_path, source)) == [7]
