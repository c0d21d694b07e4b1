"""Links between Python (on the `ast` analysis) and the files it reads: rendered templates and config strings.

Hooks the evaluator calls: `template_hook` for `.render(...)` of a Jinja template
(`Environment(loader=FileSystemLoader(...)).get_template("x.j2")`, `jinja2.Template("...")`,
`env.from_string(...)`) and `config_hook` to place a config string at its line in the YAML / TOML /
JSON file. The template is parsed, never rendered: its placeholders take the classification of
the values passed to `render(...)` (docs/policies.md, Policy 8: the finding goes on the placeholder, the
binding is its related location).
"""
from __future__ import annotations

from ..model import replace
from functools import lru_cache
from pathlib import Path

from .. import source
from ..model import Kind, Segment, Volatility
from .flow.values import Alt, Mapping, Obj, PathV, Text, branch_keys, most_volatile
from .template_items import item_bindings

_TEMPLATE_CTORS = ("jinja2.Template", "jinja2.environment.Template")


def config_hook(path, text, keys):
    """(value text, Position of its first character, verbatim) of a config value, or None."""
    try:
        from ..templates.config_strings import locate_value
    except ImportError:  # pragma: no cover
        return None
    try:
        return locate_value(path, text, keys)
    except Exception:
        return None


def _binding(evaluator, value, frame) -> Segment | None:
    segs = evaluator.text_of(value, frame)
    src = most_volatile(segs)
    if src is not None:
        return src
    if segs and all(s.is_static for s in segs):
        return Segment(text="".join(s.text for s in segs), span=segs[0].span, truth=segs[0].truth if len(segs) == 1 else None)
    return None


def _search_paths(env_obj, evaluator, frame) -> list[Path]:
    """The static folders of an Environment's FileSystemLoader, or of a PackageLoader of a
    package of the analysed tree (`PackageLoader("app.orchestration", "prompt_templates")`: that
    folder of the package; "templates" by default)."""
    if not isinstance(env_obj, Obj):
        return []
    loader = env_obj.kwargs.get("loader") or (env_obj.args[0] if env_obj.args else None)
    if isinstance(loader, Obj) and loader.qualname.endswith("PackageLoader"):
        package = _const(loader.kwargs.get("package_name") or (loader.args[0] if loader.args else None))
        given = loader.kwargs.get("package_path") or (loader.args[1] if len(loader.args) > 1 else None)
        folder = _const(given) if given is not None else "templates"
        found = evaluator.project.find(package) if package and folder else None
        if found is None or found.path.name != "__init__.py":
            return []
        return [found.path.parent / folder]
    if not isinstance(loader, Obj) or not loader.qualname.endswith("FileSystemLoader"):
        return []
    arg = loader.kwargs.get("searchpath") or (loader.args[0] if loader.args else None)
    items = arg.items if hasattr(arg, "items") and isinstance(getattr(arg, "items"), list) else [arg]
    out = []
    for item in items:
        if isinstance(item, PathV) and item.path is not None:
            out.append(item.path)
        elif isinstance(item, Text) and item.segs and all(s.is_static for s in item.segs):
            p = Path("".join(s.text for s in item.segs))
            out.append(p if p.is_absolute() else frame.module.path.parent / p)
    return out


def _prompt_file_named(module_path: Path, name: str) -> Path | None:
    """The only prompt file (templates/prompt_files.is_prompt_file: under a folder named for
    prompts, named by the code) called `name` in the project of `module_path`; None when there is
    none or several (which one a loader of an unknown folder reads is not known)."""
    from ..templates.prompt_files import is_prompt_file
    from ..templates.references import note_tree
    if "/" in name or "\\" in name or not name:
        return None
    root = module_path.parent
    while (root / "__init__.py").is_file() and root.parent != root:
        root = root.parent
    found = [p for p in _files_named(root).get(name, ()) if is_prompt_file(p)]
    note_tree(root)
    return found[0] if len(found) == 1 and source.is_file(found[0]) else None


@lru_cache(maxsize=16)
def _files_named(root: Path) -> dict[str, tuple[Path, ...]]:
    """File name -> the files of that name under `root` (hidden and tool folders left out)."""
    import os
    from ..templates.references import _SKIP
    out: dict[str, list[Path]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP and not d.startswith("."))
        for name in files:
            if not name.endswith((".py", ".pyc")):
                out.setdefault(name, []).append(Path(folder) / name)
    return {k: tuple(v) for k, v in out.items()}


