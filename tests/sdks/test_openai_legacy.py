"""promptlint/python/sdks/openai_legacy.py: the OpenAI SDK before 1.0 (`openai.ChatCompletion.create`,
`openai.Completion.create`, their `acreate`); its endpoint set on the module; look-alikes."""
from __future__ import annotations

from analysis_support import code, layouts, parts, pos, sent

from promptlint.python.prefilter import might_hold_prompt

LEGACY = """
    import openai

    FUNCTIONS = [{"name": "get_weather", "parameters": {"type": "object"}}]


    def ask(question, history):
        return openai.ChatCompletion.create(
            model="gpt-3.5-turbo",
            functions=FUNCTIONS,
            messages=[{"role": "system", "content": "You are a weather bot."}, *history,
                      {"role": "user", "content": question}],
        )


    async def ask_async(question):
        return await openai.ChatCompletion.acreate(model="gpt-4", messages=[{"role": "user", "content": question}])


    def summarise(text):
        return openai.Completion.create(model="text-davinci-003", prompt=f"Summarise this text:\\n{text}")
"""


def test_chat_completion_functions_system_history_and_newest_message(tmp_path):
    assert might_hold_prompt(code(LEGACY))
    a = sent(layouts(tmp_path, LEGACY))[0]
    assert (a.provider, a.api, a.model) == ("openai", "ChatCompletion.create", "gpt-3.5-turbo")
    assert parts(a) == [
        ("tools", [("text", '[{"name": "get_weather", "parameters": {"type": "object"}}]')]),
        ("system", [("text", "You are a weather bot.")]),
        ("history", [("history", "unknown", "history")]),
        ("user", [("user-input", "per-request", "question")]),
    ]
    assert a.newest_user == 3
    assert a.site.start == pos(LEGACY, "openai.ChatCompletion.create(")


def test_acreate_and_the_completion_prompt(tmp_path):
    _, b, c = sent(layouts(tmp_path, LEGACY))
    assert (b.provider, b.api, b.model) == ("openai", "ChatCompletion.acreate", "gpt-4")
    assert parts(b) == [("user", [("user-input", "per-request", "question")])]
    assert (c.provider, c.api, c.model) == ("openai", "Completion.create", "text-davinci-003")
    assert [p.role for p in c.parts] == ["user"]
    assert c.parts[0].segments[0].text == "Summarise this text:\n"
    assert c.newest_user == 0


def test_the_imported_resource_and_an_azure_engine(tmp_path):
    found = sent(layouts(tmp_path, """
        import openai
        from openai import ChatCompletion

        openai.api_type = "azure"


        def ask(question):
            return ChatCompletion.create(engine="my-deployment", messages=[{"role": "user", "content": question}])
    """))
    assert [(f.provider, f.api, f.model) for f in found] == [("azure-openai", "ChatCompletion.create", "my-deployment")]


def test_a_module_base_url_names_the_provider(tmp_path):
    local = sent(layouts(tmp_path, """
        import openai

        openai.api_base = "http://localhost:8000/v1"


        def ask(question):
            return openai.ChatCompletion.create(model="llama-3", messages=[{"role": "user", "content": question}])
    """))
    assert [(f.provider, f.model) for f in local] == [(None, "llama-3")]  # a local server: its caching unknown
    deepseek = sent(layouts(tmp_path, """
        import openai

        openai.api_base = "https://api.deepseek.com/v1"


        def ask(question):
            return openai.ChatCompletion.create(model="deepseek-chat", messages=[{"role": "user", "content": question}])
    """, name="other.py"))
    assert [(f.provider, f.model) for f in deepseek] == [("deepseek", "deepseek-chat")]


def test_look_alikes_are_not_legacy_openai_prompts(tmp_path):
    found = layouts(tmp_path, """
        import openai


        def other(question, doc, records):
            openai.ChatCompletion.create(model="gpt-4")  # no messages
            openai.Completion.create(model="text-davinci-003")  # no prompt
            openai.Embedding.create(model="text-embedding-ada-002", input=[doc])
            openai.Image.create(prompt=question)
            records.ChatCompletionLog.create(messages=[{"role": "user", "content": question}])
    """)
    assert sent(found) == []
