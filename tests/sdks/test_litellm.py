"""promptlint/python/sdks/litellm.py: `litellm.completion` / `acompletion` (however imported) and
`Router(...).completion`: OpenAI's chat shape, the provider named by the model string; and
`completion` methods of other objects."""
from __future__ import annotations

from analysis_support import code, layouts, parts, pos, sent

from promptlint.model import Kind, Volatility
from promptlint.python.prefilter import might_hold_prompt

LITELLM = """
    import litellm
    from litellm import Router, acompletion, completion

    SYSTEM = "You route support tickets."
    router = Router(model_list=[{"model_name": "fast", "litellm_params": {"model": "groq/llama-3.1-8b-instant"}}])


    def route(ticket, history, session_id):
        a = litellm.completion(
            model="anthropic/claude-3-5-sonnet-20241022",
            messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": ticket}],
            tools=[{"type": "function", "function": {"name": "assign"}}],
            prompt_cache_key=session_id,
        )
        b = completion(model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}, *history])
        c = acompletion(model="mistral/mistral-large-latest", messages=[{"role": "user", "content": ticket}])
        d = router.completion(model="fast", messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": ticket}])
        return a, b, c, d
"""


def test_completion_names_the_provider_in_the_model_string(tmp_path):
    assert might_hold_prompt(code(LITELLM))
    a = sent(layouts(tmp_path, LITELLM))[0]
    assert (a.provider, a.api, a.model) == ("anthropic", "litellm.completion", "claude-3-5-sonnet-20241022")
    assert parts(a) == [
        ("tools", [("text", '[{"type": "function", "function": {"name": "assign"}}]')]),
        ("system", [("text", "You route support tickets.")]),
        ("user", [("unknown", "per-request", "ticket")]),
    ]
    assert a.newest_user == 2
    key = a.options["prompt_cache_key"]
    assert (key.kind, key.volatility, key.expr) == (Kind.UNIQUE_ID, Volatility.PER_CONVERSATION, "session_id")
    assert key.span.start == pos(LITELLM, "session_id,")


def test_imported_functions_and_the_router(tmp_path):
    _, b, c, d = sent(layouts(tmp_path, LITELLM))
    assert (b.provider, b.api, b.model) == ("openai", "litellm.completion", "gpt-4o")  # a bare OpenAI model name
    assert parts(b) == [("system", [("text", "You route support tickets.")]),
                        ("history", [("history", "unknown", "history")])]
    assert b.newest_user is None
    assert (c.provider, c.api, c.model) == ("mistral", "litellm.acompletion", "mistral-large-latest")
    assert parts(c) == [("user", [("unknown", "per-request", "ticket")])]
    # a Router's model is a deployment alias: the provider is not known from it
    assert (d.provider, d.api, d.model) == ("litellm", "Router.completion", "fast")
    assert parts(d) == [("system", [("text", "You route support tickets.")]),
                        ("user", [("unknown", "per-request", "ticket")])]
    assert d.site.start == pos(LITELLM, "router.completion(")


def test_look_alikes_are_not_litellm_prompts(tmp_path):
    found = layouts(tmp_path, """
        import litellm


        class Helper:
            def completion(self, **kw):
                return kw


        def other(helper: Helper, client, ticket):
            helper.completion(model="gpt-4o", messages=[{"role": "user", "content": ticket}])
            client.completion(model="gpt-4o", messages=[{"role": "user", "content": ticket}])
            litellm.embedding(model="text-embedding-3-small", input=[ticket])
    """)
    assert sent(found) == []


CHECKED = """
    from litellm import acompletion


    async def chat(model: str, system: str, user: str):
        if "claude" in model and not system:
            system = "\\n"
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        return await acompletion(model=model, messages=messages)
"""


def test_a_model_tested_for_a_claude_name_is_noted(tmp_path):
    (lt,) = sent(layouts(tmp_path, CHECKED))
    assert lt.provider == "litellm" and lt.model is None
    assert lt.claude_checked is not None and lt.claude_checked.start == pos(CHECKED, '"claude" in')
    assert not lt.tree_markers


