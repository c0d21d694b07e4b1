"""The evaluator on paths, files and configuration: `Path(__file__).parent / "x.md"`,
`with_name`, `os.path.join(os.path.dirname(__file__), ...)`, `open(...).read()`, files that are not
found, a uuid in a path part, and prompt strings loaded from JSON / YAML / TOML with static keys
(placed at their line in the config file)."""
from __future__ import annotations

from pathlib import Path

from analysis_support import pos, probe

from promptlint.model import Kind, Position, Volatility
from promptlint.python.flow.values import Config, PathV

FILES = {
    "system.md": "You are the system.\nLine two.\n",
    "prompts.yaml": 'assistant:\n  system: "You are from YAML."\n',
    "p.json": '{"system": "You are from JSON."}\n',
    "p.toml": '[agent]\ninstructions = "You are from TOML."\n',
}

PATHS = """
    import os
    import uuid
    from pathlib import Path

    HERE = Path(__file__).parent


    def f(name):
        probe((HERE / "system.md").read_text())
        probe(Path(__file__).with_name("system.md").read_text(encoding="utf-8"))
        probe(open(os.path.join(os.path.dirname(__file__), "system.md")).read())
        probe((HERE / "missing.md").read_text())
        probe(Path("relative.md").read_text())
        probe(HERE / f"run-{uuid.uuid4()}" / "out.md")
        probe(HERE / "system.md")
        probe((HERE / name).read_text())
"""


def test_files_read_with_a_static_path_are_static_text_in_that_file(tmp_path):
    for index in range(3):
        p = probe(tmp_path, PATHS, FILES, index=index)
        assert p.described == [("text", "You are the system.\nLine two.\n")]
        seg, = p.segs
        assert Path(seg.span.filename).name == "system.md"
        assert seg.span.start == Position(1, 1)


def test_a_path_up_a_folder_with_os_pardir_resolved_by_abspath(tmp_path):
    src = """
        import os


        def f():
            here = os.path.dirname(os.path.abspath(__file__))
            probe(open(os.path.abspath(os.path.join(here, os.pardir, "app", "system.md"))).read())
            probe(os.path.abspath(os.path.join(here, os.pardir, "app")))
    """
    p = probe(tmp_path, src, {"app/system.md": "You are the system.\n"}, name="app/x.py")
    assert p.described == [("text", "You are the system.\n")]
    path = probe(tmp_path, src, name="app/x.py", index=1).value
    assert isinstance(path, PathV) and path.path == tmp_path / "app"   # `..` resolved


def test_files_not_found_statically(tmp_path):
    for index in (3, 4, 7):  # missing; relative to the working directory; named by a parameter
        seg, = probe(tmp_path, PATHS, FILES, index=index).segs
        assert (seg.kind, seg.volatility) == (Kind.UNKNOWN, Volatility.STABLE)
        assert seg.evidence == "text read from a file that is not found statically"


def test_paths_keep_a_volatile_part(tmp_path):
    p = probe(tmp_path, PATHS, FILES, index=5)
    assert isinstance(p.value, PathV) and p.value.path is None
    seg, = p.segs
    assert (seg.kind, seg.volatility, seg.expr) == (Kind.UNIQUE_ID, Volatility.PER_REQUEST, "uuid.uuid4()")
    static = probe(tmp_path, PATHS, FILES, index=6).value
    assert static.path == (tmp_path / "system.md").resolve() and static.volatile is None


CONFIG = """
    import json
    import tomllib
    from pathlib import Path

    import yaml

    HERE = Path(__file__).parent
    CONFIG = yaml.safe_load((HERE / "prompts.yaml").read_text())


    def f(name):
        probe(CONFIG["assistant"]["system"])
        probe(CONFIG.get("assistant").get("system"))
        probe(json.loads((HERE / "p.json").read_text())["system"])
        probe(tomllib.loads((HERE / "p.toml").read_text())["agent"]["instructions"])
        with open(HERE / "p.json") as fh:
            data = json.load(fh)
        probe(data["system"])
        probe(CONFIG["missing"])
        probe(CONFIG["assistant"])
"""


