"""promptlint/python/sdks/openai.py: chat completions (create / parse / stream, sync and async,
Azure) and the Responses API, each with positives and look-alikes that must not be recognised."""
from __future__ import annotations

from analysis_support import code, layouts, one_call, parts, pos, sent

from promptlint.model import Kind, Volatility
from promptlint.python.prefilter import might_hold_prompt

CHAT = """
    import uuid
    from openai import OpenAI

    client = OpenAI()

    SYSTEM = "You are a support agent for Acme. Answer briefly."
    TOOLS = [{"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object"}}}]


    def answer(question: str, history: list) -> str:
        options = {"model": "gpt-4o-mini", "temperature": 0, "prompt_cache_key": f"user-{uuid.uuid4()}"}
        response = client.chat.completions.create(
            tools=TOOLS,
            messages=[{"role": "system", "content": SYSTEM}, *history, {"role": "user", "content": question}],
            **options,
        )
        return response.choices[0].message.content
"""


def test_chat_completions_parts_in_cache_order_with_options_from_a_dict(tmp_path):
    assert might_hold_prompt(code(CHAT))
    layout = one_call(tmp_path, CHAT)
    assert (layout.provider, layout.api, layout.model) == ("openai", "chat.completions.create", "gpt-4o-mini")
    assert layout.site.start == pos(CHAT, "client.chat.completions.create(")
    assert parts(layout) == [
        ("tools", [("text", '[{"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object"}}}]')]),
        ("system", [("text", "You are a support agent for Acme. Answer briefly.")]),
        ("history", [("history", "unknown", "history")]),
        ("user", [("user-input", "per-request", "question")]),
    ]
    assert layout.newest_user == 3
    system = layout.parts[1].segments[0]
    assert system.span.start == pos(CHAT, "You are a support")  # the literal's characters, in the constant
    # `prompt_cache_key` from the `**options` dict: a uuid, placed at its key in the dict
    key = layout.options["prompt_cache_key"]
    assert (key.kind, key.volatility, key.expr) == (Kind.UNIQUE_ID, Volatility.PER_REQUEST, "uuid.uuid4()")
    assert key.span.start == pos(CHAT, '"prompt_cache_key"')


PARSE = """
    from openai import AsyncOpenAI


    async def classify(ticket):
        aclient = AsyncOpenAI()
        return await aclient.beta.chat.completions.parse(
            model="azure/gpt-4o",
            response_format={"type": "json_schema", "json_schema": {"name": "Label"}},
            messages=[{"role": "developer", "content": "Classify the ticket."}, {"role": "user", "content": ticket}],
            extra_body={"prompt_cache_key": "tickets-v1"},
        )
"""


def test_parse_on_an_async_azure_client_with_a_schema_and_extra_body(tmp_path):
    layout = one_call(tmp_path, PARSE)
    assert (layout.provider, layout.api, layout.model) == ("azure-openai", "chat.completions.parse", "gpt-4o")
    assert parts(layout) == [
        ("tools", [("text", '[{"type": "json_schema", "json_schema": {"name": "Label"}}]')]),
        ("developer", [("text", "Classify the ticket.")]),
        ("user", [("unknown", "per-request", "ticket")]),  # the newest user message: new per request
    ]
    assert layout.newest_user == 2
    key = layout.options["prompt_cache_key"]
    assert key.is_static and key.text == "tickets-v1"
    assert key.span.start == pos(PARSE, '"prompt_cache_key"')


def test_json_mode_is_a_request_option_not_a_schema_in_the_prompt(tmp_path):
    found = layouts(tmp_path, """
        from openai import OpenAI

        client = OpenAI()


        def judge(prompt, schema_mode):
            client.chat.completions.create(model="gpt-4.1", response_format={"type": "json_object"},
                                           messages=[{"role": "user", "content": prompt}])
            client.chat.completions.create(model="gpt-4.1", response_format={"type": "json_schema", "json_schema": {"name": "V"}},
                                           messages=[{"role": "user", "content": prompt}])
    """)
    by_row = {lt.site.start.row: [p.role for p in lt.parts] for lt in sent(found)}
    assert by_row == {7: ["user"], 9: ["tools", "user"]}  # JSON mode puts no text before the messages


