"""PRM401 on the semantic cache classes a module defines (python/semantic/classes.py, judged by
rules/_defined_caches.py): the cache library's own code. Fixtures are under fixtures/defined_caches/."""
from __future__ import annotations

import ast
import types
from pathlib import Path

from promptlint import api
from promptlint.python.semantic.classes import defined_caches

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "defined_caches"


def _report(*names):
    report = api.check([FIXTURES / n for n in names], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in report.diagnostics]


def _facts(source: str):
    return defined_caches(types.SimpleNamespace(source=source, tree=ast.parse(source)))


def test_a_semantic_cache_class_that_sets_no_expiry_anywhere_is_a_warning_at_its_constructor():
    assert _report("no_expiry.py") == [("no_expiry.py", "PRM401", "warning", 12, 5)]
    (found,) = api.check([FIXTURES / "no_expiry.py"], api.Settings(), jobs=1).diagnostics
    # where the write method stores an entry: `self._stores[llm_string].add_texts(...)`
    assert [(r.span.start.row, r.message) for r in found.related] == [
        (23, "`update()` stores an entry with no expiry")]


def test_a_threshold_defaulting_to_none_with_nothing_in_its_place_is_a_prm402_warning_at_the_parameter():
    found = api.check([FIXTURES / "no_threshold.py"], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in found] == [
        ("PRM402", "warning", 11, 64)]
    assert "defaults `score_threshold` to None" in found[0].message
    assert [r.span.start.row for r in found[0].related] == [17]  # `self.score_threshold or 0.0`


def test_a_constructor_ttl_that_the_write_methods_never_send_is_a_warning_at_the_parameter():
    found = api.check([FIXTURES / "unread_ttl.py"], api.Settings(), jobs=1).diagnostics
    assert [(d.severity.value, d.span.start.row, d.span.start.column) for d in found] == [("warning", 8, 38)]
    assert [r.span.start.row for r in found[0].related] == [16, 20]  # store's and astore's own `ttl`


def test_a_ttl_defaulting_to_none_and_an_expiry_reset_on_each_hit_are_info():
    assert _report("sliding.py") == [("sliding.py", "PRM401", "info", 8, 80),
                                     ("sliding.py", "PRM401", "info", 15, 13)]


def test_caches_that_expire_what_they_store_forward_to_a_base_or_match_exactly_are_not_reported():
    assert _report("clean.py") == []


def test_what_makes_a_class_a_semantic_cache():
    found = _facts(
        "class AnswerCache:\n"  # similarity threshold, read and write methods
        "    def __init__(self, score_threshold=0.2): pass\n    def lookup(self): pass\n    def update(self): pass\n"
        "class SemanticCache:\n"  # by its name
        "    def check(self): pass\n    def store(self): pass\n"
        "class EmbeddingsCache:\n"  # no similarity
        "    def get(self): pass\n    def set(self): pass\n"
        "class SemanticRouter:\n"  # no cache
        "    def __init__(self, distance_threshold=0.5): pass\n    def get(self): pass\n    def add(self): pass\n"
        "class SimilarityCacheIndex:\n"  # a cache with no write method
        "    def search(self, distance_threshold=0.5): pass\n")
    assert [c.cls.name for c in found] == ["AnswerCache", "SemanticCache"]


