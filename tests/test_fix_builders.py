"""Fix builders: before/after for each shape, idempotence, and the result re-parses and compiles."""
from __future__ import annotations

import functools
import textwrap

import libcst as cst
import pytest

from promptlint.fix import apply_edits
from promptlint.model import Applicability

from cst_support import fixes, module_from_source, nodes


def calls_to(*names):
    return lambda m: nodes(m, cst.Call, lambda m, n: m.qualified_name(n.func) in names)


def named(name):
    return lambda m: [n for n in nodes(m, cst.Name) if n.value == name]


def run(source: str, select, build, index: int = 0):
    """Apply the fix built for the `index`-th selected node; return (fix, new source). The new
    source must compile, and building again on the fixed code must give no fix (idempotence)."""
    source = textwrap.dedent(source)
    module = module_from_source(source)
    fix = build(module, select(module)[index])
    if fix is None:
        return None, source
    new = apply_edits(source, fix.edits)
    compile(new, "example.py", "exec")
    again = module_from_source(new)
    assert build(again, select(again)[index]) is None, "the fix is not idempotent"
    return fix, new


def after(source, select, build, index=0):
    return run(source, select, build, index)[1]


dumps = calls_to("json.dumps", "simplejson.dumps", "orjson.dumps", "yaml.dump", "yaml.safe_dump")
#: The builder told by the extraction that every dict's keys are strings (`json_keys.string_keyed`).
sort_keys = functools.partial(fixes.sort_keys_fix, string_keys=True)


# --- PRM201 ------------------------------------------------------------------------------------

@pytest.mark.parametrize("before, expected", [
    ("import json\nx = json.dumps(data)\n", "import json\nx = json.dumps(data, sort_keys=True)\n"),
    ("import json\nx = json.dumps(data,)\n", "import json\nx = json.dumps(data, sort_keys=True,)\n"),
    ("import json\nx = json.dumps(\n    data,\n    indent=2,\n)\n",
     "import json\nx = json.dumps(\n    data,\n    indent=2,\n    sort_keys=True,\n)\n"),
    ("import json\ndef f():\n    return json.dumps(\n        {\n            'a': 1,\n        },  # c\n    )\n",
     "import json\ndef f():\n    return json.dumps(\n        {\n            'a': 1,\n        },  # c\n"
     "        sort_keys=True,\n    )\n"),
    ("import json\nx = json.dumps(\n    a, b,\n)\n", "import json\nx = json.dumps(\n    a, b, sort_keys=True,\n)\n"),
    ("import json\nx = json.dumps(a,\n)\n", "import json\nx = json.dumps(a, sort_keys=True,\n)\n"),
    ("import json\nx = json.dumps(  # why\n    data  # the payload\n)\n",
     "import json\nx = json.dumps(  # why\n    data, sort_keys=True  # the payload\n)\n"),
    ("import json\nx = json.dumps(data, **options)\n",
     "import json\nx = json.dumps(data, sort_keys=True, **options)\n"),
    ("import json\nx = json.dumps(row for row in rows)\n",
     "import json\nx = json.dumps((row for row in rows), sort_keys=True)\n"),
    ("import json\nx = (json.dumps((data)))\n", "import json\nx = (json.dumps((data), sort_keys=True))\n"),
    ("import json\nx = json.dumps(f(a, b=1), cls=E)\n",
     "import json\nx = json.dumps(f(a, b=1), cls=E, sort_keys=True)\n"),
    ("import json\nx = json.dumps(data, sort_keys=False)\n",
     "import json\nx = json.dumps(data, sort_keys=True)\n"),
    ("import json as j\nx = j.dumps(data)\n", "import json as j\nx = j.dumps(data, sort_keys=True)\n"),
    ("from json import dumps\nx = dumps(data)\n", "from json import dumps\nx = dumps(data, sort_keys=True)\n"),
    ("import simplejson\nx = simplejson.dumps(data)\n",
     "import simplejson\nx = simplejson.dumps(data, sort_keys=True)\n"),
    ("import yaml\nx = yaml.safe_dump(data, sort_keys=False)\n",
     "import yaml\nx = yaml.safe_dump(data, sort_keys=True)\n"),
    ("import orjson\nx = orjson.dumps(data)\n",
     "import orjson\nx = orjson.dumps(data, option=orjson.OPT_SORT_KEYS)\n"),
    ("import orjson as oj\nx = oj.dumps(data, option=oj.OPT_INDENT_2)\n",
     "import orjson as oj\nx = oj.dumps(data, option=oj.OPT_INDENT_2 | oj.OPT_SORT_KEYS)\n"),
    ("import orjson\nx = orjson.dumps(data, option=None)\n",
     "import orjson\nx = orjson.dumps(data, option=orjson.OPT_SORT_KEYS)\n"),
    ("import orjson\nx = orjson.dumps(data, None, A if b else C)\n",
     "import orjson\nx = orjson.dumps(data, None, (A if b else C) | orjson.OPT_SORT_KEYS)\n"),
    ("from orjson import dumps, OPT_SORT_KEYS as SK\nx = dumps(data)\n",
     "from orjson import dumps, OPT_SORT_KEYS as SK\nx = dumps(data, option=SK)\n"),
    ("import json\r\nx = json.dumps(\r\n    data,\r\n)\r\n",
     "import json\r\nx = json.dumps(\r\n    data,\r\n    sort_keys=True,\r\n)\r\n"),
])
def test_sort_keys_fix(before, expected):
    fix, new = run(before, dumps, sort_keys)
    assert new == expected
    assert fix.applicability is (Applicability.UNSAFE if "**" in before else Applicability.SAFE)


