"""A coroutine function called once per element (`gather(*[f(g) for g in groups])`, `for r in
records: await f(r)`): the parameter that takes the element holds a different value on every
request (flow/per_call.py). A plain function mapped over elements (a helper that renders one line
of a larger text) and a literal element keep what they were."""
from __future__ import annotations

from analysis_support import layouts, probe

from promptlint.model import Volatility

PER_ELEMENT = '''
import asyncio


async def process(group):
    probe(group)


async def assess(record):
    probe(record.name)


def describe(tool):
    probe(tool)


async def label(kind):
    probe(kind)


async def run(groups, records, tools):
    await asyncio.gather(*[process(g) for g in groups])
    for record in records:
        await assess(record)
    lines = "\\n".join(describe(t) for t in tools)
    await asyncio.gather(*[label(k) for k in ["a", "b"]])
'''


def _volatility(found) -> list:
    return [s.volatility for s in found.segs if not s.is_static]


def test_an_element_passed_to_a_coroutine_in_a_comprehension_changes_per_request(tmp_path):
    found = probe(tmp_path, PER_ELEMENT, index=0)
    assert _volatility(found) == [Volatility.PER_REQUEST]
    assert "a different element of `groups` on each call" in found.segs[0].evidence


def test_an_element_awaited_in_a_loop_changes_per_request_and_so_do_its_fields(tmp_path):
    found = probe(tmp_path, PER_ELEMENT, index=1)
    assert _volatility(found) == [Volatility.PER_REQUEST]


def test_a_plain_function_mapped_over_elements_is_not_a_request_per_element(tmp_path):
    found = probe(tmp_path, PER_ELEMENT, index=2)
    assert Volatility.PER_REQUEST not in _volatility(found)


def test_a_literal_element_stays_one_of_the_literals(tmp_path):
    found = probe(tmp_path, PER_ELEMENT, index=3)
    assert Volatility.PER_REQUEST not in _volatility(found)


MAPPED = '''
import asyncio
from openai import AsyncOpenAI

client = AsyncOpenAI()
RULES = """{rules}"""


async def map_reports(query, groups):
    async def _process(group):
        context = "\\n".join(r["text"] for r in group)
        system_prompt = f"Reports:\\n{{context}}\\n{{RULES}}"
        return await client.chat.completions.create(
            model="gpt-4o", messages=[{{"role": "system", "content": system_prompt}}, {{"role": "user", "content": query}}])
    return await asyncio.gather(*[_process(g) for g in groups])
'''.format(rules=" ".join(["Rate each point from 0 to 100 and keep the wording of the reports."] * 30))


def test_the_request_of_a_mapped_coroutine_has_the_element_before_its_static_text(tmp_path):
    found = [lt for lt in layouts(tmp_path, MAPPED) if lt.source == "python-call"]
    assert len(found) == 1
    system = found[0].parts[0]
    dynamic = [s for s in system.segments if not s.is_static]
    assert dynamic and dynamic[0].volatility is Volatility.PER_REQUEST
    assert sum(len(s.text) for s in system.segments if s.is_static) > 1000
