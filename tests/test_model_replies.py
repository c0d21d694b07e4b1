"""A model's reply is model output, not the random pick that chose the client or the model.

The reply of a request sent with a client, a chat model or a model object picked at random
(`random.choice(clients).chat.completions.create(...)`, `random.choice(llms).invoke(...)`), and
any item read out of it (`.choices[0].message.content`, `.content`, `.text`), is content of
unknown volatility (at most PRM101's info before the history), never PRM103's random value. The
same holds for a response a wrapper returns among many variants, one of them a dict that keeps
the random pick beside the response (`{**response, "picked": random.choice(pool)}`): an item read
from it by key, or a method of a response object called on it (`.json()`), is the response's, not
the pick. A random value written into the prompt text itself stays PRM103.
"""
from __future__ import annotations

from analysis_support import write

from promptlint import api

CLUB = "You help the members of the Millbrook rowing club with bookings, crews and river conditions."


def _found(root, files: dict[str, str]):
    write(root, files)
    report = api.check([root], api.Settings(), jobs=1)
    return sorted((d.span.filename.rsplit("/", 1)[-1], d.span.start.row, d.code, d.severity.value)
                  for d in report.diagnostics if d.code in ("PRM101", "PRM103"))


# ---------------------------------------------------------------------------- passing: no PRM103
def test_the_reply_of_a_client_picked_at_random_is_not_random(tmp_path):
    files = {"desk.py": f'''
import random

from openai import OpenAI

MIRRORS = [OpenAI(base_url="http://north.internal/v1"), OpenAI(base_url="http://south.internal/v1")]


def weekly_notes() -> str:
    client = random.choice(MIRRORS)
    resp = client.chat.completions.create(model="gpt-4.1", messages=[{{"role": "user", "content": "List this week's outings."}}])
    return resp.choices[0].message.content


def answer(turns: list):
    notes = weekly_notes()
    system = {{"role": "system", "content": f"{CLUB}\\nThis week: {{notes}}"}}
    return MIRRORS[0].chat.completions.create(model="gpt-4.1", messages=[system, *turns])
'''}
    assert _found(tmp_path, files) == [("desk.py", 16, "PRM101", "info")]


def test_the_reply_of_a_model_object_picked_two_calls_up_is_not_random(tmp_path):
    # the pick is made by a helper, the request by another: `.generate(...)` then `.text`
    files = {"crew.py": f'''
import random


def pick(engines: list):
    return random.choice(engines)


def draft(engines: list) -> str:
    engine = pick(engines)
    out = engine.generate(prompt="Write three lines on the regatta.")
    return out.text


def answer(engines: list, client, turns: list):
    blurb = draft(engines)
    system = {{"role": "system", "content": f"{CLUB}\\nRegatta: {{blurb}}"}}
    return client.chat.completions.create(model="gpt-4.1", messages=[system, *turns])
'''}
    assert _found(tmp_path, files) == [("crew.py", 16, "PRM101", "info")]


def test_the_reply_of_a_chat_model_picked_at_random_is_not_random(tmp_path):
    files = {"tide.py": f'''
import random

from langchain_openai import ChatOpenAI

CHAT_MODELS = [ChatOpenAI(model="gpt-4.1"), ChatOpenAI(model="gpt-4.1-mini")]


def tide_summary() -> str:
    reply = random.choice(CHAT_MODELS).invoke("Summarise tomorrow's tides for rowers.")
    return reply.content


def answer(turns: list):
    tides = tide_summary()
    system = {{"role": "system", "content": f"{CLUB}\\nTides: {{tides}}"}}
    return CHAT_MODELS[0].invoke([system, *turns])
'''}
    assert _found(tmp_path, files) == [("tide.py", 15, "PRM101", "info")]