def test_sort_keys_fix_with_mapping_is_unsafe_and_says_why():
    fix, _ = run("import json\nx = json.dumps(data, **options)\n", dumps, sort_keys)
    assert fix.applicability is Applicability.UNSAFE
    assert "`**options` may set it already" in fix.message


@pytest.mark.parametrize("source, shown", [
    ("import json\nx = json.dumps(output_schema, indent=2)\n", "output_schema"),
    ("import json\nx = json.dumps(op['output']['schema'])\n", "op['output']['schema']"),
    ("import json\nx = json.dumps(self.response_schema)\n", "self.response_schema"),
    ("import json\nx = json.dumps(Answer.model_json_schema(), indent=2)\n", "Answer.model_json_schema()"),
    ("import orjson\nx = orjson.dumps(Reply.schema())\n", "Reply.schema()"),
])
def test_sort_keys_fix_of_a_json_schema_is_unsafe(source, shown):
    """A schema's property order is text the model reads (and often the order it answers in)."""
    fix, new = run(source, dumps, sort_keys)
    assert fix.applicability is Applicability.UNSAFE
    assert fix.message.endswith(f"(unsafe: `{shown}` is a JSON schema: sorted keys reorder the properties "
                                "the model reads, and often the order it answers in)")
    assert "sort" in new.split("\n")[1].lower()


@pytest.mark.parametrize("source", [
    "import json\nx = json.dumps(sample_input[:2], indent=2)\n",
    "import json\nx = json.dumps(op['output']['rows'])\n",
    "import json\nx = json.dumps(row.model_dump())\n",       # the data, not its schema
    "import json\nx = json.dumps(schemas_of(x)[0])\n",       # a call's item: not known
])
def test_sort_keys_fix_of_data_stays_safe(source):
    fix, _ = run(source, dumps, sort_keys)
    assert fix.applicability is Applicability.SAFE
    assert fix.message == "Add `sort_keys=True`"


@pytest.mark.parametrize("source, safe", [
    ("import json\nx = json.dumps(data)\n", False),
    ("import simplejson\nx = simplejson.dumps(data)\n", False),
    ("import yaml\nx = yaml.safe_dump(data, sort_keys=False)\n", True),   # PyYAML gives up sorting, never raises
    ("import orjson\nx = orjson.dumps(data)\n", True),                   # orjson writes string keys only
])
def test_sort_keys_fix_of_keys_not_known_strings_is_unsafe(source, safe):
    """`json.dumps({1: "a", "b": 2}, sort_keys=True)` raises TypeError: without the fact that the
    keys are strings all the way down, the json fix is unsafe and says why."""
    fix, _ = run(source, dumps, fixes.sort_keys_fix)
    assert fix.applicability is (Applicability.SAFE if safe else Applicability.UNSAFE)
    assert ("raises TypeError on keys of mixed types" in fix.message) is not safe