def test_the_ttl_facts_of_a_defined_cache():
    (cache,) = _facts(
        "class SemanticCache(Base):\n"
        "    def __init__(self, ttl=None, **kw):\n        super().__init__(ttl=ttl, **kw)\n"
        "    def check(self, key):\n        self._client.touch(key)\n"
        "    def store(self, p, ttl=None):\n        self._client.set(p, ttl_ms=ttl)\n")
    assert (cache.ttl_param.arg, cache.default_none, cache.mentions_ttl, cache.kept_unread, cache.forwards,
            cache.reads_kept_ttl, cache.fallback) == ("ttl", True, True, True, True, False, False)
    assert [(f.name, a.arg) for f, a in cache.own_ttl_writes] == [("store", "ttl")]
    assert [(f.name, c.lineno) for f, c in cache.refreshes] == [("check", 5)]
    (kept,) = _facts(
        "class SemanticCache:\n"
        "    def __init__(self, ttl=None):\n        self.t = ttl\n"
        "    def check(self, key): pass\n"
        "    def store(self, p, ttl=None):\n        self._client.set(p, ex=ttl or self.t or 60)\n")
    assert (kept.kept_unread, kept.reads_kept_ttl, kept.fallback) == (False, False, True)


def test_the_threshold_and_store_facts_of_a_defined_cache():
    (cache,) = _facts(
        "class SemanticCache:\n"
        "    def __init__(self, distance_threshold=None):\n        self.t = distance_threshold\n"
        "    def check(self, p):\n        if self.t:\n            return self.search(p, self.t)\n"
        "    def store(self, p, answer):\n        self.log()\n        row = {'p': p, 'a': answer}\n"
        "        self.db.insert(row)\n        done = 1\n")
    assert (cache.threshold_param.arg, cache.threshold_default_none, cache.threshold_fallback) == (
        "distance_threshold", True, False)
    assert [(r.lineno, r.col_offset) for r in cache.threshold_reads] == [(5, 11), (6, 34)]
    assert [(f.name, c.lineno) for f, c in cache.stores] == [("store", 10)]  # not `self.log()`
    (zero,) = _facts(
        "class SemanticCache:\n"
        "    def __init__(self, distance_threshold=None):\n        self.t = distance_threshold\n"
        "    def check(self, p):\n        return self.search(p, self.t or 0)\n"
        "    def store(self, p): pass\n")
    assert zero.threshold_fallback  # a distance of 0: exact matches only
    (score,) = _facts(
        "class SemanticCache:\n"
        "    def __init__(self, score_threshold=None):\n        self.t = score_threshold\n"
        "    def check(self, p):\n        return self.search(p, self.t or 0)\n"
        "    def store(self, p): pass\n")
    assert not score.threshold_fallback  # a score of 0 accepts anything


def test_a_threshold_left_none_and_handed_on_to_the_search_is_info_not_a_warning():
    # the class does not test the threshold itself: what the search does with None is not shown
    (cache,) = _facts(
        "class SemanticCache:\n"
        "    def __init__(self, score_threshold=None):\n        self.t = score_threshold\n"
        "    def check(self, p):\n        return self.index.search(p, min_score=self.t)\n"
        "    def store(self, p): pass\n")
    assert not cache.threshold_tested
    (tested,) = _facts(
        "class SemanticCache:\n"
        "    def __init__(self, score_threshold=None):\n        self.t = score_threshold\n"
        "    def check(self, p):\n        flt = [{'$match': self.t}] if self.t else None\n"
        "        return self.index.search(p, post=flt)\n"
        "    def store(self, p): pass\n")
    assert tested.threshold_tested


def test_the_handed_on_none_is_reported_as_info(tmp_path):
    (tmp_path / "cache.py").write_text(
        "from langchain_core.caches import BaseCache\n\n\n"
        "class NearestCache(BaseCache):\n"
        "    def __init__(self, index, ttl=3600, score_threshold=None):\n"
        "        self.index, self._ttl, self.t = index, ttl, score_threshold\n"
        "        self.t = score_threshold\n\n"
        "    def lookup(self, prompt, llm_string):\n"
        "        return self.index.search(prompt, min_score=self.t)\n\n"
        "    def update(self, prompt, llm_string, return_val):\n"
        "        self.index.add(prompt, return_val, expire=self._ttl)\n")
    found = api.check([tmp_path], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.severity.value, d.span.start.row) for d in found] == [("PRM402", "info", 5)]
    assert "handed on to the search" in found[0].message