def test_no_claude_check_without_a_test_of_the_model_or_with_a_known_model(tmp_path):
    (lt,) = sent(layouts(tmp_path / "a", CHECKED.replace('"claude" in model', '"claude" in system')))
    assert lt.claude_checked is None
    (lt,) = sent(layouts(tmp_path / "b", CHECKED.replace("model=model", 'model="gpt-4.1"')))
    assert lt.claude_checked is None


RETRYING = """
    import litellm

    SYSTEM = "You decompose research questions."


    def ask(question, model, **params):
        a = litellm.completion_with_retries(model="anthropic/claude-sonnet-4-20250514",
                                            messages=[{"role": "system", "content": SYSTEM},
                                                      {"role": "user", "content": question}], num_retries=3)
        b = litellm.acompletion_with_retries(messages=[{"role": "user", "content": question}], **params)
        c = litellm.completion_with_retries(messages=[[{"role": "user", "content": question}]], model=model,
                                            original_function=litellm.batch_completion)
        return a, b, c
"""


def test_the_retrying_sends_are_completions_and_a_batch_through_them_is_not(tmp_path):
    # `completion_with_retries(**kwargs)` calls `litellm.completion(**kwargs)`; with
    # `original_function=litellm.batch_completion` its messages are a list of requests
    found = sent(layouts(tmp_path, RETRYING))
    assert [(lt.provider, lt.api, lt.model) for lt in found] == [
        ("anthropic", "litellm.completion_with_retries", "claude-sonnet-4-20250514"),
        ("litellm", "litellm.acompletion_with_retries", None)]
    assert parts(found[0]) == [("system", [("text", "You decompose research questions.")]),
                               ("user", [("user-input", "per-request", "question")])]


DEPLOYMENT_DEFAULT = """
    import litellm


    class LiteLLMClient:
        def __init__(self, model: str = "gpt-4o", completion_params=None):
            self.model = model
            self.completion_params = completion_params or dict()

        def complete(self, messages, temperature: float = 1.0):
            return litellm.completion(
                model=self.model,
                messages=[{"role": m.role, "content": m.content} for m in messages],
                temperature=temperature,
                **self.completion_params,
            )
"""


def test_a_model_defaulted_in_init_is_the_deployments_choice_not_the_only_model(tmp_path):
    # `model="gpt-4o"` is what a deployment that keeps the default sends; LiteLLM routes whatever
    # model the instance is built with, so the request's provider is not known (was openai, gpt-4o)
    [layout] = sent(layouts(tmp_path, DEPLOYMENT_DEFAULT))
    assert (layout.provider, layout.api, layout.model) == ("litellm", "litellm.completion", None)
    assert layout.other_models is False
    claude = DEPLOYMENT_DEFAULT.replace('"gpt-4o"', '"anthropic/claude-sonnet-4-5"')
    [layout] = sent(layouts(tmp_path, claude))  # a Claude default stays the model drawn
    assert (layout.provider, layout.model) == ("anthropic", "claude-sonnet-4-5")
    fixed = DEPLOYMENT_DEFAULT.replace("model=self.model,", 'model="gpt-4o",')
    [layout] = sent(layouts(tmp_path, fixed))  # a model written at the call is the only one
    assert (layout.provider, layout.model) == ("openai", "gpt-4o")


def test_an_adapter_with_a_defaulted_model_in_a_package_that_names_claude_is_info(tmp_path):
    from analysis_support import write
    from promptlint import api
    bedrock = 'class ClaudeBedrockClient:\n    def __init__(self, model="anthropic.claude-3-sonnet-20240229-v1:0"):\n' \
              '        self.model = model\n'
    write(tmp_path, {"client.py": DEPLOYMENT_DEFAULT, "bedrock.py": bedrock})
    found = [(d.code, d.severity.value, d.span.start.row) for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]
    assert found == [("PRM302", "info", 10)]
    (tmp_path / "bedrock.py").unlink()  # no Claude named in the package: nothing
    assert [d.code for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics] == []