def test_sort_keys_fix_in_the_tool_args_case():
    source = ('"arguments": json.dumps(step["arguments"], ensure_ascii=False),\n')
    source = "import json\nx = {\n    " + source + "}\n"
    assert after(source, dumps, sort_keys) == (
        'import json\nx = {\n    "arguments": json.dumps(step["arguments"], ensure_ascii=False, '
        'sort_keys=True),\n}\n')


def test_nested_dumps_calls_are_fixed_one_at_a_time():
    source = "import json\nx = json.dumps({'a': json.dumps(b)})\n"
    assert after(source, dumps, sort_keys, 0) == \
        "import json\nx = json.dumps({'a': json.dumps(b)}, sort_keys=True)\n"
    assert after(source, dumps, sort_keys, 1) == \
        "import json\nx = json.dumps({'a': json.dumps(b, sort_keys=True)})\n"


@pytest.mark.parametrize("source", [
    "import json\nx = json.dumps(data, sort_keys=True)\n",   # already sorted
    "import yaml\nx = yaml.dump(data)\n",                    # PyYAML sorts by default
    "from orjson import dumps\nx = dumps(data)\n",           # no name for OPT_SORT_KEYS
    "import orjson\nx = orjson.dumps(d, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2)\n",
    "import pickle\nx = pickle.dumps(data)\n",               # not a JSON/YAML serialiser
])
def test_sort_keys_fix_gives_nothing_when_nothing_is_sure(source):
    module = module_from_source(source)
    call = nodes(module, cst.Call)[0]
    assert sort_keys(module, call) is None


def test_add_keyword_fix_on_an_empty_call_and_after_star_args():
    build = lambda m, c: fixes.add_keyword_fix(m, c, "k", "1", "Add `k=1`")
    select = lambda m: nodes(m, cst.Call)
    assert after("f()\n", select, build) == "f(k=1)\n"
    assert after("f( )\n", select, build) == "f( k=1)\n"
    assert after("f(*args)\n", select, build) == "f(*args, k=1)\n"
    assert after("f(*a, **kw)\n", select, build) == "f(*a, k=1, **kw)\n"
    assert after("f(\n    a\n    ,\n)\n", select, build) == "f(\n    a\n    ,\n    k=1,\n)\n"


# --- PRM202 ------------------------------------------------------------------------------------

wrap = fixes.wrap_sorted_fix


@pytest.mark.parametrize("before, select, expected", [
    ('x = ", ".join(tags)\n', named("tags"), 'x = ", ".join(sorted(tags))\n'),
    ('x = ", ".join(tags)\n', lambda m: nodes(m, cst.Call), 'x = ", ".join(sorted(tags))\n'),
    ('x = "\\n".join(t.upper() for t in tags)\n', lambda m: nodes(m, cst.GeneratorExp),
     'x = "\\n".join(sorted(t.upper() for t in tags))\n'),
    ('x = "".join((t for t in tags))\n', lambda m: nodes(m, cst.GeneratorExp),
     'x = "".join(sorted((t for t in tags)))\n'),
    ("def f(a: list[str]):\n    for name in (set(a) | {'x'}):\n        pass\n", lambda m: nodes(m, cst.BinaryOperation),
     "def f(a: list[str]):\n    for name in sorted((set(a) | {'x'})):\n        pass\n"),
    ("import os\nlines = [f'- {n}' for n in os.listdir(root)]\n", calls_to("os.listdir"),
     "import os\nlines = [f'- {n}' for n in sorted(os.listdir(root))]\n"),
    ("import os\nnames = [e.name for e in os.scandir(root)]\n", calls_to("os.scandir"),
     "import os\nnames = [e.name for e in sorted(os.scandir(root), key=lambda entry: entry.name)]\n"),
    ("tags = {'a', 'b'}\nx = [*tags]\n", lambda m: named("tags")(m)[1:], "tags = {'a', 'b'}\nx = [*sorted(tags)]\n"),
    ("x = ', '.join(\n    tags  # unordered\n)\n", named("tags"),
     "x = ', '.join(\n    sorted(tags)  # unordered\n)\n"),
])
def test_wrap_sorted_fix(before, select, expected):
    fix, new = run(before, select, wrap)
    assert new == expected
    assert "joinsorted" not in new
    assert fix.applicability is Applicability.SAFE