def test_stream_of_a_conversation_grown_in_a_loop(tmp_path):
    layout = one_call(tmp_path, """
        import openai

        client = openai.OpenAI()


        def chat_loop():
            messages = [{"role": "system", "content": "You are terse."}]
            while True:
                messages.append({"role": "user", "content": input("> ")})
                with client.chat.completions.stream(model="o3-mini", messages=messages) as stream:
                    reply = stream.get_final_completion()
                messages.append({"role": "assistant", "content": reply})
    """)
    assert (layout.provider, layout.api, layout.model) == ("openai", "chat.completions.stream", "o3-mini")
    # the system message written before the loop, then the conversation the loop grows
    assert [p.role for p in layout.parts] == ["system", "history"]
    assert parts(layout)[0] == ("system", [("text", "You are terse.")])
    assert layout.parts[1].segments[0].kind is Kind.HISTORY
    assert layout.newest_user is None


def test_a_module_level_conversation_appended_to_by_the_sending_function(tmp_path):
    layout = one_call(tmp_path, """
        import openai

        client = openai.OpenAI()
        messages = [{"role": "system", "content": "You are terse."}]


        def turn(text):
            messages.append({"role": "user", "content": text})
            stream = client.chat.completions.stream(model="o3-mini", messages=messages)
            messages.append({"role": "assistant", "content": stream.get_final_completion()})
    """)
    # the system message written at import, then the conversation every call adds to
    assert [p.role for p in layout.parts] == ["system", "history"]
    assert parts(layout)[0] == ("system", [("text", "You are terse.")])
    assert layout.newest_user is None


RESPONSES = """
    from openai import OpenAI

    client = OpenAI()
    INSTRUCTIONS = "You are a careful reviewer."


    def review(diff: str, messages: list):
        first = client.responses.create(
            model="gpt-4.1",
            instructions=INSTRUCTIONS,
            tools=[{"type": "function", "name": "comment", "parameters": {}}],
            input=f"Review this diff:\\n{diff}",
            prompt_cache_key="reviews",
        )
        second = client.responses.create(model="gpt-4.1", instructions=INSTRUCTIONS, input=messages)
        third = client.responses.create(
            model="gpt-4.1",
            input=[{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": diff}],
        )
        return first, second, third
"""


def test_responses_string_input_is_the_newest_user_message(tmp_path):
    assert might_hold_prompt(code(RESPONSES))
    first, second, third = sent(layouts(tmp_path, RESPONSES))
    assert (first.provider, first.api, first.model) == ("openai", "responses.create", "gpt-4.1")
    assert parts(first) == [
        ("tools", [("text", '[{"type": "function", "name": "comment", "parameters": {}}]')]),
        ("system", [("text", "You are a careful reviewer.")]),
        ("user", [("text", "Review this diff:\n"), ("unknown", "per-request", "diff")]),
    ]
    assert first.newest_user == 2
    field = first.parts[2].segments[1]
    assert field.span.start == pos(RESPONSES, "{diff}")  # reported where it enters the text
    assert first.options["prompt_cache_key"].text == "reviews"


def test_responses_history_and_message_list_inputs(tmp_path):
    _, second, third = sent(layouts(tmp_path, RESPONSES))
    # a parameter named `messages` is the replayed conversation, not the newest message
    assert parts(second) == [("system", [("text", "You are a careful reviewer.")]),
                             ("history", [("history", "unknown", "messages")])]
    assert second.newest_user is None
    assert parts(third) == [("system", [("text", "You are a careful reviewer.")]),
                            ("user", [("unknown", "per-request", "diff")])]
    assert third.newest_user == 1
    assert third.site.start == pos(RESPONSES, "client.responses.create(", 2)


def test_look_alikes_are_not_openai_prompts(tmp_path):
    found = layouts(tmp_path, """
        import stripe
        from openai import OpenAI

        client = OpenAI()


        def other(rid, prompt_text, question):
            client.responses.create(model="gpt-4.1", previous_response_id=rid)  # no input, no instructions
            client.responses.retrieve(rid)
            client.completions.create(model="gpt-3.5-turbo-instruct", prompt=prompt_text)  # legacy, not chat
            client.chat.completions.list()
            stripe.Customer.create(email="a@example.com", description=question)
            client.chat.completions_create(messages=[{"role": "user", "content": question}])
    """)
    assert sent(found) == []