def test_a_dict_response_among_many_variants_is_not_the_random_pick_kept_beside_it(tmp_path):
    # a wrapper with many backends, one branch picking the model at random and returning the
    # response with the pick beside it; the reader reshapes the result several times (a list, a
    # tuple, a body parsed, a response object's `.json()`) before reading the content by key
    files = {"relay.py": f'''
import json
import random

from openai import OpenAI

client = OpenAI()


def send(backend, payload: dict, pool: list, depth: int = 0):
    if payload.get("arena") and depth == 0:
        payload = {{**payload, "model": random.choice(pool)}}
        out = send(backend, payload, pool, depth + 1)
        if not isinstance(out, dict):
            return out
        return {{**out, "picked": payload["model"]}}
    kind = backend.kind
    if kind == "openai":
        return backend.openai.chat.completions.create(**payload).model_dump()
    if kind == "ollama":
        return backend.ollama.chat(**payload)
    if kind == "batch":
        return [backend.batch.submit(payload)]
    if kind == "proxy":
        return backend.proxy.post("http://proxy.internal/v1/chat", json=payload)
    if kind == "pipe":
        return backend.pipe(payload)
    if kind == "local":
        return backend.local.generate(payload)
    if kind == "stream":
        return backend.stream(payload)
    if kind == "relay":
        return backend.relay.forward(payload)
    return {{"error": f"unknown backend {{kind}}"}}


def reply_text(data) -> str:
    if isinstance(data, list) and data:
        data = data[0]
    if isinstance(data, tuple):
        data = data[0]
    if hasattr(data, "body"):
        data = json.loads(data.body.decode())
    if hasattr(data, "json"):
        data = data.json()
    choices = data.get("choices") or []
    if choices:
        message = choices[0].get("message") or {{}}
        return message.get("content") or ""
    return data.get("error") or ""


def answer(backend, turns: list, pool: list):
    data = send(backend, {{"arena": True, "messages": [{{"role": "user", "content": "Sum up the outing plans."}}]}}, pool)
    plans = reply_text(data).strip()
    system = {{"role": "system", "content": f"{CLUB}\\nPlans: {{plans}}"}}
    return client.chat.completions.create(model="gpt-4.1", messages=[system, *turns])
'''}
    assert _found(tmp_path, files) == [("relay.py", 55, "PRM101", "info")]


def test_a_reply_to_a_request_sent_with_a_random_model_seed_and_request_id_is_not_random(tmp_path):
    # the random values are the request's inputs (model, seed, a request id header), picked two
    # calls up from the send; the reply read by attribute is the model's output
    files = {"desk.py": f'''
import random
import uuid

from openai import OpenAI

client = OpenAI()


def ask(model: str, text: str, seed: int, rid: str):
    return client.chat.completions.create(model=model, seed=seed, extra_headers={{"X-Request-Id": rid}},
                                          messages=[{{"role": "user", "content": text}}])


def relay(text: str, pool: list):
    return ask(random.choice(pool), text, random.randint(0, 9999), str(uuid.uuid4()))


def answer(turns: list, pool: list):
    reply = relay("List this week's outings.", pool)
    notes = reply.choices[0].message.content
    system = {{"role": "system", "content": f"{CLUB}\\nThis week: {{notes}}"}}
    return client.chat.completions.create(model="gpt-4.1", messages=[system, *turns])
'''}
    assert [f for f in _found(tmp_path, files) if f[2] == "PRM103"] == []
    assert [f[2:] for f in _found(tmp_path, files)] == [("PRM101", "info")]


# ---------------------------------------------------------------------------- failing: still found
def test_a_random_pick_written_into_the_prompt_stays_a_random_value(tmp_path):
    files = {"desk.py": f'''
import random

from openai import OpenAI

MIRRORS = [OpenAI(base_url="http://north.internal/v1"), OpenAI(base_url="http://south.internal/v1")]
GREETINGS = ["Ahoy!", "Morning, rower!", "Welcome aboard!"]


def answer(turns: list):
    hello = random.choice(GREETINGS).strip()
    system = {{"role": "system", "content": f"{CLUB}\\nOpen with: {{hello}}"}}
    return random.choice(MIRRORS).chat.completions.create(model="gpt-4.1", messages=[system, *turns])
'''}
    assert _found(tmp_path, files) == [("desk.py", 11, "PRM103", "warning")]


def test_the_random_pick_kept_beside_a_response_read_by_its_key_stays_random(tmp_path):
    files = {"relay.py": f'''
import random

from openai import OpenAI

client = OpenAI()


def send(backend, payload: dict, pool: list):
    if payload.get("arena"):
        picked = random.choice(pool)
        out = backend.post({{**payload, "model": picked}})
        return {{**out, "picked": picked}}
    return backend.post(payload)


def answer(backend, turns: list, pool: list):
    data = send(backend, {{"arena": True, "messages": [{{"role": "user", "content": "Hello"}}]}}, pool)
    system = {{"role": "system", "content": f"{CLUB}\\nServed by: {{data.get('picked')}}"}}
    return client.chat.completions.create(model="gpt-4.1", messages=[system, *turns])
'''}
    assert [f for f in _found(tmp_path, files) if f[2] == "PRM103"] == [("relay.py", 18, "PRM103", "warning")]


def test_a_uuid_sent_with_the_request_and_written_into_the_prompt_stays_a_unique_id(tmp_path):
    files = {"trace.py": f'''
import uuid

from openai import OpenAI

client = OpenAI()


def answer(turns: list):
    run_id = str(uuid.uuid4())
    system = {{"role": "system", "content": f"{CLUB}\\nRun {{run_id}}"}}
    return client.chat.completions.create(model="gpt-4.1", messages=[system, *turns],
                                          extra_headers={{"X-Run-Id": run_id}})
'''}
    assert _found(tmp_path, files) == [("trace.py", 10, "PRM103", "warning")]
