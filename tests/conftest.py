"""Shared test set-up: no test writes a `.promptlint_cache` into the repository.

Every test runs with PROMPTLINT_CACHE_DIR set to a folder of its own under pytest's temporary
folder (subprocesses inherit it), and so do the module- and session-scoped fixtures that run
promptlint once for many tests (set up before any test's own fixtures); a test of where the cache
goes by default removes the variable itself (`monkeypatch.delenv`) and runs in a temporary
folder.

The tests' folders are made with `tempfile.mkdtemp` inside one session folder: pytest's
`tmp_path_factory.mktemp` numbers its folders by listing the whole base folder each time, so one
per test (about 3,900) cost seconds of CPU that grew with the square of the number of tests.

The Python subprocesses the tests start (`python -m promptlint`, the workers' fork server, pip and
pre-commit) compile their modules once for the session: PYTHONPYCACHEPREFIX names a session folder
for the bytecode (`early.bytecode_folder()`: the processes tests/early.py starts before the tests
share it) and PYTHONDONTWRITEBYTECODE is removed for them. Where it was set (as here), each
of about 200 interpreters compiled promptlint's sources again (0.45 s of CPU each, of 0.7 s for a
small `check`); the prefix keeps the bytecode out of the repository and of the checked trees. This
process is not changed (its interpreter read both variables at start)."""
import tempfile

import pytest

import early


@pytest.fixture(scope="session")
def _cache_folders(tmp_path_factory):
    return tmp_path_factory.mktemp("promptlint-caches")


@pytest.fixture(scope="session", autouse=True)
def _cache_outside_the_repository_for_shared_fixtures(_cache_folders):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PROMPTLINT_CACHE_DIR", tempfile.mkdtemp(prefix="shared-", dir=_cache_folders))
        patch.setenv("PYTHONPYCACHEPREFIX", early.bytecode_folder())  # shared with the early processes
        patch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
        yield


@pytest.fixture(autouse=True)
def _cache_outside_the_repository(monkeypatch, _cache_folders):
    monkeypatch.setenv("PROMPTLINT_CACHE_DIR", tempfile.mkdtemp(prefix="test-", dir=_cache_folders))


@pytest.fixture(scope="session")
def case_cache(_cache_folders):
    """case name -> the analysis cache folder of fixtures/cases/NAME, one for the session: the
    case tests that check a case folder (tests/test_breakpoint_rules.py, tests/test_cases.py)
    analyse it once and read the same report from the cache after (a warm run reports what the
    cold run did: tests/test_cache.py)."""
    folders: dict[str, str] = {}

    def folder(case: str) -> str:
        if case not in folders:
            folders[case] = tempfile.mkdtemp(prefix=f"case-{case}-", dir=_cache_folders)
        return folders[case]
    return folder


def pytest_collection_finish(session):
    """Start the slow subprocesses of the selected tests marked `early` (tests/early.py); none for
    `--collect-only`."""
    if not session.config.option.collectonly:
        early.start_all(session.items)


def pytest_sessionfinish(session):
    early.stop_all()