ENDPOINTS = """
    import os
    from openai import OpenAI

    pplx = OpenAI(base_url="https://api.perplexity.ai", api_key=os.environ["PPLX_KEY"])
    deepseek = OpenAI(base_url="https://api.deepseek.com/v1")
    gateway = OpenAI(base_url=os.environ["LLM_GATEWAY"])
    plain = OpenAI()


    class Router:
        def __init__(self):
            self.client = OpenAI(base_url="https://openrouter.ai/api/v1")

        def ask(self, q):
            return self.client.chat.completions.create(model="anthropic/claude-sonnet-4.5",
                                                       messages=[{"role": "user", "content": q}])


    def ask(q):
        msgs = [{"role": "user", "content": q}]
        pplx.chat.completions.create(model="sonar", messages=msgs)
        deepseek.chat.completions.create(model="deepseek-chat", messages=msgs)
        gateway.chat.completions.create(model="gpt-4.1", messages=msgs)
        plain.chat.completions.create(model="gpt-4.1", messages=msgs)
        pplx.responses.create(model="sonar", input=q)
        gateway.chat.completions.create(model="osunlp/UGround-V1-7B", messages=msgs)
        gateway.responses.create(model="Qwen/Qwen2.5-7B-Instruct", input=q)
        plain.chat.completions.create(model="Qwen/Qwen2.5-7B-Instruct", messages=msgs)
"""


def test_the_base_url_of_the_client_names_the_provider(tmp_path):
    found = {lt.site.start.row: (lt.provider, lt.model) for lt in sent(layouts(tmp_path, ENDPOINTS))}
    assert found == {
        15: ("anthropic", "claude-sonnet-4.5"),  # a router: the model's provider, by its name
        21: (None, "sonar"),  # a host of unknown caching: provider unknown, not OpenAI
        22: ("deepseek", "deepseek-chat"),
        23: ("openai", "gpt-4.1"),  # a base URL not known statically: the client's own provider
        24: ("openai", "gpt-4.1"),
        25: (None, "sonar"),
        # a base URL not known statically and a model no provider names: a server of its own (vLLM, ...)
        26: (None, "osunlp/UGround-V1-7B"),
        27: (None, "Qwen/Qwen2.5-7B-Instruct"),
        28: ("openai", "Qwen/Qwen2.5-7B-Instruct"),  # no base URL: OpenAI's API, whatever the name
    }


TRAJECTORY = """
    from openai import OpenAI

    client = OpenAI()


    class Operator:
        def __init__(self, task: str):
            self.steps = [{"role": "user", "content": task}]

        def convert(self, steps):
            out = []
            for step in steps:
                out.append({"role": step["role"], "content": step["content"]})
            return out

        def step(self, summary: bool):
            items = self.convert(self.steps)
            if summary:
                items = [*items, {"role": "user", "content": "Summarise."}]
            return client.responses.create(model="gpt-4.1", instructions="Operate the browser.", input=items,
                                           truncation="auto")

        def ask(self, question: str):
            return client.responses.create(model="gpt-4.1", input=[{"role": "user", "content": question}],
                                           truncation="auto")
"""


def test_truncation_auto_is_no_window_it_drops_items_only_from_a_request_that_would_overflow(tmp_path):
    # `truncation="auto"` cuts only a request larger than the model's context window (which the
    # default, "disabled", rejects with an error): below it the input is sent as it is
    step, ask = sent(layouts(tmp_path, TRAJECTORY))
    assert not any(s.window for lt in (step, ask) for p in lt.parts for s in p.segments)


BUILT_CLIENTS = """
    from openai import OpenAI


    class Compatible:
        def __init__(self, api_key: str, base_url: str):
            self.api_key = api_key
            self.base_url = {url}

        def generate(self, prompt: str) -> str:
            client = self._build_client(OpenAI)
            return client.chat.completions.create(model="m", messages=[{{"role": "user", "content": prompt}}])

        def _build_client(self, cls):
            kw = dict(api_key=self.api_key, base_url=self.base_url)
            return cls(**kw)
"""