@pytest.mark.parametrize("source, select", [
    ("for name in (set(a) | b):\n    pass\n", lambda m: nodes(m, cst.BinaryOperation)),   # items unknown
    ("x = [*tags]\n", named("tags")),
    ("def f(tools):\n    names = {t for t in tools}\n    return [n for n in names]\n",
     lambda m: named("names")(m)[1:]),                                                      # objects
    ("s = {'a'}\ns.add(obj)\nx = [*s]\n", lambda m: named("s")(m)[2:]),                     # mutated
    ("def f(a: list):\n    return [x for x in set(a)]\n", lambda m: nodes(m, cst.Call)[-1:]),
    ("def f(rows):\n    return list(set(r[:50] for r in rows))\n", calls_to("list")),           # a cut of anything
    ("def f(rows):\n    return list(set(b'xy'[0] for r in rows) | {'a'})\n", calls_to("list")),  # int and str
])
def test_wrap_sorted_fix_is_unsafe_when_the_items_may_lack_less_than(source, select):
    """`sorted` raises TypeError for items without `<` (objects, mixed kinds): not safe."""
    fix, new = run(source, select, wrap)
    assert fix.applicability is Applicability.UNSAFE
    assert "not known to support `<`" in fix.message
    assert "sorted(" in new


@pytest.mark.parametrize("source, select", [
    ("import os\ndef f(d):\n    names = os.listdir(d)\n    names += ['x']\n    return [n for n in names]\n",
     lambda m: named("names")(m)[2:]),
    ("from pathlib import Path\ndef f(d: Path):\n    return [p for p in d.iterdir()]\n", calls_to("d.iterdir")),
    ("TOPICS = {'a', 'b'}\ndef f():\n    return [t for t in TOPICS]\n", lambda m: named("TOPICS")(m)[1:]),
    ("def f(a: 'list[str]', b: set[str]):\n    return [t for t in b | {'x'}]\n",
     lambda m: nodes(m, cst.BinaryOperation)),
    ("def f(text):\n    return [w for w in set(text.split())]\n", calls_to("set")),
    ("def f(items):\n    s = set()\n    for i in items:\n        s.add(f'{i}')\n    return [x for x in s]\n",
     lambda m: named("s")(m)[2:]),
    ("def f(rows, key):\n    return list(set(str(r.get(key))[:50] for r in rows))[:5]\n", calls_to("list")),
    ("def f(rows):\n    return [x for x in {r.name.lower()[0] for r in rows}]\n", lambda m: nodes(m, cst.SetComp)),
])
def test_wrap_sorted_fix_is_safe_when_the_items_are_known_orderable(source, select):
    fix, _ = run(source, select, wrap)
    assert fix.applicability is Applicability.SAFE


def test_wrap_sorted_fix_sorts_scandir_entries_by_name_also_through_a_with_name():
    # (main: `sorted(directory)`, unsafe, which raises TypeError on every call: DirEntry has no `<`)
    source = "import os\nwith os.scandir(p) as directory:\n    for entry in directory:\n        pass\n"
    fix, new = run(source, lambda m: named("directory")(m)[1:], wrap)
    assert fix.applicability is Applicability.SAFE
    assert "for entry in sorted(directory, key=lambda entry: entry.name):" in new


@pytest.mark.parametrize("source, select", [
    # a bottom-up walk: sorting the folder names changes nothing, and the body prunes `dirs`
    ("import os\nfor r, dirs, fs in os.walk(d, topdown=False):\n    dirs[:] = []\n", calls_to("os.walk")),
    # a loop that changes what it is given in place: sorted() would read the whole iteration first
    ("def f(groups: set):\n    for g in groups:\n        g.clear()\n", lambda m: named("groups")(m)[1:]),
])
def test_wrap_sorted_fix_is_never_applied_around_a_loop_that_changes_its_items(source, select):
    module = module_from_source(source)
    fix = wrap(module, select(module)[0])
    assert fix is None or fix.applicability is Applicability.DISPLAY_ONLY


