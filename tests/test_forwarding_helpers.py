"""A send call made through a project function that calls one of its parameters with the rest of
its arguments (flow/relays.py `forwarded_call`): fixtures/forwarding_helpers (see its README)."""
from __future__ import annotations

import ast
from pathlib import Path

from promptlint import api
from promptlint.python.flow.relays import forwarding_index

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "forwarding_helpers"


def test_the_call_a_retry_helper_makes_is_read_as_the_sdk_call():
    report = api.check([FIXTURES], api.Settings(), jobs=1)
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]
    assert found == [("backend.py", "PRM302", "warning", 13)]  # `system=POLICY` of `answer`; `ping`: not followed
    assert report.diagnostics[0].message.startswith("Static prefix of about 3,073 tokens reaches the 1,024-token "
                                                    "minimum of claude-sonnet-4-5 but has no cache breakpoint")


def test_the_call_a_forwarding_method_of_a_base_class_makes_with_an_aliased_sdk_method_is_read():
    # (before: only a module function handed an SDK method written out was followed, so
    # `self._call_client(create_func, **params)` of a base class in another module drew no request)
    report = api.check([FIXTURES.parent / "forwarding_methods"], api.Settings(), jobs=1)
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]
    assert found == [("claude.py", "PRM302", "warning", 18)]  # `system=POLICY` of `answer`; `ping`: not followed
    assert report.diagnostics[0].message.startswith("Static prefix of about 3,073 tokens reaches the 1,024-token "
                                                    "minimum of claude-sonnet-4-5 but has no cache breakpoint")
    assert sorted(p.api for p in report.prompts) == ["beta.messages.create", "messages.create"]  # both bindings


def _index(source):
    return forwarding_index(ast.parse(source).body[0])


def test_only_a_parameter_called_with_the_functions_own_args_and_kwargs_is_forwarded():
    assert _index("def f(fn, errors, *args, **kwargs):\n    return fn(*args, **kwargs)\n") == 0
    assert _index("def f(errors, fn, *a, **kw):\n    try:\n        return fn(*a, **kw)\n    except errors:\n"
                  "        return None\n") == 1
    assert _index("def f(fn, *args, **kwargs):\n    return fn(model='m', **kwargs)\n") is None  # its own arguments
    assert _index("def f(fn, **kwargs):\n    return fn(**kwargs)\n") == 0  # no `*args` to forward
    assert _index("def f(fn, *args):\n    return fn(*args)\n") is None  # no `**kwargs`: not a request's
    assert _index("def f(fn, *args, **kwargs):\n    return fn(**kwargs)\n") is None  # its `*args` dropped
    assert _index("def f(fn, *args, **kwargs):\n    return other(*args, **kwargs)\n") is None  # not a parameter
