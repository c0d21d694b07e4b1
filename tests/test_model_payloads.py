"""PRM205 through a request dict: a model chosen per request written into a payload (display,
`dict(...)`, subscript, `.update`) that is spread into the SDK call, given to a call named as a
request, or handed back to the caller (python/model_payloads.py). Fixtures: fixtures/model_payloads/."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.model_switches import find_model_switches
from promptlint.python.module import load
from promptlint.python.prefilter import might_hold_prompt

from analysis_support import code

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "model_payloads"


def _report(*names):
    report = api.check([FIXTURES / n for n in names], api.Settings(), jobs=1)
    return sorted((Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row,
                   [r.span.start.row for r in d.related]) for d in report.diagnostics)


def _switches(source: str):
    module = load(Path("app.py"), code(source))
    return [(s.node.lineno, s.how, s.pool, s.request.lineno, s.via, s.sent, s.conversation)
            for s in find_model_switches(module)]


def test_a_payload_spread_into_the_sdk_call_is_reported_where_the_model_is_chosen_with_the_send_related():
    assert _report("spread_body.py", "spread_history.py") == [
        ("spread_body.py", "PRM205", "info", 11, [13]),        # `{**body, "model": pick}`: messages unknown
        ("spread_history.py", "PRM205", "warning", 16, [20]),  # `dict(model=..., messages=self.chat_history)`
    ]


def test_a_payload_given_to_a_call_named_as_a_request_or_handed_back_is_info():
    assert _report("rotation_post.py", "handed_back.py") == [
        ("handed_back.py", "PRM205", "info", 10, [10]),      # a parameter written in place and returned
        # (`settings_for_run`: a dict of a model and no messages, returned: a configuration, silent)
        ("rotation_post.py", "PRM205", "info", 13, [14]),    # `.update(model=next(ROTATION))`, then `post(json=)`
    ]


def test_models_fixed_for_the_conversation_a_fallback_after_an_error_or_a_dict_never_sent_are_silent():
    assert _report("fixed_models.py", "fallback_models.py", "not_sent.py") == []


def test_the_shapes_of_writes_and_sends():
    source = """
        import random

        LLMS = ["a", "b"]


        def subscript_then_wrapper(form, user):
            chosen = random.choice(LLMS)
            form["model"] = chosen
            form = normalise(form)
            return run_completion(form, user)


        def display_given_straight(history):
            return send_chat(dict(model=random.choice(LLMS), messages=history))


        def update_with_a_display(opts, client):
            opts.update({"model": random.choice(LLMS)})
            return client.responses.create(**opts)


        def rebuilt_is_not_a_send(form):
            form["model"] = random.choice(LLMS)
            form = await_completion_defaults(form)
            form["messages"] = trim(form["messages"])


        def configuration_only(cfg):
            cfg["model"] = random.choice(LLMS)
            cfg["retries"] = 2
    """
    assert _switches(source) == [
        (7, "at random", "LLMS", 10, "form", "wrapper", False),
        (14, "at random", "LLMS", 14, "dict(model=random.choice(LLMS), messages=history)", "wrapper", True),
        (18, "at random", "LLMS", 19, "opts", "spread", False),
        (23, "at random", "LLMS", 23, "form", "caller", False),  # a parameter: the caller's dict, written in place
    ]  # `configuration_only`: a parameter given a model and no messages: not a request shape, silent


def test_two_draws_in_branches_for_one_request_dict_are_one_diagnostic():
    source = """
        import random

        def route(payload, model_ids, fallback_ids, client):
            if model_ids:
                pick = random.choice(model_ids)
            else:
                pick = random.choice(fallback_ids)
            payload["model"] = pick
            return client.chat.completions.create(**payload)
    """
    assert [(line, request) for line, _, _, request, *_ in _switches(source)] == [(5, 9)]


def test_a_module_level_rotation_is_a_turn_a_local_one_is_not():
    source = """
        import itertools

        MODEL_NAMES = ["a", "b"]
        TURNS = itertools.cycle(MODEL_NAMES)

        def kept(params, client):
            params.update(model=next(TURNS))
            return client.chat.completions.create(**params)

        def fresh(params, client):
            local = itertools.cycle(MODEL_NAMES)
            params.update(model=next(local))
            return client.chat.completions.create(**params)
    """
    assert [(line, how, request, sent) for line, how, _, request, _, sent, _ in _switches(source)] == [
        (7, "in turns", 8, "spread")]


def test_the_prefilter_lets_a_secrets_draw_of_models_be_analysed():
    assert might_hold_prompt(code("""
        import secrets

        def pick(body, model_names):
            body["model"] = secrets.choice(model_names)
            return body
    """))


def test_a_payload_spread_into_a_call_that_makes_no_request_is_no_spread_send():
    """`Trace(**payload)` records the dict: no SDK shape's method, no name of sending."""
    found = _switches('''
        import random
        MODELS = ["gpt-4o", "gpt-4o-mini"]

        def record(messages):
            payload = {"model": random.choice(MODELS), "messages": messages}
            return Trace(**payload)
        ''')
    assert "spread" not in [sent for _, _, _, _, _, sent, _ in found]
