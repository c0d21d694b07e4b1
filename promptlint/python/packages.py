"""The Python files of one package tree and the names each assigns: the text search behind
`Project.definitions`, and its dependency for the persistent cache.

A search for the files that assign NAME is recorded as one dependency, "search:ROOT\0NAME" (see
`promptlint.reads`), whose state is "SNAPSHOT:MATCHES": SNAPSHOT the digest of every file of the
package and its state, MATCHES the digest of the files that assign the name. `search_valid`
checks it again without scanning the package when no file of it changed. Kept apart from the
parser so that the cache checks it without importing the analysis.
"""
from __future__ import annotations

import ast
import hashlib
import os
import re
import sys
from pathlib import Path

from .. import reads, source
from .walk import nodes_under

MAX_TREE_FILES = 20_000  # a folder with more Python files is not a package tree (a home, a disk)
_SKIP = ("node_modules", "__pycache__", "venv", "site-packages")
#: A line that assigns a name at its start (`NAME = ...`, `NAME: T = ...`): linear (one line each).
#: Matched in "\n" + text, so that the pattern starts with a literal the engine looks for quickly
#: (the same matches as `^...` with re.M, which is tried at every character: half again as slow).
_ASSIGNED_NAME = re.compile(r"\n[ \t]*([^\W\d]\w*)[ \t]*(?::[^=\n]*)?=")
#: A call of a name (`name(`, `mod.name(`, not `a.b.name(`): the files that may call a function of
#: another module. Matched in the reversed text, so that the pattern starts with the literal `(`:
#: the same matches as `(?<![\w.])(?:[^\W\d]\w*\.)?([^\W\d]\w*)[ \t]*\(` on the text, whose
#: look-behind is tried at every character (ten times as slow: 4 s for the corpus' 29 M characters).
_CALLED_NAME_REVERSED = re.compile(r"\([ \t]*(\w*[^\W\d])(?:(?![\w.])|\.\w*[^\W\d](?![\w.]))")
SEARCH = "search:"
CALLS = "call:"  # a search for the files that call NAME is for the name "call:NAME"
PARAMS = "param:"  # a search for the files that define a function with a parameter NAME
BASES = "base:"  # a search for the files that define a class naming NAME among its bases
DEFS = "def:"  # a search for the files that define a function or method named NAME
#: The bases of a `class` statement (up to its first `)`: a pre-filter, the AST confirms).
_CLASS_BASES = re.compile(r"class[ \t]+\w+[ \t]*\(([^)]*)\)")
_BASE_NAME = re.compile(r"[^\W\d]\w*")
#: The parameter list of a `def` (up to its first `)`; no word boundary, which is tried at every
#: character: a pre-filter, the AST confirms) and the
#: names in it followed by `:`, `=`, `,` or its end.
_DEF_PARAMS = re.compile(r"def[ \t]+\w+[ \t]*\(([^)]*)\)")
#: The name of a `def` (a pre-filter, as `_DEF_PARAMS`).
_DEF_NAME = re.compile(r"def[ \t]+([^\W\d]\w*)[ \t]*\(")
_PARAM_NAME = re.compile(r"([^\W\d]\w*)[ \t]*(?=[:=,]|$)")
MARKERS = "markers:"  # a search for the files that name a cache breakpoint key (`MARKER_WORDS`)
#: The keys of a cache breakpoint in a request body: Anthropic's block and top-level
#: `cache_control`, Bedrock Converse's `cachePoint` block, OpenAI's `prompt_cache_breakpoint`.
MARKER_WORDS = ("cache_control", "cachePoint", "prompt_cache_breakpoint")
MARKER_WRITERS = "marker-writers:"  # a search for the files that write a breakpoint on what others send (`writes_markers`)
#: Send calls of the SDKs in a module's text: a module holding one sends requests of its own.
_SENDS = ("messages.create(", "messages.stream(", "chat.completions.create(", "responses.create(", ".converse(",
          ".converse_stream(", "completion(", "invoke_model(", "generate_content(")