def test_config_strings_with_static_keys_are_placed_in_the_config_file(tmp_path):
    expected = [("prompts.yaml", "You are from YAML.", Position(2, 12)),
                ("prompts.yaml", "You are from YAML.", Position(2, 12)),
                ("p.json", "You are from JSON.", Position(1, 13)),
                ("p.toml", "You are from TOML.", Position(2, 17)),
                ("p.json", "You are from JSON.", Position(1, 13))]
    for index, (name, text, at) in enumerate(expected):
        p = probe(tmp_path, CONFIG, FILES, index=index)
        assert isinstance(p.value, Config)
        assert p.described == [("text", text)]
        assert Path(p.segs[0].span.filename).name == name
        assert p.segs[0].span.start == at


def test_config_keys_that_are_missing_or_not_text(tmp_path):
    missing, = probe(tmp_path, CONFIG, FILES, index=5).segs
    assert (missing.kind, missing.volatility, missing.evidence) == (Kind.UNKNOWN, Volatility.STABLE,
                                                                    "configuration value")
    table = probe(tmp_path, CONFIG, FILES, index=6)
    assert isinstance(table.value, Config) and table.value.keys == ["assistant"]
    seg, = table.segs
    assert (seg.kind, seg.volatility, seg.expr) == (Kind.UNKNOWN, Volatility.STABLE, "configuration data")


def test_a_config_file_that_does_not_parse(tmp_path):
    src = """
        import json
        from pathlib import Path

        DATA = json.loads((Path(__file__).parent / "broken.json").read_text())
        probe(DATA["system"])
    """
    seg, = probe(tmp_path, src, {"broken.json": "{not json"}).segs
    assert (seg.kind, seg.volatility) == (Kind.UNKNOWN, Volatility.STABLE)
    assert seg.span.start == pos(src, 'DATA["system"]')


def test_a_file_named_by_a_volatile_value_changes_as_often(tmp_path):
    src = """
        import uuid
        from pathlib import Path

        HERE = Path(__file__).parent


        def f(question):
            probe((HERE / f"{uuid.uuid4()}.txt").read_text())
            probe((HERE / "answers" / question).read_text())
    """
    by_id, = probe(tmp_path, src, index=0).segs
    # a new file on every request: what it holds is not stable text
    assert (by_id.kind, by_id.volatility) == (Kind.UNKNOWN, Volatility.PER_REQUEST)
    assert by_id.span.start == pos(src, "(HERE / f")
    assert by_id.origin.start == pos(src, "{uuid.uuid4()}")
    by_question, = probe(tmp_path, src, index=1).segs
    assert by_question.volatility is Volatility.PER_REQUEST


PACKAGE_DATA = """
    import importlib.resources
    import importlib_resources
    from importlib import resources


    def f(name):
        probe(importlib.resources.files("app.prompts").joinpath("system.md").read_text())
        probe((resources.files("app.prompts") / "system.md").read_text(encoding="utf-8"))
        probe(open(str(importlib_resources.files("app") / "prompts" / "system.md")).read())
        probe((resources.files("requests") / "system.md").read_text())
        probe((resources.files(name) / "system.md").read_text())
        probe(resources.files("app.prompts"))
        probe((resources.files(__package__) / "prompts" / "system.md").read_text())
"""
PACKAGE_FILES = {"app/__init__.py": "", "app/prompts/__init__.py": "", "app/prompts/system.md": "You are the system.\n"}


def test_package_data_read_through_importlib_resources_is_static_text_in_that_file(tmp_path):
    for index in (0, 1, 2, 6):  # importlib.resources.files, its `resources` module, the backport; `__package__`
        p = probe(tmp_path, PACKAGE_DATA, PACKAGE_FILES, name="app/x.py", index=index)
        assert p.described == [("text", "You are the system.\n")]
        seg, = p.segs
        assert Path(seg.span.filename).name == "system.md" and seg.span.start == Position(1, 1)
    folder = probe(tmp_path, PACKAGE_DATA, PACKAGE_FILES, name="app/x.py", index=5).value
    assert isinstance(folder, PathV) and folder.path == tmp_path / "app" / "prompts"


def test_package_data_of_a_package_outside_the_tree_or_named_by_a_parameter_is_not_static(tmp_path):
    for index in (3, 4):
        seg, = probe(tmp_path, PACKAGE_DATA, PACKAGE_FILES, name="app/x.py", index=index).segs
        assert (seg.kind, seg.volatility) == (Kind.UNKNOWN, Volatility.STABLE)
        assert seg.evidence == "text read from a file that is not found statically"
