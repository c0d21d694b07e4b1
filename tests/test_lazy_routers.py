"""A LiteLLM Router kept on the instance and made on first use, or given by the caller and made
otherwise: its `acompletion(...)` is a request (sdks/litellm.py `router`); fixtures/lazy_routers."""
from __future__ import annotations

import shutil
from pathlib import Path

from promptlint.api import check

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "lazy_routers"


def _apis(tmp_path: Path, name: str) -> list[tuple[str, int]]:
    shutil.copy(FIXTURES / name, tmp_path / name)
    report = check([tmp_path / name], jobs=1)
    return [(p.api, p.site.start.row) for p in report.prompts if p.api is not None]


def test_a_router_made_by_a_method_on_first_use(tmp_path):
    assert _apis(tmp_path, "made_lazily.py") == [("Router.acompletion", 19)]


def test_the_callers_router_or_one_made_and_cached(tmp_path):
    assert _apis(tmp_path, "given_or_made.py") == [("Router.acompletion", 21)]


def test_a_client_of_the_projects_own_class_is_not_a_router(tmp_path):
    assert _apis(tmp_path, "other_client.py") == []