MARKER_READS = "marker-reads:"  # a search for the files that read a breakpoint off a block (`_MARKER_READ`)
#: A breakpoint key read off an object: `block.get("cache_control")`, `"cache_control" in block`,
#: `x = block["cache_control"]` (not an assignment to it); the object's name is checked apart (`reads_markers`).
_MARKER_READ = re.compile(r"""(\w+)\.get\(\s*["']cache_control["']|["']cache_control["']\s+in\s+(\w+)"""
                          r"""|(\w+)\[["']cache_control["']\](?![ \t]*=[^=])""")
#: The characters a match of `_MARKER_READ` may hold before the quote of its key (`block.get(  "`, `block["`).
_MARKER_LEAD = re.compile(r"[\w\s.(\[]")
CLAUDE = "claude:"  # a search for the files that write a Claude model name (`CLAUDE_NAME`)
#: A string literal that is a Claude model name, with or without a provider's prefix:
#: "claude-sonnet-4-5", "anthropic/claude-3-haiku", "bedrock/us.anthropic.claude-3-5-sonnet-v2:0".
CLAUDE_NAME = re.compile(r"""["'][\w./:@-]*claude-[\w.:@-]*["']""")
#: A LiteLLM model name built under Anthropic's provider prefix (`f"anthropic/{model}"`): the
#: package sends its configured model to Claude (a `CLAUDE` match as a Claude name is).
CLAUDE_ROUTE = re.compile(r"""\bf["']anthropic/\{""")


class Package:
    """The `.py` files of one package tree (`python_files`), the state of each (`reads`), an
    index of the names each assigns at the start of a line, one of the names each calls
    (`name(...)` or `module.name(...)`), the files whose text names a cache breakpoint key
    (`markers`: indexes into `files`), those of them that read one off a block of what they are
    handed (`marker_reads`), those that write a Claude model name (`claude`) and, by name, those
    that define a class naming it among its bases (`bases`), and those that define a function or
    method of that name (`defs`)."""

    def __init__(self, files: list[Path], states: list[str | None], names: dict[str, list[int] | int],
                 calls: dict[str, list[int] | int] | None = None, markers: list[int] | None = None,
                 params: dict[str, list[int] | int] | None = None, claude: list[int] | None = None,
                 bases: dict[str, list[int] | int] | None = None, marker_reads: list[int] | None = None,
                 marker_writers: list[int] | None = None, defs: dict[str, list[int] | int] | None = None):
        self.files, self.states, self.names = files, states, names
        self.calls = calls or {}
        self.params = params or {}
        self.bases = bases or {}
        self.defs = defs or {}
        self.markers = markers or []
        self.claude = claude or []
        self.marker_reads = marker_reads or []
        self.marker_writers = marker_writers or []
        self.snapshot = digest_paths(f"{f}\0{s}" for f, s in zip(files, states))

    @classmethod
    def scan(cls, root: Path) -> "Package":
        """Read every file of the package under `root` (not recorded one by one as dependencies:
        the search is, as a whole)."""
        files = python_files(root)
        states: list[str | None] = []
        names: dict[str, list[int]] = {}
        calls: dict[str, list[int]] = {}
        params: dict[str, list[int]] = {}
        bases: dict[str, list[int]] = {}
        defs: dict[str, list[int]] = {}
        markers: list[int] = []
        claude: list[int] = []
        marker_reads: list[int] = []
        marker_writers: list[int] = []
        for i, path in enumerate(files):
            text, state = _read_unrecorded(path)
            states.append(state)
            if text is None:
                continue
            named = marker_uses(text) if any(word in text for word in MARKER_WORDS) else (False, False)
            if named[0]:
                markers.append(i)
                if named[1] and not any(call in text for call in _SENDS):
                    marker_writers.append(i)
                if reads_markers(text):
                    marker_reads.append(i)
            if "claude-" in text and CLAUDE_NAME.search(text) or "anthropic/{" in text and CLAUDE_ROUTE.search(text):
                claude.append(i)
            for name in assigned_names(text):
                _add(names, name, i)
            for name in called_names(text):
                _add(calls, name, i)
            if "def" in text:
                for name in param_names(text):
                    _add(params, name, i)
                for name in dict.fromkeys(_DEF_NAME.findall(text)):
                    _add(defs, name, i)
            if "class" in text:
                for name in base_names(text):
                    _add(bases, name, i)
        return cls(files, states, names, calls, markers, params, claude, bases, marker_reads, marker_writers, defs)

    def matching(self, name: str) -> list[Path]:
        """The files that assign `name`, for "call:NAME" the files that call NAME, for "base:NAME"
        those that define a class with NAME among its bases, for "def:NAME" those that define a function
        NAME, for "markers:" the files that name a
        cache breakpoint key, for "claude:" those that write a Claude model name."""
        if name == MARKERS:
            return [self.files[i] for i in self.markers]
        if name == CLAUDE:
            return [self.files[i] for i in self.claude]
        if name == MARKER_READS:
            return [self.files[i] for i in self.marker_reads]
        if name == MARKER_WRITERS:
            return [self.files[i] for i in self.marker_writers]
        if name.startswith(CALLS):
            found = self.calls.get(name[len(CALLS):], ())
        elif name.startswith(PARAMS):
            found = self.params.get(name[len(PARAMS):], ())
        elif name.startswith(BASES):
            found = self.bases.get(name[len(BASES):], ())
        elif name.startswith(DEFS):
            found = self.defs.get(name[len(DEFS):], ())
        else:
            found = self.names.get(name, ())
        return [self.files[found]] if type(found) is int else [self.files[i] for i in found]


