"""`fix` beside other writers (issue 17): two `fix` processes on one tree at once, and a `fix`
while another process edits a file. Every file compiles afterwards and no user edit is lost.

The processes are real `promptlint fix` runs (the CLI's `main` in a fresh interpreter). To make the
interleaving certain, no sleeps: a small driver holds each run just before its first write until
the test releases it, through pipes (the run writes one byte when its fixes are computed, then
waits for one byte). `select` with a generous timeout only guards against a deadlock.
"""
from __future__ import annotations

import os
import select
import subprocess
import sys

import pytest

GUARD = 120  # seconds: a deadlock guard, not a speed assertion

DRIVER = r"""
import os, sys
import promptlint.fixer as fixer
ready, go = int(sys.argv[1]), int(sys.argv[2])
real = fixer.write_atomic
first = [True]

def gated(path, text, expected=None):
    if first[0]:
        first[0] = False
        os.write(ready, b"r")     # fixes computed from the text read: about to write
        os.read(go, 1)            # wait until the test lets this run go on
    return real(path, text, expected)

fixer.write_atomic = gated
from promptlint.cli import main
main(sys.argv[3:], prog_name="promptlint")
"""

EDITOR = r"""
import os, sys, tempfile
path, text = sys.argv[1], sys.argv[2]
fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".")   # save as editors do: write, rename
with os.fdopen(fd, "w") as handle:
    handle.write(text)
os.replace(tmp, path)
"""


def module(n: int, role: str = "support") -> str:
    return f'''import json

from openai import OpenAI

client = OpenAI()


def ask{n}(question, profile: dict[str, str]):
    system = "You are the {role} assistant number {n}. Profile: " + json.dumps(profile) + "\\nAnswer briefly and cite the documents you use."
    return client.chat.completions.create(
        model="gpt-4o", messages=[{{"role": "system", "content": system}}, {{"role": "user", "content": question}}])
'''


def fixed(text: str) -> str:
    return text.replace("json.dumps(profile)", "json.dumps(profile, sort_keys=True)")


@pytest.fixture
def tree(tmp_path):
    for n in range(4):
        (tmp_path / f"m{n}.py").write_text(module(n))
    (tmp_path / "promptlint.toml").write_text('ignore = ["PRM301"]\n')
    return tmp_path


class Gated:
    """A `promptlint fix` process held before its first write."""

    def __init__(self, tree, *args):
        ready_r, ready_w = os.pipe()
        go_r, self.go = os.pipe()
        self.proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(ready_w), str(go_r), "fix", *args],
                                     cwd=tree, pass_fds=(ready_w, go_r), stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        os.close(ready_w)
        os.close(go_r)
        self.ready = ready_r

    def wait_ready(self) -> None:
        readable, _, _ = select.select([self.ready], [], [], GUARD)
        assert readable, "deadlock guard: the fix run never got to its first write"
        assert os.read(self.ready, 1) == b"r", self.proc.communicate(timeout=GUARD)

    def release(self) -> None:
        os.write(self.go, b"g")

    def finish(self) -> tuple[int, str]:
        try:
            out, err = self.proc.communicate(timeout=GUARD)
        finally:
            os.close(self.go)
            os.close(self.ready)
        assert "Traceback" not in err, err
        return self.proc.returncode, err


def compiles(path) -> None:
    compile(path.read_bytes(), str(path), "exec")


def test_two_fix_runs_on_one_tree_at_once(tree):
    first, second = Gated(tree, "."), Gated(tree, ".")
    first.wait_ready()
    second.wait_ready()  # both have computed their fixes from the same texts
    first.release()
    second.release()
    (code1, err1), (code2, err2) = first.finish(), second.finish()
    assert (code1, code2) == (0, 0), (err1, err2)
    for n in range(4):
        path = tree / f"m{n}.py"
        compiles(path)
        assert path.read_text() == fixed(module(n))  # each fix applied once: no `sort_keys=True, sort_keys=True`


def test_fix_while_another_process_edits_a_file(tree):
    """The user saves m1.py after `fix` read it and before it writes: the user's text stays,
    and it is fixed (re-read and fixed again), never reverted to what `fix` read."""
    run = Gated(tree, "m1.py")
    run.wait_ready()
    edited = module(1, role="billing") + "\n\nEXTRA = 'added by the user while fix ran'\n"
    editor = subprocess.run([sys.executable, "-c", EDITOR, str(tree / "m1.py"), edited], timeout=GUARD)
    assert editor.returncode == 0
    run.release()
    code, err = run.finish()
    assert code == 0, err
    path = tree / "m1.py"
    compiles(path)
    assert path.read_text() == fixed(edited)


def test_a_user_edit_that_already_fixed_the_file_is_kept_as_is(tree):
    run = Gated(tree, "m2.py")
    run.wait_ready()
    by_hand = module(2).replace("json.dumps(profile)", "json.dumps(profile, sort_keys=True, indent=1)")
    subprocess.run([sys.executable, "-c", EDITOR, str(tree / "m2.py"), by_hand], timeout=GUARD, check=True)
    run.release()
    code, err = run.finish()
    assert code == 0, err
    assert (tree / "m2.py").read_text() == by_hand
    compiles(tree / "m2.py")
