"""A scratch folder made per call (`tempfile.mkdtemp()`, `tempfile.mktemp()`) is a new random path
each time, as `uuid4()` is: written before the static system prompt it breaks the prefix on every
request (PRM103). Made once at import it is one path per process, as a module-level `uuid4()` is
(a new user's trial: `Path(tempfile.mkdtemp())` read as "unknown, stable")."""
from __future__ import annotations

from promptlint.api import check

APP = '''\
import tempfile
from pathlib import Path
from openai import OpenAI

client = OpenAI()
RULES = "You are a careful assistant. " * 400


def answer(history, question):
    workspace = Path(tempfile.MAKER(prefix="job_"))
    system = f"Workspace: {workspace}\\n" + RULES
    return client.chat.completions.create(
        model="gpt-4.1",
        messages=[{"role": "system", "content": system}, *history, {"role": "user", "content": question}],
    )
'''


def _codes(tmp_path, source):
    (tmp_path / "app.py").write_text(source)
    return [(d.code, d.severity.value, d.span.row) for d in check([tmp_path / "app.py"]).diagnostics]


def test_a_scratch_folder_made_per_call_before_the_system_prompt_is_prm103(tmp_path):
    assert _codes(tmp_path, APP.replace("MAKER", "mkdtemp")) == [("PRM103", "warning", 11)]  # where it enters the text
    assert _codes(tmp_path, APP.replace("MAKER", "mktemp")) == [("PRM103", "warning", 11)]


def test_the_same_path_made_once_at_import_is_not_a_per_request_warning(tmp_path):
    once = APP.replace('    workspace = Path(tempfile.MAKER(prefix="job_"))\n', "").replace(
        "RULES = ", 'WORKSPACE = Path(tempfile.mkdtemp(prefix="job_"))\nRULES = ').replace("{workspace}", "{WORKSPACE}")
    assert _codes(tmp_path, once) == [("PRM103", "info", 11)]  # fixed per process: cached per process


def test_a_gettempdir_path_is_the_same_on_every_call(tmp_path):
    assert _codes(tmp_path, APP.replace("tempfile.MAKER(prefix=\"job_\")", "tempfile.gettempdir()")) == []
