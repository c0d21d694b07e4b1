"""promptlint/python/sdks/anthropic.py: `messages.create` / `messages.stream` (also `beta.` and
the Bedrock client): tools, system blocks with cache breakpoints, messages, the top-level automatic
breakpoint; and calls of the same names that send no Anthropic prompt."""
from __future__ import annotations

from analysis_support import code, layouts, one_call, parts, pos, sent

from promptlint.model import Kind

from promptlint.python.prefilter import might_hold_prompt

MESSAGES = """
    import anthropic

    client = anthropic.Anthropic()
    GUIDE = "You are a claims assistant. Follow the policy below."


    def ask(question, history, topic):
        return client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=1024,
            tools=[{"name": "search", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}],
            system=[
                {"type": "text", "text": GUIDE, "cache_control": {"type": "ephemeral", "ttl": "1h"}},
                {"type": "text", "text": f"Topic: {topic}"},
            ],
            messages=[*history, {"role": "user", "content": question}],
        )
"""


def test_messages_tools_system_blocks_breakpoints_history_and_newest_message(tmp_path):
    assert might_hold_prompt(code(MESSAGES))
    layout = one_call(tmp_path, MESSAGES)
    assert (layout.provider, layout.api, layout.model) == ("anthropic", "messages.create", "claude-sonnet-4-5")
    assert parts(layout) == [
        ("tools", [("text", '[{"name": "search", "input_schema": {"type": "object"}, '
                            '"cache_control": {"type": "ephemeral"}}]')]),
        ("system", [("text", "You are a claims assistant. Follow the policy below."),
                    ("text", "Topic: "), ("unknown", "unknown", "topic")]),
        ("history", [("history", "unknown", "history")]),
        ("user", [("user-input", "per-request", "question")]),
    ]
    assert layout.newest_user == 3
    assert layout.auto_cache is None
    tools_bp, = layout.parts[0].breakpoints
    assert (tools_bp.after, tools_bp.span.start) == (0, pos(MESSAGES, '"cache_control"'))
    system_bp, = layout.parts[1].breakpoints
    # after the first block's text, with the TTL written on it
    assert (system_bp.after, system_bp.ttl) == (0, "1h")
    assert system_bp.span.start == pos(MESSAGES, '"cache_control"', 1)
    topic = layout.parts[1].segments[2]
    assert topic.span.start == pos(MESSAGES, "{topic}")


BEDROCK = """
    import anthropic


    def brief(question):
        client = anthropic.AnthropicBedrock()
        with client.beta.messages.stream(
            model="us.anthropic.claude-3-5-haiku-20241022-v1:0",
            system="Be brief.",
            cache_control={"type": "ephemeral"},
            messages=[{"role": "user", "content": question}],
        ) as stream:
            return stream.get_final_text()
"""


def test_beta_stream_on_bedrock_with_the_top_level_automatic_breakpoint(tmp_path):
    layout = one_call(tmp_path, BEDROCK)
    assert (layout.provider, layout.api) == ("bedrock", "beta.messages.stream")
    assert layout.model == "us.anthropic.claude-3-5-haiku-20241022-v1:0"
    assert parts(layout) == [("system", [("text", "Be brief.")]),
                             ("user", [("user-input", "per-request", "question")])]
    assert layout.newest_user == 1
    assert layout.auto_cache.start == pos(BEDROCK, '{"type": "ephemeral"}')


OPTIONS = """
    from anthropic import AsyncAnthropic

    client = AsyncAnthropic()
    REQUEST = {"model": "claude-3-5-haiku-latest", "max_tokens": 200, "system": "Summarise the text."}


    async def summarise(document):
        return await client.messages.create(**REQUEST, messages=[{"role": "user", "content": document}])
"""


def test_system_from_an_options_dict(tmp_path):
    layout = one_call(tmp_path, OPTIONS)
    assert (layout.provider, layout.api, layout.model) == ("anthropic", "messages.create", "claude-3-5-haiku-latest")
    assert parts(layout) == [("system", [("text", "Summarise the text.")]),
                             ("user", [("unknown", "per-request", "document")])]
    assert layout.parts[0].segments[0].span.start == pos(OPTIONS, "Summarise")


def test_look_alikes_are_not_anthropic_prompts(tmp_path):
    found = layouts(tmp_path, """
        import anthropic
        from openai import OpenAI

        client = anthropic.Anthropic()
        assistants = OpenAI()


        def other(thread_id, body):
            assistants.beta.threads.messages.create(thread_id, role="user", content=body)  # OpenAI Assistants
            client.messages.count_tokens(model="claude-sonnet-4-5", messages=[{"role": "user", "content": body}])
            client.messages.batches.create(requests=[])
            client.messages.create  # not called
    """)
    assert sent(found) == []


def test_a_tool_list_chosen_by_a_condition_counts_each_cache_marker_once(tmp_path):
    source = """
        import anthropic

        client = anthropic.Anthropic()
        SEARCH = {"name": "search", "description": "Search.", "input_schema": {"type": "object"},
                  "cache_control": {"type": "ephemeral"}}
        DONE = {"name": "done", "description": "Finish.", "input_schema": {"type": "object"}}


        def step(messages, last):
            tools = [SEARCH, DONE] if last else [SEARCH]
            return client.messages.create(model="claude-sonnet-4-5", max_tokens=256, tools=tools, messages=messages)
    """
    layout, = sent(layouts(tmp_path, source))
    tools, = [p for p in layout.parts if p.role == "tools"]
    assert len(tools.breakpoints) == 1
    assert any(s.kind is Kind.CONDITIONAL for s in tools.segments)


def test_messages_parse_is_a_request_with_structured_output(tmp_path):
    """`messages.parse(..., output_format=Schema)` sends its system prompt and messages as
    `create` does; `openai`'s `chat.completions.parse` is no Anthropic call."""
    source = """
        import anthropic
        from openai import OpenAI

        client = anthropic.Anthropic()
        other = OpenAI()


        def extract(page, schema):
            client.messages.parse(model="claude-sonnet-4-5", max_tokens=512, system="Extract the tables.",
                                  messages=[{"role": "user", "content": page}], output_format=schema)
            other.chat.completions.parse(model="gpt-4o", messages=[{"role": "user", "content": page}],
                                         response_format=schema)
    """
    assert might_hold_prompt(code(source))
    found = sent(layouts(tmp_path, source))
    assert [(lt.provider, lt.api) for lt in found] == [("anthropic", "messages.parse"),
                                                      ("openai", "chat.completions.parse")]
    assert parts(found[0]) == [("system", [("text", "Extract the tables.")]),
                               ("user", [("unknown", "per-request", "page")])]


THROUGH_A_PROPERTY = """
    from anthropic import AsyncAnthropic


    class Engine:
        def __init__(self):
            self.client = AsyncAnthropic()

        @property
        def _api(self):
            return self.client.messages

        @property
        def name(self):
            return self.label

        async def predict(self, messages: list[dict]):
            reply = await self._api.create(model="claude-sonnet-4-5", max_tokens=512, messages=messages)
            await self.name.create(messages=messages)
            return reply
"""


def test_a_request_through_a_property_that_returns_the_messages_resource_is_a_send_site(tmp_path):
    # `self._api.create` reads as `self.client.messages.create`; `self.name` returns no resource
    lay = one_call(tmp_path, THROUGH_A_PROPERTY)
    assert (lay.provider, lay.api, lay.site.start.row) == ("anthropic", "messages.create", 17)
    assert [p.role for p in lay.parts] == ["history"]