def test_a_top_down_walk_loop_is_fixed_by_sorting_its_folder_names_in_place():
    source = "import os\nfor root, dirs, files in os.walk(d):\n    dirs[:] = [x for x in dirs if x]\n"
    fix, new = run(source, calls_to("os.walk"), wrap)
    assert fix.applicability is Applicability.SAFE
    assert new == ("import os\nfor root, dirs, files in os.walk(d):\n    dirs.sort()\n"
                   "    dirs[:] = [x for x in dirs if x]\n")


def test_wrap_sorted_fix_trusts_the_item_kind_the_caller_knows():
    module = module_from_source("x = [*tags]\n")
    fix = wrap(module, named("tags")(module)[0], items="str")
    assert fix.applicability is Applicability.SAFE


def test_wrap_sorted_fix_refuses_completion_order_and_sorted_input():
    for source, select in [("import asyncio\nfor f in asyncio.as_completed(fs):\n    pass\n",
                            calls_to("asyncio.as_completed")),
                           ("from concurrent.futures import as_completed\nx = list(as_completed(fs))\n",
                            calls_to("concurrent.futures.as_completed")),
                           ("x = ', '.join(sorted(tags))\n", named("sorted"))]:
        module = module_from_source(source)
        node = select(module)[0]
        if isinstance(node, cst.Name):  # the sorted call itself
            node = nodes(module, cst.Call, lambda m, n: m.code(n.func) == "sorted")[0]
        assert wrap(module, node) is None


# --- PRM203 ------------------------------------------------------------------------------------

def test_sort_tools_fix_at_a_return_statement_nested_shape():
    source = '''\
    async def load_tools(servers):
        collected = []
        for finished in asyncio.as_completed([tools_from_server(p) for p in servers]):
            collected.extend(await finished)
        return collected
    '''
    build = lambda m, r: fixes.sort_tools_fix(m, r, nested=True)
    fix, new = run(source, lambda m: nodes(m, cst.Return), build)
    assert new.endswith('    return sorted(collected, key=lambda t: (t.get("function", {}).get("name", ""), '
                        't.get("type", "")))\n')
    assert fix.applicability is Applicability.SAFE


@pytest.mark.parametrize("before, select, kwargs, expected", [
    ("client.messages.create(tools=list(registry.values()))\n", lambda m: nodes(m, cst.Call)[1:2],
     {}, 'client.messages.create(tools=sorted(list(registry.values()), '
         'key=lambda t: (t.get("name", ""), t.get("type", ""))))\n'),
    ("async def f(s):\n    tools = (await s.list_tools()).tools\n", lambda m: nodes(m, cst.Attribute),
     {"objects": True}, "async def f(s):\n    tools = sorted((await s.list_tools()).tools, "
                        "key=lambda t: str(getattr(t, \"name\", None) or getattr(t, \"__name__\", \"\")))\n"),
    ("llm.bind_tools(t for t in found)\n", lambda m: nodes(m, cst.GeneratorExp), {"objects": True},
     "llm.bind_tools(sorted((t for t in found), "
     "key=lambda t: str(getattr(t, \"name\", None) or getattr(t, \"__name__\", \"\"))))\n"),
    ("c(tools=[\n    spec(t)\n    for t in reg\n])\n", lambda m: nodes(m, cst.ListComp), {"nested": True},
     'c(tools=sorted([\n    spec(t)\n    for t in reg\n], '
     'key=lambda t: (t.get("function", {}).get("name", ""), t.get("type", ""))))\n'),
])
def test_sort_tools_fix_shapes(before, select, kwargs, expected):
    assert after(before, select, lambda m, n: fixes.sort_tools_fix(m, n, **kwargs)) == expected


@pytest.mark.parametrize("before, select, expected", [
    ("c(tools=list(names))\n", lambda m: nodes(m, cst.Call)[1:2], "c(tools=sorted(names))\n"),
    ("c(tools=ts)\n", lambda m: [n for n in nodes(m, cst.Name) if n.value == "ts"], "c(tools=sorted(ts))\n"),
    ("c(tools=[n for n in s])\n", lambda m: nodes(m, cst.ListComp), "c(tools=sorted([n for n in s]))\n"),
])
def test_sort_tools_fix_of_tool_names_sorts_them_without_a_key(before, select, expected):
    """Tool names are strings: no key (a dict key such as `t.get("name")` raises on a str)."""
    fix, new = run(before, select, lambda m, n: fixes.sort_tools_fix(m, n, shape="str"))
    assert new == expected and fix.applicability is Applicability.SAFE
    with pytest.raises(AttributeError):  # what a key for tool dicts does to tool names
        sorted(["search", "calc"], key=lambda t: (t.get("name", ""), t.get("type", "")))


