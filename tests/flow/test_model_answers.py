"""A model's answer to a request that carries the user's message is data fetched with it (the
message inside the list of messages counts as an input of the call), and it stays so through a
map step: a record a helper returns in each branch (`SearchResult(response=parsed)`), the list
`asyncio.gather` gives of them, the attribute of an element of that list, and `json.loads` of the
answer (data parsed from text known to change is not configuration)."""
from __future__ import annotations

from analysis_support import probe

MAP_REDUCE = '''
import asyncio
import json
from dataclasses import dataclass
from typing import Any


@dataclass
class SearchResult:
    response: str | list[dict[str, Any]]
    context_data: str


class GlobalSearch:
    def __init__(self, client):
        self.client = client

    async def search(self, query: str, chunks: list[str]):
        map_responses = await asyncio.gather(*[self._map(context_data=data, query=query) for data in chunks])
        return await self._reduce(map_responses=map_responses, query=query)

    async def _map(self, context_data: str, query: str) -> SearchResult:
        try:
            r = await self.client.complete(messages=[{"role": "system", "content": context_data},
                                                     {"role": "user", "content": query}])
            processed = self._parse(r.content)
            return SearchResult(response=processed, context_data=context_data)
        except ValueError:
            return SearchResult(response=[{"answer": "", "score": 0}], context_data=context_data)

    def _parse(self, text: str) -> list[dict[str, Any]]:
        probe(text)
        probe(json.loads(text))
        elements = json.loads(text).get("points")
        return [{"answer": e["description"], "score": int(e["score"])} for e in elements]

    async def _reduce(self, map_responses: list[SearchResult], query: str):
        data = []
        for index, response in enumerate(map_responses):
            probe(response.response)
            for element in response.response:
                data.append(f"Analyst {index}: {element['answer']}")
        probe("\\n".join(data))
'''


def test_the_answer_to_a_request_carrying_the_users_message_is_fetched_with_it(tmp_path):
    assert probe(tmp_path, MAP_REDUCE).described[0][:2] == ("user-input", "per-request")


def test_json_parsed_from_a_changing_answer_is_not_configuration(tmp_path):
    assert probe(tmp_path, MAP_REDUCE, index=1).described[0][:2] == ("user-input", "per-request")


def test_the_field_of_an_element_of_a_list_of_records_is_what_each_was_built_with(tmp_path):
    assert probe(tmp_path, MAP_REDUCE, index=2).described[0][:2] == ("user-input", "per-request")
    joined = probe(tmp_path, MAP_REDUCE, index=3)
    assert ("user-input", "per-request") in [d[:2] for d in joined.described]


CONFIG = '''
import json


def settings(raw: str):
    probe(json.loads(raw))
    probe(json.loads('{"a": 1}'))
'''


def test_json_of_text_of_unknown_volatility_stays_a_stable_setting(tmp_path):
    assert probe(tmp_path, CONFIG).described[0][:2] == ("unknown", "stable")


MESSAGES = '''
def answer(client, question: str, notes):
    r = client.complete(messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": question}])
    probe(r.text)
    s = client.complete(messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": notes}])
    probe(s.text)
'''


def test_a_call_given_a_message_list_holding_the_users_message_fetches_with_it(tmp_path):
    assert probe(tmp_path, MESSAGES).described[0][:2] == ("user-input", "per-request")
    assert probe(tmp_path, MESSAGES, index=1).described[0][:2] == ("unknown", "unknown")