def template_hook(evaluator, base, node, args, kwargs, frame, env):
    """The segments of a rendered template (Text), or None when it is not known statically."""
    from ..templates.jinja import template_segments
    from .inline_jinja import VIRTUAL, placed
    from .module import display_name
    if not isinstance(base, Obj) or node.func.attr != "render":
        return None
    name = base.qualname.rsplit(".", 1)[-1]
    path = text = span = mixed = None
    literal: list[Segment] = []
    search: list[Path] = []
    if name == "get_template" and len(base.args) >= 2:
        env_obj, tmpl = base.args[0], base.args[1]
        tname = _const(tmpl)
        search = _search_paths(env_obj, evaluator, frame)
        if tname is None:
            return None
        for folder in search:
            if source.is_file(folder / tname):  # a dependency of the analysis, found or not
                path = folder / tname
                break
        if path is None and not search:
            # a helper that takes a file name and builds its loader from a folder the analysis
            # cannot read (`render_prompt("detect_pii.txt", ctx)`): the one prompt file of that name
            path = _prompt_file_named(frame.module.path, tname)
    elif (base.qualname.endswith(_TEMPLATE_CTORS) or name == "from_string") and base.args:
        # `jinja2.Template(text)` keeps the module object as its first argument: take the text
        texts = [a for a in base.args if isinstance(a, Text)]
        src = _read_option(base.args[-1] if name == "from_string" else (texts[0] if texts else base.args[0]))
        if isinstance(src, Text) and _mixed(src):
            mixed = src
        elif isinstance(src, Text) and src.segs and all(s.is_static for s in src.segs):
            text = "".join(s.text for s in src.segs)
            span, literal = src.segs[0].span, list(src.segs)
            path = Path(span.filename) if span is not None else frame.module.path
            if span is not None and span.filename != frame.module.filename and span.start.row == span.start.column == 1:
                text = None  # the whole text of a file: read the template as that file
    if mixed is not None:  # a template joined from a value not read and static text: each literal's own
        path, text = frame.module.path, "".join(seg.text for seg in mixed.segs if seg.is_static)
    if path is None:
        return None
    bindings: dict[str, Segment] = {}
    values = {k: evaluator.eval(v, frame, env) for k, v in kwargs.items()}
    for kw in node.keywords:  # `render(**kw)`: the keywords passed along
        if kw.arg is None:
            forwarded = branch_keys(evaluator.eval(kw.value, frame, env))
            if isinstance(forwarded, Mapping):
                values = {**forwarded.items, **values}
    if args:
        first = branch_keys(evaluator.eval(args[0], frame, env))
        if isinstance(first, Mapping):
            values = {**first.items, **values}
    for key, value in values.items():
        seg = _binding(evaluator, value, frame)
        if seg is not None:
            if seg.span is None or seg.kind is not None and seg.volatility is not Volatility.STABLE:
                seg = _with_binding_span(seg, frame.module, kwargs.get(key))
            bindings[key] = seg
    for dotted, seg in _attribute_bindings(evaluator, values, frame, path, text).items():
        bindings.setdefault(dotted, seg)
    for dotted, seg in item_bindings(evaluator, values, kwargs, frame, path, text).items():
        bindings.setdefault(dotted, seg)
    if mixed is not None:
        from .inline_jinja import jinja_text
        return Text(jinja_text(mixed.segs, bindings))
    try:
        # a Python literal's template is placed in its literal (below); a config string's
        # (a YAML / TOML value) is placed at its line by `config_hook`
        in_python = text is not None and bool(literal) and span is not None and span.filename.endswith(".py")
        result = template_segments(path, display_name(path) if text is None else
                                   VIRTUAL if in_python else frame.module.filename,
                                   text=text, bindings=bindings, search_paths=search)
    except OSError:
        return None
    if result.errors:
        return None
    if in_python:
        # the template's rows count from the literal's start: placed where the literal writes
        # them, in its own file (a helper of another module may render it)
        return Text(placed(result.segments, literal, span))
    return Text(result.segments)



def _mixed(text: Text) -> bool:
    """True for a template's text (`from_string(prefix + TEMPLATE)`) joined from a value the
    analysis does not read (a choice between prefixes, a parameter) and static text that holds Jinja
    syntax: the static parts are read as templates of their own (`inline_jinja.jinja_text`), so
    their `{{ placeholders }}` are not drawn as static text."""
    from .inline_jinja import jinja_written
    return any(not seg.is_static for seg in text.segs) \
        and any(seg.is_static and seg.span is not None and jinja_written(seg.text) for seg in text.segs)


def _read_option(src):
    """The template text of `from_string(custom if custom else DEFAULT)`: an override the analysis
    cannot read (a parameter) leaves the one text it reads (as a rendered `Alt` of templates,
    `methods.py`); the value itself when it is not such a choice."""
    if not isinstance(src, Alt):
        return src
    read = [o for o in src.options if isinstance(o, Text) and o.segs and all(s.is_static for s in o.segs)]
    return read[0] if len(read) == 1 else src


def _attribute_bindings(evaluator, values: dict, frame, path, text) -> dict[str, Segment]:
    """Segments for the attribute paths a template reads of the objects passed to it
    (`task.depends_on` of `render(task=task)` with `task` an instance of a class of the tree):
    only those whose order or value is known to vary (a set, a listing; a uuid or a clock
    reading that is not only a name). Their span is where Python makes the value (the field's
    annotation, the `set()` in `__init__`): the template's tag is where it enters the prompt."""
    from ..templates.jinja import attribute_paths, read_template
    roots = [k for k, v in values.items() if isinstance(v, Obj) and v.qualname.startswith(("instance:", "self:"))]
    if not roots:
        return {}
    if text is None:
        text = read_template(path)
    out: dict[str, Segment] = {}
    for dotted in attribute_paths(text or "", roots):
        head, *attrs = dotted.split(".")
        value = values[head]
        for attr in attrs:
            value = evaluator.attr_of(value, attr, None, frame) if value is not None else None
        seg = _binding(evaluator, value, frame) if value is not None else None
        if seg is not None and _varies(seg):
            out[dotted] = replace(seg, origin_note=f"value of `{dotted}` made here")
    return out


def _varies(seg: Segment) -> bool:
    """True for a segment whose order or value is known to vary between requests or processes."""
    if seg.kind is Kind.UNORDERED_ITERATION:
        return True
    return seg.kind in (Kind.UNIQUE_ID, Kind.TIMESTAMP) and not seg.name_only and seg.volatility is not Volatility.UNKNOWN


def _with_binding_span(seg: Segment, module, node) -> Segment:
    if node is None:
        return seg
    return replace(seg, span=module.span(node), origin=seg.origin or seg.span)


def _const(value) -> str | None:
    if isinstance(value, Text) and value.segs and all(s.is_static for s in value.segs):
        return "".join(s.text for s in value.segs)
    return None
