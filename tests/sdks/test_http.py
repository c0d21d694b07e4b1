"""promptlint/python/sdks/http.py: chat requests posted with an HTTP client (`requests`, `httpx`,
`aiohttp`): the body read as an OpenAI-compatible chat completion or, on Anthropic's Messages URL,
as a Messages API request; posts whose body is no chat request are not prompts."""
from __future__ import annotations

from analysis_support import code, layouts, parts, sent

from promptlint.python.prefilter import might_hold_prompt

POSTED = """
    import datetime
    import json

    import httpx
    import requests

    SYSTEM = "You are the support assistant of Acme. Answer from the manual."


    class Sarvam:
        def __init__(self, base_url):
            self.base_url = base_url

        def generate(self, messages):
            url = f"{self.base_url}/chat/completions"
            now = datetime.datetime.now().isoformat()
            params = {"model": "gpt-4o-mini", "messages": [{"role": "system", "content": f"{now} {SYSTEM}"}, *messages]}
            return requests.post(url, headers={"x": "y"}, json=params, timeout=30).json()


    async def claude(question, history):
        body = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": SYSTEM,
                "messages": [*history, {"role": "user", "content": question}]}
        async with httpx.AsyncClient() as client:
            return await client.post("https://api.anthropic.com/v1/messages", content=json.dumps(body))


    def local(question):
        return requests.post("http://localhost:8000/v1/chat/completions",
                             json={"model": "my-finetune", "messages": [{"role": "user", "content": question}]})
"""


def test_a_chat_body_posted_to_an_openai_compatible_url(tmp_path):
    assert might_hold_prompt(code(POSTED))
    found = sent(layouts(tmp_path, POSTED))
    assert [(f.provider, f.api, f.model) for f in found] == [
        ("openai", "http.post (chat.completions.create)", "gpt-4o-mini"),
        ("anthropic", "http.post (messages.create)", "claude-sonnet-4-5"),
        (None, "http.post (chat.completions.create)", "my-finetune")]
    assert parts(found[0])[0] == ("system", [("timestamp", "per-request", "datetime.datetime.now().isoformat()"),
                                             ("text", " "),
                                             ("text", "You are the support assistant of Acme. Answer from the manual.")])
    assert [p.role for p in found[0].parts] == ["system", "history"]


def test_a_messages_body_posted_to_anthropic_keeps_its_system_and_history(tmp_path):
    claude = sent(layouts(tmp_path, POSTED))[1]
    assert [p.role for p in claude.parts] == ["system", "history", "user"]
    assert claude.newest_user == 2


def test_posts_that_are_not_chat_requests(tmp_path):
    source = """
        import requests

        def search(q, url):
            requests.post(url, json={"query": q, "top_k": 5})  # a search API
            requests.post(url, data={"messages": "form field"})  # a form, not a JSON body
            requests.post(url)  # no body
            return requests.get(url, params={"messages": q})
    """
    assert layouts(tmp_path, source) == []


def test_anthropics_openai_compatible_url_takes_the_chat_body(tmp_path):
    found = sent(layouts(tmp_path, """
        import requests

        def ask(question):
            return requests.post("https://api.anthropic.com/v1/chat/completions",
                                 json={"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": question}]})
    """))
    assert [(f.provider, f.api) for f in found] == [("anthropic", "http.post (chat.completions.create)")]


REQUESTED = """
    import requests

    def ask(query):
        payload = {"model": "sonar-pro",
                   "messages": [{"role": "system", "content": "Be precise and concise."},
                                {"role": "user", "content": query}]}
        return requests.request("POST", "https://api.perplexity.ai/chat/completions", json=payload)

    def fetch(url):
        return requests.request("GET", url, json={"messages": []})
"""


def test_a_chat_body_sent_with_request_post_is_read_and_a_get_is_not(tmp_path):
    assert might_hold_prompt(code(REQUESTED))
    found = sent(layouts(tmp_path, REQUESTED))
    assert [(f.api, f.model, f.site.start.row) for f in found] == [
        ("http.post (chat.completions.create)", "sonar-pro", 7)]
    assert [p.role for p in found[0].parts] == ["system", "user"]
