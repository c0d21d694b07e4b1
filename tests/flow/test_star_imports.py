"""python/module.py `star_imports` and flow/core.py `resolve_global`: a name a module binds by
`from .agent import *` (also in a `try` with a fallback import) is the function, class or value
of the module it comes from; a private name, or one that module does not define, stays unknown."""
from __future__ import annotations

from analysis_support import probe

from promptlint.python.flow.values import Func

FILES = {
    "pkg/__init__.py": "",
    "pkg/agent.py": """
        GREETING = "You are the team's assistant."
        _HIDDEN = "private"

        def get_agent_executor():
            return GREETING
    """,
}


def test_a_name_of_a_star_import_is_the_imported_modules_value(tmp_path):
    source = """
        try:
            from .agent import *
        except ImportError:
            from agent import *

        def run():
            probe(get_agent_executor())
    """
    probed = probe(tmp_path, source, files=FILES, name="pkg/assistant.py")
    assert probed.text == "You are the team's assistant."
    assert isinstance(probe(tmp_path, source.replace("get_agent_executor()", "get_agent_executor"), files=FILES,
                            name="pkg/assistant.py").value, Func)


def test_private_and_undefined_names_stay_unknown(tmp_path):
    for name in ("_HIDDEN", "MISSING"):
        probed = probe(tmp_path, f"""
            from .agent import *

            def run():
                probe({name})
        """, files=FILES, name="pkg/assistant.py")
        assert probed.described == [("unknown", "unknown", name)]
