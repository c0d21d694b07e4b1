"""What the awaitables of `asyncio.gather(...)` give, in the order they are passed; an element of
a list of texts grown in a comprehension is one of its items; `typing.cast(T, x)` is `x`."""
from __future__ import annotations

from analysis_support import probe

from promptlint.model import Kind, Volatility

GATHER = '''
import asyncio
from typing import cast

from openai import AsyncOpenAI

client = AsyncOpenAI()


async def map_one(query, group):
    r = await client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": query + group}])
    return r.choices[0].message.content


async def answer(query: str, groups):
    responses = await asyncio.gather(*[map_one(query, g) for g in groups])
    lines = []
    for i, resp in enumerate(responses):
        lines.append(f"Analyst {i}: {resp}")
    probe("\\n".join(lines))
    first, second = await asyncio.gather(map_one(query, "a"), asyncio.sleep(1))
    probe(first)
    probe(cast(str, first))
    done = await asyncio.gather(*groups)
    probe(done)
'''


def test_what_gather_gives_is_each_awaited_result_in_order(tmp_path):
    found = probe(tmp_path, GATHER)
    src = [s for s in found.segs if not s.is_static]
    assert src and all(s.kind is Kind.USER_INPUT and s.volatility is Volatility.PER_REQUEST for s in src)
    assert "data fetched with" in src[0].evidence


def test_gather_by_position_and_cast(tmp_path):
    assert probe(tmp_path, GATHER, index=1).described[0][:2] == ("user-input", "per-request")
    assert probe(tmp_path, GATHER, index=2).described[0][:2] == ("user-input", "per-request")


def test_gather_of_a_spread_it_cannot_read_is_unknown(tmp_path):
    assert probe(tmp_path, GATHER, index=3).described[0][:2] == ("unknown", "unknown")


ELEMENTS = '''
def summarise(query, docs):
    notes = [store.lookup(query, d) for d in docs]
    for n in notes:
        probe(n)
    names = [d.name for d in docs]
    for n in names:
        probe(n)
'''


def test_an_element_of_a_list_of_texts_grown_in_a_comprehension_is_its_item(tmp_path):
    assert probe(tmp_path, ELEMENTS).described[0][:2] == ("user-input", "per-request")
    assert probe(tmp_path, ELEMENTS, index=1).described[0][:2] == ("unknown", "unknown")


CAST = '''
from typing import cast

RULES = "Answer in English."


def build(x):
    probe(cast(str, RULES) + " Be brief.")
'''


def test_cast_is_its_value(tmp_path):
    assert probe(tmp_path, CAST).text == "Answer in English. Be brief."
