"""The conversation written into prompt text one message per element (`"\\n".join(str(m) for m in
history)`): the history as text, re-sent and grown every turn, so what changes before it costs the
history after it (flow/windows.py `renders_each`); a comprehension that looks data up or calls a
function for each message is something else. A message read as an object (`messages[-1].content`)
is its content (flow/core.py `_attribute`)."""
from __future__ import annotations

from analysis_support import layouts

from promptlint import api

TEMPLATE = '''
PROMPT = """
### Reference Information
{CONTEXT}

### Dialogue History
{QUERY_HISTORY}

### Current Question
{QUERY}

### Current Reply: Based on the information, please write the reply to the Question
"""


class Search(Action):
    async def run(self, context: list[Message]) -> str:
        rsp = await self.engine.search(context[-1].content)
        prompt = PROMPT.format(
            CONTEXT=rsp,
            QUERY_HISTORY=RENDERED,
            QUERY=str(context[-1]),
        )
        return await self._aask(prompt)
'''
HEAD = "from metagpt.actions import Action\nfrom metagpt.schema import Message\n"


def _source(rendered: str) -> str:
    return HEAD + TEMPLATE.replace("RENDERED", rendered)


def _filled(tmp_path, rendered: str):
    found = layouts(tmp_path, _source(rendered))
    return next((lt for lt in found if lt.site.start.row == 21), None)


def test_the_conversation_written_one_message_per_line_is_the_history(tmp_path):
    for n, rendered in enumerate(['"\\n".join([str(i) for i in context[:-1]])',
                                  '"\\n".join(f"{m.role}: {m.content}" for m in context[:-1])',
                                  '"\\n".join(m["content"] for m in context[:-1])']):
        layout = _filled(tmp_path / str(n), rendered)
        assert layout is not None, rendered
        kinds = [s.kind.value for p in layout.parts for s in p.segments if not s.is_static]
        assert "history" in kinds, rendered
        # what was fetched before it changes with the newest message: the history after it is lost
        assert kinds.index("history") > 0
    report = api.check([tmp_path / "0"], api.Settings(), jobs=1)
    found = [d for d in report.diagnostics if d.code == "PRM101" and d.span.start.row == 6]
    assert found and "the conversation history after it" in found[0].message
    # searched with the newest message read as an object (`context[-1].content`): per request
    assert found[0].severity.value == "warning" and "data fetched with `context[-1]`" in found[0].message


def test_data_looked_up_or_made_for_each_message_is_not_the_history(tmp_path):
    for n, rendered in enumerate(['"\\n".join(lookup[m.id] for m in context[:-1])',
                                  '"\\n".join(summarize(m) for m in context[:-1])',
                                  '"\\n".join(m.content for m in context[:-1] if m.role == "user")']):
        layout = _filled(tmp_path / str(n), rendered)
        kinds = [s.kind.value for p in layout.parts for s in p.segments if not s.is_static] if layout else []
        assert "history" not in kinds, rendered
