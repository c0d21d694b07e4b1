"""File extensions by what the file holds: the one registry of the extensions that are never prompt
text (a file of one of them is read as a prompt only when a glob of the configuration names it).

A prompt file is prose the model reads: plain text, Markdown, reStructuredText, or a format of its
own (`.prompt`, `.prompty`, Jinja templates). What a project keeps beside its prompts under
`templates/` or `prompts/` may also be source code (a Lua filter for pandoc, a JavaScript snippet),
typeset or styled markup (a LaTeX template, a stylesheet), data, configuration or binaries: each is
text a program reads, not instructions a model reads, even when a prompt's code names the file.

    PROGRAMMING    source code of programming and shell languages, notebooks, build scripts
    MARKUP         typeset and styled markup (LaTeX, web pages, stylesheets) and grammars
    DATA           data, configuration and serialised objects
    BINARY         compiled code, archives, media, fonts, models, translations
    NOT_PROMPT_TEXT  all of them: never a prompt text file (`prompt_files.is_prompt_file`)
"""
from __future__ import annotations

PROGRAMMING = frozenset({
    ".py", ".pyi", ".pyx", ".pxd", ".ipynb",
    ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx", ".vue", ".svelte",
    ".lua", ".rb", ".go", ".rs", ".java", ".kt", ".kts", ".scala", ".groovy", ".gradle", ".swift",
    ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".cu", ".cuh", ".m", ".mm", ".cs", ".fs",
    ".php", ".pl", ".pm", ".r", ".jl", ".dart", ".ex", ".exs", ".erl", ".hs", ".ml", ".clj", ".elm",
    ".zig", ".nim", ".sol", ".vb", ".f90", ".asm", ".wat", ".sql", ".cmake", ".mk",
    ".sh", ".bash", ".zsh", ".fish", ".bat", ".cmd", ".ps1", ".psm1",
})
MARKUP = frozenset({
    ".tex", ".sty", ".cls", ".bib", ".bst", ".ltx",
    ".html", ".htm", ".xhtml", ".css", ".scss", ".sass", ".less", ".svg",
    ".lark", ".ebnf", ".bnf", ".gbnf", ".peg", ".g4", ".proto", ".graphql",
})
DATA = frozenset({
    ".json", ".jsonl", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".lock", ".csv", ".tsv", ".parquet",
    ".pkl", ".npy", ".db", ".sqlite",
})
BINARY = frozenset({
    ".pyc", ".pyo", ".so", ".dll", ".dylib", ".wasm", ".png", ".jpg", ".jpeg", ".gif", ".ico", ".webp",
    ".pdf", ".zip", ".gz", ".tar", ".whl", ".bin", ".pt", ".onnx", ".mo", ".po", ".wav", ".mp3",
    ".mp4", ".ttf", ".woff", ".woff2",
})
#: Jinja's own extensions: a file of them is a template (`templates.file_kind`), not prompt text.
JINJA = frozenset({".j2", ".jinja", ".jinja2"})
NOT_PROMPT_TEXT = PROGRAMMING | MARKUP | DATA | BINARY | JINJA