def test_sort_tools_fix_with_an_assumed_shape_is_display_only():
    fix, _ = run("c(tools=list(x))\n", lambda m: nodes(m, cst.Call)[1:2],
                 lambda m, n: fixes.sort_tools_fix(m, n, shape="nested", display="not seen"))
    assert fix.applicability is Applicability.DISPLAY_ONLY
    assert fix.message.startswith("Sort the tools by name (display-only: not seen;")


@pytest.mark.parametrize("shape, tools, expected", [
    ("flat", [{"name": "b"}, {"type": "web_search_preview"}, {"type": "mcp", "server_label": "x"}, {"name": "a"}],
     [{"type": "mcp", "server_label": "x"}, {"type": "web_search_preview"}, {"name": "a"}, {"name": "b"}]),
    ("nested", [{"type": "function", "function": {"name": "b"}}, {"type": "custom", "custom": {"name": "c"}},
                {"type": "function", "function": {"name": "a"}}],
     [{"type": "custom", "custom": {"name": "c"}}, {"type": "function", "function": {"name": "a"}},
      {"type": "function", "function": {"name": "b"}}]),
])
def test_tool_keys_handle_every_element_shape(shape, tools, expected):
    """Hosted tools have no name (Responses API `{"type": "web_search_preview"}`): no KeyError."""
    key = eval(fixes.KEY_FLAT if shape == "flat" else fixes.KEY_NESTED)  # our own constant
    assert sorted(tools, key=key) == expected
    assert sorted(reversed(tools), key=key) == expected


def test_object_tool_key_handles_functions_and_named_objects():
    from types import SimpleNamespace

    def lookup():
        pass
    key = eval(fixes.KEY_OBJECT)  # our own constant
    items = [SimpleNamespace(name="zeta"), lookup, SimpleNamespace(other=1), SimpleNamespace(name="alpha")]
    assert [key(i) for i in sorted(items, key=key)] == ["", "alpha", "lookup", "zeta"]


def test_sort_tools_fix_gives_nothing_for_sorted_or_bare_return():
    module = module_from_source("def f():\n    return\n\ndef g(t):\n    return sorted(t, key=k)\n")
    bare, done = nodes(module, cst.Return)
    assert fixes.sort_tools_fix(module, bare) is None
    assert fixes.sort_tools_fix(module, done) is None


# --- PRM101-PRM103: move to the end (unsafe) ---------------------------------------------------

move = fixes.move_to_end_fix


