"""PRM305 facts: Gemini context caches made on the request path (python/context_caches.py;
fixtures/context_caches/)."""
import ast
import textwrap
from pathlib import Path

from promptlint import api
from promptlint.python.context_caches import context_caches, might_create
from promptlint.python.module import load

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "context_caches"


def _found(src: str) -> list[tuple[str, str, str | None, bool, bool]]:
    module = load(Path("caches.py"), textwrap.dedent(src))
    return [(ast.unparse(c.call), c.function, c.cut, c.updated, c.every_call) for c in context_caches(module)]


def test_a_cache_made_where_the_request_names_it_is_found_with_the_cut_it_holds():
    assert _found("""
        async def _create_cache(client, key, model, config, prefix, ttl):
            return await client.aio.caches.create(model=model, config=types.CreateCachedContentConfig(
                contents=cast("types.ContentListUnion", prefix) if prefix else None, ttl=f"{ttl}s"))

        async def prepare(client, converted):
            contents = converted["contents"]
            length = len(contents) - 1
            prefix = contents[:length]
            entry = await create_once(key, lambda: _create_cache(client, key, model, config, prefix, ttl))
            return {**converted, "config": config.model_copy(update={"cached_content": entry.name}),
                    "contents": contents[length:]}

        class Adapter:
            def _make(self, documents):
                return self.client.caches.create(model=self.model, config=CreateCachedContentConfig(contents=documents))

            def request(self, documents, question):
                cache = self._make(documents)
                return self.client.models.generate_content(model=self.model, contents=question,
                                                           config=GenerateContentConfig(cached_content=cache.name))
    """) == [("_create_cache(client, key, model, config, prefix, ttl)", "prepare", "contents[:length]", False, False),
             ("self._make(documents)", "request", None, False, True)]


def test_a_cache_made_apart_from_the_request_is_not():
    assert _found("""
        def create_cache(client, model, contents):
            return client.caches.create(model=model, config=CreateCachedContentConfig(contents=contents))

        def ask(client, model, name, question):
            return client.models.generate_content(model=model, contents=question,
                                                  config=GenerateContentConfig(cached_content=name))
    """) == []


def test_the_rule_reports_a_moving_cut_at_info_and_a_kept_alive_cache_of_fixed_contents_not_at_all():
    report = api.check([FIXTURES], api.Settings(), jobs=1)
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in report.diagnostics
             if d.code == "PRM305"]
    assert found == [("adapter.py", "PRM305", "info", 16)]
    message = next(d.message for d in report.diagnostics if d.code == "PRM305")
    assert "(`contents[:length]`)" in message and "every request makes a new one" in message


def test_the_text_test_needs_a_cache_made_and_one_named():
    assert might_create("client.caches.create(...); config.cached_content = name")
    assert not might_create("client.caches.create(...)")