def names_markers(text: str) -> bool:
    """True when the code of `text` names a cache breakpoint key (`marker_uses`)."""
    return marker_uses(text)[0]


def marker_uses(text: str) -> tuple[bool, bool]:
    """(names, writes): whether the code of `text` names a cache breakpoint key (`MARKER_WORDS`)
    in a string that is not a docstring (`"cache_control"`, a message), a name, an attribute, a
    parameter or a keyword (`add_cache_control=True`), not in a comment or a docstring alone (a
    converter whose docstring says that `cache_control` markers survive sets none); and whether
    it writes one: a key of a dict display, a subscript assigned (`block["cache_control"] =
    ...`), a keyword argument (`cache_control=...`). A text that does not parse: (True, True),
    as the word is there. A key written as a string (`"cache_control"`) is read off the text
    (`_QUOTED_KEY`, `_WRITTEN_KEY`) without parsing it, and so is a key used as code (`_CODE_KEY`);
    the file is parsed only to tell a docstring or a comment from code. In a file that writes the
    HTTP `Cache-Control` header (`_HTTP_CACHE`: the header's quoted name, Django's `cache_control`
    decorator, Werkzeug's `response.cache_control.max_age`), an unquoted `cache_control` is that
    header's (`cache_control = "private, no-cache"`), not a breakpoint: only a quoted key counts."""
    if _HTTP_CACHE.search(text):
        text = _HTTP_NAME.sub("http_cache", text)
    if _QUOTED_KEY.search(text) or _CODE_KEY.search(text):
        return True, _WRITTEN_KEY.search(text) is not None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return True, True
    nodes = nodes_under(tree)  # (one walk for both passes)
    docs = {id(body[0].value) for node in nodes
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and (body := node.body) and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)}
    names = writes = False
    for node in nodes:
        if isinstance(node, ast.Dict):
            writes = writes or any(isinstance(k, ast.Constant) and _is_marker(k.value) for k in node.keys)
        elif isinstance(node, ast.Assign):
            writes = writes or any(isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant)
                                   and _is_marker(t.slice.value) for t in node.targets)
        elif isinstance(node, ast.Constant):
            names = names or (isinstance(node.value, str) and id(node) not in docs and _is_marker(node.value))
        elif isinstance(node, ast.Name):
            names = names or _is_marker(node.id)
        elif isinstance(node, ast.Attribute):
            names = names or _is_marker(node.attr)
        elif isinstance(node, ast.keyword):
            found = _is_marker(node.arg or "")
            names, writes = names or found, writes or found
        elif isinstance(node, ast.arg):
            names = names or _is_marker(node.arg)
        if names and writes:
            break
    return names or writes, writes