@pytest.mark.parametrize("before, expected", [
    ('p = f"""You are X.\nToday is {today}.\nRules: be nice.\n"""\n',
     'p = f"""You are X.\nRules: be nice.\nToday is {today}.\n"""\n'),
    ('def f():\n    p = f"""\n    You are X.\n    Today is {today}.\n    Rules.\n    """\n',
     'def f():\n    p = f"""\n    You are X.\n    Rules.\n    Today is {today}.\n    """\n'),
    ('p = f"""You are X.\nToday is {today}.\nRules."""\n',
     'p = f"""You are X.\nRules.\nToday is {today}."""\n'),
    ('p = f"You are X.\\nToday is {today}.\\nRules.\\n"\n',
     'p = f"You are X.\\nRules.\\nToday is {today}.\\n"\n'),
    ('p = f"""A\r\n{today}\r\nB\r\n"""\r\n', 'p = f"""A\r\nB\r\n{today}\r\n"""\r\n'),
    ('p = (\n    "You are X.\\n"\n    + f"Today {today}\\n"\n    + "Rules\\n"\n)\n',
     'p = (\n    "You are X.\\n"\n    + "Rules\\n"\n    + f"Today {today}\\n"\n)\n'),
    ('p = ("You are X.\\n"\n     f"Today {today}\\n"\n     "Rules\\n")\n',
     'p = ("You are X.\\n"\n     "Rules\\n"\n     f"Today {today}\\n")\n'),
    ('p = f"""Intro\nToday {today}\n<rules>\nBe brief.\n</rules>\n"""\n',
     'p = f"""Intro\n<rules>\nBe brief.\n</rules>\nToday {today}\n"""\n'),
    ('p = f"""\\\nToday {today}.\nRules.\n"""\n', 'p = f"""\\\nRules.\nToday {today}.\n"""\n'),
    ('p = ("Intro\\n" + f"Now {today}\\n"\n     + "Rules\\n")\n', 'p = ("Intro\\n" + "Rules\\n"\n     + f"Now {today}\\n")\n'),
    ('p = f"""{today:%Y-%m-%d} {{braces}}\nStatic\n"""\n', 'p = f"""Static\n{today:%Y-%m-%d} {{braces}}\n"""\n'),
    # a line of constants only is static text (`{GUIDE}`): offered; the fixer keeps it only when
    # the fixed prompt caches more (tests/test_fix_safety.py)
    ('p = f"""A\n{today} x\n{GUIDE}\n"""\n', 'p = f"""A\n{GUIDE}\n{today} x\n"""\n'),
    ('p = f"Time {today}\\n{GUIDE}"\n', 'p = f"{GUIDE}\\nTime {today}"\n'),
    # a whole line takes the blank lines after it along: the paragraph break stays between the texts
    ('p = f"Asks: {today}\\n\\n{GUIDE}"\n', 'p = f"{GUIDE}\\n\\nAsks: {today}"\n'),
    ('p = f"""Intro\nToday {today}\n\nRules.\n"""\n', 'p = f"""Intro\nRules.\n\nToday {today}\n"""\n'),
])
def test_move_to_end_fix(before, expected):
    fix, new = run(before, named("today"), move)
    assert new == expected
    assert fix.applicability is Applicability.UNSAFE
    assert fix.message == "Move `today` to the end of the prompt text"


@pytest.mark.parametrize("source", [
    'p = f"Today is {today}. You are X."\n',                                  # one line
    'p = f"""A\n{today} x\n"""\n',                                             # nothing after
    'p = f"""A\n{today} x\n{other}\n"""\n',                                   # nothing known static after
    'p = "x" + today\n',                                                      # already last
    'p = base + [today] + ["x"]\n',                                           # a list, not text
    'p = a + today + b\n',                                                    # not known to be str
    'p = (\n    "A"  # why\n    + today\n    + "B"\n)\n',                     # comment between
    'p = "Today {}. Rules".format(today)\n',                                  # str.format
    'p = rf"A\\n{today}\\nB"\n',                                              # raw: \n is no break
    'p = "You are X. " + today + " Rules."\n',                               # a fragment of a line
    'p = "Tokens: " f"{today}\\n" "Rules\\n"\n',                               # label and value
    'p = (f"Error: {today}\\n"\n     "Fix it!")\n',                              # would glue lines
    'p = "A\\n" + str(today) + "\\n" + "B\\n"\n',                               # not a literal
    'p = f"""<context>\nToday {today}\n</context>\nRules.\n"""\n',               # out of a tag block
    'p = f"""```\n{today}\n```\nRules.\n"""\n',                                  # out of a code fence
    'p = f"""  script:\n    set x to {today}\n  end\n"""\n',                      # to a shallower indent
    'p = f"""# Date\n{today}\n# Rules\nBe brief.\n"""\n',                       # into another section
    'p = f"""Goal:\n{today}\nRules.\n"""\n',                                    # the value of a label
    'p = f"""<Question>\n{today}\n<Answer>\nNone.\n"""\n',                       # under a header tag
    'p = f"""Schema (\n  {today}\n)\nRules.\n"""\n',                             # out of brackets
    'p = f"""run({{\n{today}\n}})\nRules.\n"""\n',                               # out of braces
    'p = f"""x = \\"\n{today}\n\\"\nRules.\n"""\n',                                # out of a quote
    'p = f"""Items ({today},\n  more).\nRules.\n"""\n',                          # opens a bracket
])
def test_move_to_end_fix_gives_nothing_when_not_sure(source):
    module = module_from_source(source)
    assert move(module, named("today")(module)[0]) is None


