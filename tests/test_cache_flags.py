"""PRM302 facts: a prompt-caching switch handed to LiteLLM under a name it does not read sets no
breakpoint (python/cache_flags.py; fixtures/cache_flags/)."""
import shutil
from pathlib import Path

from promptlint import api
from promptlint.python.cache_flags import might_flag, reads_key
from promptlint.python.module import load

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "cache_flags"


def _found(folder: str, tmp_path: Path):
    # (a copy: checked inside the repository, the package tree would be the repository's)
    shutil.copytree(FIXTURES / folder, tmp_path / folder)
    report = api.check([tmp_path / folder], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.severity.value, d.span.start.row, d.span.start.column)
            for d in report.diagnostics if d.code == "PRM302" and "LiteLLM reads no option" in d.message]


def test_a_switch_written_into_the_options_litellm_is_sent_is_the_fact(tmp_path):
    # `step`'s `api_kwargs["use_prompt_caching"] = ...`; not `keyed`'s `prompt_cache_key` (LiteLLM's own)
    # (main: nothing)
    assert _found("app", tmp_path) == [("loop.py", "info", 8, 9)]


def test_a_switch_a_file_of_the_package_reads_and_turns_into_a_breakpoint_is_not(tmp_path):
    assert _found("hooked", tmp_path) == []


def test_what_reads_a_key():
    module = load(Path("m.py"), "a = x['k']\nx['j'] = 1\nb = y.get('g')\nc = 'i' in z\n")
    assert [reads_key(module, k) for k in ("k", "j", "g", "i", "h")] == [True, False, True, True, False]


def test_the_cheap_test():
    assert might_flag("import litellm\nkw['use_prompt_caching'] = True")
    assert not might_flag("kw['use_prompt_caching'] = True")