def test_a_client_built_from_a_class_it_is_given_sends_to_the_base_url_of_its_class(tmp_path):
    def provider(url: str, where: str) -> str | None:
        (one,) = sent(layouts(tmp_path / where, BUILT_CLIENTS.format(url=url)))
        return one.provider
    assert provider('"https://api.deepseek.com"', "a") == "deepseek"
    assert provider('"https://api.moonshot.cn/v1"', "b") is None  # a host of unknown caching: not OpenAI's
    assert provider("base_url", "c") == "openai"  # not known statically: the client's own provider


ASSISTANTS_RUN = """
    from datetime import datetime

    from openai import OpenAI

    client = OpenAI()


    def run(thread_id, assistant_id):
        return client.beta.threads.runs.create(
            thread_id=thread_id, assistant_id=assistant_id,
            additional_instructions=f"The time is {datetime.now():%H:%M}.")


    def run_plain(thread_id, assistant_id):
        return client.beta.threads.runs.create_and_poll(
            thread_id=thread_id, assistant_id=assistant_id, additional_instructions="Answer briefly.")


    def run_bare(thread_id, assistant_id):
        return client.beta.threads.runs.create(thread_id=thread_id, assistant_id=assistant_id)
"""


def test_an_assistants_run_sends_its_additional_instructions_before_the_thread(tmp_path):
    # the run's additional instructions are appended to the assistant's stored ones, before the
    # thread's messages; a run that passes no instructions draws nothing the code writes
    found = sent(layouts(tmp_path, ASSISTANTS_RUN))
    assert [(lt.api, parts(lt)) for lt in found] == [
        ("beta.threads.runs.create", [
            ("system", [("text", "The time is "), ("timestamp", "per-request", "datetime.now()"), ("text", ".")]),
            ("history", [("history", "unknown", "the messages of thread `thread_id`")])]),
        ("beta.threads.runs.create", [
            ("system", [("text", "Answer briefly.")]),
            ("history", [("history", "unknown", "the messages of thread `thread_id`")])]),
    ]


def test_a_clock_in_an_assistants_runs_additional_instructions_is_a_warning(tmp_path):
    from promptlint import api
    (tmp_path / "app.py").write_text(code(ASSISTANTS_RUN), encoding="utf-8")
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics
            if d.code.startswith("PRM1")] == [("PRM102", "warning", 11)]


CHOSEN_CLIENTS = """
    from openai import OpenAI


    def ask(q, key, via_router: bool, plain: bool):
        if via_router:
            client = OpenAI(api_key=key, base_url="https://openrouter.ai/api/v1")
        else:
            client = OpenAI(api_key=key, base_url={other})
        return client.chat.completions.create(model="m", messages=[{{"role": "user", "content": q}}])
"""


def test_one_client_or_another_by_a_condition_sends_to_one_provider_only_when_both_name_it(tmp_path):
    def provider(other: str, where: str) -> str | None:
        (one,) = sent(layouts(tmp_path / where, CHOSEN_CLIENTS.format(other=other)))
        return one.provider
    assert provider('"https://api.perplexity.ai"', "a") is None  # two hosts of unknown caching, not OpenAI's
    assert provider('"https://api.openai.com/v1"', "b") is None  # OpenAI or a router: not known to be OpenAI's
    assert provider('"https://api.deepseek.com"', "c") is None


def test_one_of_two_clients_of_the_same_provider_is_that_provider(tmp_path):
    source = CHOSEN_CLIENTS.format(other='"https://api.deepseek.com/v1"').replace("https://openrouter.ai/api/v1",
                                                                                  "https://api.deepseek.com")
    (one,) = sent(layouts(tmp_path, source))
    assert one.provider == "deepseek"