@pytest.mark.parametrize("before, expected", [
    # a line shared with other sentences: only the value's sentence moves, with one space
    ('p = f"""You are X. The time is {today}. Answer briefly.\nUse the documents.\n"""\n',
     'p = f"""You are X. Answer briefly.\nUse the documents.\nThe time is {today}.\n"""\n'),
    ('p = f"""You are X. The time is {today}.\nUse the documents.\n"""\n',
     'p = f"""You are X.\nUse the documents.\nThe time is {today}.\n"""\n'),
    ('p = f"""The time is {today}. You are X.\nUse the documents.\n"""\n',
     'p = f"""You are X.\nUse the documents.\nThe time is {today}.\n"""\n'),
    ('def f():\n    p = f"""\n    Intro. Now {today}. Rest {x}.\n    Static.\n    """\n',
     'def f():\n    p = f"""\n    Intro. Rest {x}.\n    Static.\n    Now {today}.\n    """\n'),
    ('p = f"You are X. Now {today}.\\nRules.\\n"\n', 'p = f"You are X.\\nRules.\\nNow {today}.\\n"\n'),
])
def test_move_to_end_fix_takes_only_the_sentence_of_a_shared_line(before, expected):
    fix, new = run(before, named("today"), move)
    assert new == expected
    words = lambda text: sorted(text.replace("\\n", " ").replace('"', " ").split())
    assert words(new) == words(before)  # prompt text intact: the same words, none glued


@pytest.mark.parametrize("source", [
    'p = f"""You are X and the time is {today}, so answer\nwith the time in mind.\nRules.\n"""\n',
    'p = f"""You are X, answer\nthe question at {today} with care.\nRules.\n"""\n',
    'p = f"""A. B {today} C {other}. D.\nRules.\n"""\n',             # the sentence holds another field
    'p = ("Intro\\n"\n     f"Now: {today}"\n     "Given a query, answer it.\\n")\n',  # would glue
])
def test_move_to_end_fix_never_splits_a_sentence_or_glues_text(source):
    module = module_from_source(source)
    assert move(module, named("today")(module)[0]) is None


def test_move_to_end_fix_with_caller_defined_static_operands():
    source = 'p = "Intro\\n" + f"Today {today}\\n" + RULES + "\\n"\n'
    module = module_from_source(source)
    today = named("today")(module)[0]
    assert move(module, today) is None  # a name is not known to be static
    static = lambda node: isinstance(node, cst.Name) and node.value.isupper()
    fix = move(module, today, is_static=static)
    assert apply_edits(source, fix.edits) == 'p = "Intro\\n" + RULES + "\\n" + f"Today {today}\\n"\n'


def test_move_to_end_fix_converges_and_keeps_the_order_of_volatile_lines():
    source = 'p = f"""{a}\n{b}\nStatic one.\nStatic two.\n"""\n'
    for _ in range(5):
        module = module_from_source(source)
        fixes_found = [move(module, n) for n in named("a")(module) + named("b")(module)]
        applicable = [f for f in fixes_found if f is not None]
        if not applicable:
            break
        source = apply_edits(source, applicable[0].edits)
        compile(source, "example.py", "exec")
    assert source == 'p = f"""Static one.\nStatic two.\n{a}\n{b}\n"""\n'


def test_move_to_end_fix_accepts_the_field_node():
    source = 'p = f"""A {today}\nB\n"""\n'
    fields = lambda m: nodes(m, cst.FormattedStringExpression)
    assert after(source, fields, move) == 'p = f"""B\nA {today}\n"""\n'


# --- shared guarantees -------------------------------------------------------------------------

def test_edits_come_from_nodes_even_with_parenthesised_tuples():
    # PositionProvider leaves a node's own parentheses out; the builder must put them back in
    assert after("x = ', '.join((a, b))\n", lambda m: nodes(m, cst.Tuple), wrap) == \
        "x = ', '.join(sorted((a, b)))\n"
    assert after("x = ', '.join(( # c\n  s ))\n", named("s"), wrap) == \
        "x = ', '.join(sorted(( # c\n  s )))\n"