_KEYS = "(?:cache_control|cachePoint|prompt_cache_breakpoint)"
#: A breakpoint key written as a string: code names it (a docstring seldom quotes it).
_QUOTED_KEY = re.compile(rf"""["']{_KEYS}["']""")
#: A breakpoint key used as code: an attribute, a keyword or name assigned, called, indexed or
#: annotated (`self.cache_control`, `add_cache_control: bool`, `cache_control=...`).
_CODE_KEY = re.compile(rf"""\.{_KEYS}|{_KEYS}\w*\s*(?:=|\(|\[|:\s*\w)""")
#: A breakpoint key written: a dict key (`"cache_control": ...`), a subscript assigned
#: (`block["cache_control"] = ...`), a keyword or name assigned (`cache_control=...`).
_WRITTEN_KEY = re.compile(rf"""["']{_KEYS}["']\s*:|\[\s*["']{_KEYS}["']\s*\]\s*=(?!=)|{_KEYS}\w*\s*=(?!=)""")


#: What names the HTTP `Cache-Control` header (a response's caching, not a prompt's): its quoted
#: name (any case), Django's decorator module, Werkzeug's and Flask's `response.cache_control.<directive>`.
_HTTP_CACHE = re.compile(r"""["']cache-control["']|views\.decorators\.cache\b|\.cache_control\.(?:max_age|s_maxage|"""
                         r"""no_cache|no_store|no_transform|public|private|must_revalidate|immutable)\b""", re.I)
#: An unquoted identifier that holds `cache_control` (a name, attribute or keyword: `set_cache_control`).
_HTTP_NAME = re.compile(r"""(?<!["'])\b\w*cache_control\w*""")


def _is_marker(word) -> bool:
    return isinstance(word, str) and any(w in word for w in MARKER_WORDS)


def reads_markers(text: str) -> bool:
    """True when `text` reads a `cache_control` key off an object not named for tools
    (`block.get("cache_control")`, `"cache_control" in part`): breakpoints written on the blocks
    it is handed are carried on. The matches of `_MARKER_READ.finditer(text)`, in order: every
    match holds a quoted `cache_control`, and what comes before its quote in the match is made of
    `_MARKER_LEAD` characters only, so the pattern is tried only at the positions of such a run
    before each quoted key (a scan of the whole text, a pattern with no literal start, cost more
    than the rest of a package's index; 1.9 s for pydantic-ai's)."""
    end = 0  # where the last match ended: as `finditer`, the next starts there at the earliest
    at = text.find("cache_control")
    while at != -1:
        quote = at - 1
        if quote >= end and text[quote] in "\"'":
            lead = quote
            while lead > end and _MARKER_LEAD.match(text, lead - 1) is not None:
                lead -= 1
            for start in range(lead, quote + 1):
                m = _MARKER_READ.match(text, start)
                if m is not None:
                    name = (m.group(1) or m.group(2) or m.group(3) or "").lower()
                    if "tool" not in name and "function" not in name and name not in ("kwargs", "params", "options"):
                        return True
                    end = m.end()
                    break
        at = text.find("cache_control", at + 1)
    return False


def _add(index: dict, name: str, i: int) -> None:
    """Note that file `i` holds `name` in a package index: the name interned (the same name in
    the three indexes and in every file is one string) and, for a name of one file only (most
    of them), the file's number itself rather than a list of one. A big tree's indexes then
    take about half the memory (litellm: 3,133 files, 59 MiB before)."""
    found = index.get(name)
    if found is None:
        index[sys.intern(name)] = i
    elif type(found) is int:
        index[name] = [found, i]
    else:
        found.append(i)