OTHER_SDKS = """
    import httpx
    import zai
    from perplexity import AsyncPerplexity, Perplexity
    from langfuse.openai import OpenAI as TracedOpenAI
    from openai import OpenAI


    class ZaiModel:
        def __init__(self, **kwargs):
            self._client: zai.ZaiClient | None = None
            self._kwargs = kwargs

        def _get_client(self) -> zai.ZaiClient:
            if self._client is None:
                self._client = zai.ZaiClient(**self._kwargs)
            return self._client

        def ask(self, q):
            return self._get_client().chat.completions.create(model="glm-4.6",
                                                              messages=[{"role": "user", "content": q}])


    def search(q):
        client = Perplexity(api_key="k")
        client.chat.completions.create(model="sonar", messages=[{"role": "user", "content": q}])


    async def asearch(q, **kwargs):
        async with httpx.AsyncClient() as http:
            sdk = AsyncPerplexity(api_key="k", http_client=http)
            return await sdk.chat.completions.create(model="sonar", messages=[{"role": "user", "content": q}])


    def traced(q):
        TracedOpenAI().chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": q}])
        OpenAI().chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": q}])
"""


def test_a_client_of_another_providers_sdk_with_the_same_method_names_is_not_openai(tmp_path):
    # `Perplexity(...)`, `zai.ZaiClient(...)`: SDKs of other providers whose clients copy OpenAI's
    # `chat.completions.create`: their caching is not OpenAI's, so the provider is unknown; a
    # drop-in OpenAI client of a tracing library (`langfuse.openai`) and OpenAI's own stay OpenAI
    found = {lt.site.start.row: (lt.provider, lt.model) for lt in sent(layouts(tmp_path, OTHER_SDKS))}
    assert found == {
        19: (None, "glm-4.6"),
        25: (None, "sonar"),
        31: (None, "sonar"),
        35: ("openai", "gpt-4.1"),
        36: ("openai", "gpt-4.1"),
    }


WRAPPED_CLIENTS = """
    def ask(q, Model):
        import instructor
        from openai import OpenAI
        from tracing import Traced
        client = instructor.from_openai(OpenAI())
        client.chat.completions.create(model="gpt-4.1", response_model=Model, messages=[{"role": "user", "content": q}])
        Traced(OpenAI()).chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": q}])
"""


def test_what_a_library_makes_of_an_openai_client_stays_openai(tmp_path):
    # a library's function (`instructor.from_openai`) or class (`Traced(OpenAI())`) given an OpenAI
    # client: a wrapper of it, still OpenAI's API, not another provider's SDK
    found = {lt.site.start.row: lt.provider for lt in sent(layouts(tmp_path, WRAPPED_CLIENTS))}
    assert found == {6: "openai", 7: "openai"}


ROUTED = """
    from openai import OpenAI

    SYSTEM = "You are a careful assistant who answers with sources. " * 200


    class RoutedLLM:
        \"\"\"A model of the router, chosen by the caller: `RoutedLLM("{example}")`.\"\"\"

        def __init__(self, model: str):
            self.model = model
            self.client = OpenAI(base_url="https://openrouter.ai/api/v1")

        def complete(self, history: list, prompt: str) -> str:
            messages = [{{"role": "system", "content": SYSTEM}}, *history, {{"role": "user", "content": prompt}}]
            return self.client.chat.completions.create(model=self.model, messages=messages)
"""


def test_openrouter_is_a_gateway_whose_model_names_the_provider_behind_it(tmp_path):
    # OpenRouter routes `provider/model` names: a request's provider is the gateway, the caching the
    # model's provider gives (a Claude model: only up to a breakpoint)
    (one,) = sent(layouts(tmp_path, ROUTED.format(example="openai/gpt-4.1")))
    assert (one.provider, one.model) == ("openrouter", None)


def test_an_openrouter_adapter_of_a_package_that_names_claude_models_is_info_without_a_breakpoint(tmp_path):
    from promptlint import api

    def findings(where: str, example: str) -> list:
        folder = tmp_path / where
        folder.mkdir()
        (folder / "routed.py").write_text(code(ROUTED.format(example=example)), encoding="utf-8")
        report = api.check([folder], api.Settings(), jobs=1)
        return [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]
    assert findings("claude", "anthropic/claude-sonnet-4") == [("PRM302", "info", 15)]
    assert findings("gpt", "openai/gpt-4.1") == []  # no Claude model named anywhere: OpenAI's automatic caching
