"""promptlint/python/flow/callers.py: a parameter of the function that sends takes its callers'
arguments through the methods of its own class that hand it on (`self._process(payload)` ->
`self.handle(input_data)` -> `create(**input_data)`), as through module functions, and through the
instance of another class that holds the sender (`self.sender.send(...)`); fixtures/method_relays."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint.api import check

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "method_relays"


def _findings(tmp_path: Path, name: str) -> list[tuple[str, int, str]]:
    shutil.copy(FIXTURES / name, tmp_path / name)
    report = check([tmp_path / name], jobs=1)
    return [(d.code, d.span.start.row, d.severity.value) for d in report.diagnostics]


def test_a_request_dict_handed_through_two_methods_of_the_class(tmp_path):
    # the system prompt built by `process_request` reaches `messages.create(**input_data)`
    assert _findings(tmp_path, "agent.py") == [("PRM302", 11, "warning")]  # at the system prompt of the dict


def test_a_parameter_handed_on_through_an_instance_of_another_class_is_followed(tmp_path):
    # `self.sender.send(payload_input)` of `self.sender = Sender()`: the request `Router.ask` builds
    # reaches `Sender.send` (flow/instance_sites.py), its 3,000-token system prompt unmarked
    assert _findings(tmp_path, "other.py") == [("PRM302", 22, "warning")]