def assigned_names(text: str) -> list[str]:
    """The names assigned at the start of a line of `text`, each once, in order of appearance."""
    return list(dict.fromkeys(_ASSIGNED_NAME.findall("\n" + text)))  # (one group: `findall` gives it, no match objects)


def called_names(text: str) -> list[str]:
    """The names called in `text` (`name(`, `mod.name(`), each once, in order of appearance."""
    names = [name[::-1] for name in _CALLED_NAME_REVERSED.findall(text[::-1])]
    names.reverse()
    return list(dict.fromkeys(names))


def param_names(text: str) -> list[str]:
    """The names of the parameters of the functions defined in `text` (`def f(a, b: int = 1)`:
    a, b), each once; a pre-filter (a default holding `)` ends the list early)."""
    names = [name for params in _DEF_PARAMS.findall(text) for name in _PARAM_NAME.findall(params)]
    return list(dict.fromkeys(names))


def base_names(text: str) -> list[str]:
    """The names written among the bases of the classes defined in `text` (`class A(pkg.Base,
    Generic[T])`: pkg, Base, Generic, T), each once; a pre-filter (the AST confirms)."""
    names = [name for bases in _CLASS_BASES.findall(text) for name in _BASE_NAME.findall(bases)]
    return list(dict.fromkeys(names))


def python_files(root: Path) -> list[Path]:
    """The .py files of one package tree, sorted (at most about `MAX_TREE_FILES`): hidden
    folders, virtualenvs, `node_modules`, `__pycache__` and `site-packages` are skipped. A tree
    that is one module (a top-level module of site-packages) is that file."""
    if root.suffix == ".py" and os.path.isfile(root):
        return [root]
    files: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=lambda exc: None):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP
                             and not os.path.exists(os.path.join(dirpath, d, "pyvenv.cfg")))
        files.extend(Path(dirpath) / f for f in filenames if f.endswith(".py"))
        if len(files) > MAX_TREE_FILES:
            break
    return sorted(files)


def search_key(root: Path, name: str) -> str:
    """The dependency key of a `definitions` search for `name` in the package tree at `root`."""
    return f"{SEARCH}{reads.key_of(root)}\0{name}"


def search_valid(key: str, recorded: str, state_of, snapshots: dict | None = None) -> bool:
    """Whether a "search:" dependency recorded as `recorded` still holds: `state_of(path key)`
    gives a file's current state (`source.current_state`, memoised by the caller), `snapshots` memoises
    the snapshot digest of each package (and the scan of a changed one). The package is scanned again only when one of its
    files changed (its snapshot differs); the search holds when the same files assign the name
    (their texts are dependencies of their own)."""
    root, _, name = key[len(SEARCH):].partition("\0")
    snapshot, _, matches = recorded.partition(":")
    snapshots = snapshots if snapshots is not None else {}
    if root not in snapshots:
        snapshots[root] = digest_paths(f"{f}\0{state_of(reads.key_of(f))}" for f in python_files(Path(root)))
    if snapshots[root] == snapshot:
        return True
    scanned = snapshots.get((SEARCH, root))
    if scanned is None:  # one scan of a changed package for all the searches recorded over it
        scanned = snapshots[(SEARCH, root)] = Package.scan(Path(root))
    return digest_paths(scanned.matching(name)) == matches


def _read_unrecorded(path: Path) -> tuple[str | None, str | None]:
    text = source.overlay_text(path)
    if text is not None:
        return text, reads.overlay_digest(text)
    try:
        data = source.read_bytes(path, record=False)
    except source.SourceError:
        return None, None
    try:
        return source.decode_python(data), reads.digest(data)
    except source.SourceError:
        return None, reads.digest(data)


def digest_paths(items) -> str:
    h = hashlib.sha256()
    for item in items:
        h.update(str(item).encode("utf-8", "surrogatepass"))
        h.update(b"\n")
    return h.hexdigest()[:32]
