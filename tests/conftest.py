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
pre-commit) and the test processes themselves compile their modules once, not on every start:
PYTHONPYCACHEPREFIX (`sys.pycache_prefix` here) names a bytecode folder kept from run to run,
`promptlint-tests-bytecode-UID` in the system's temporary folder (`early.lasting_bytecode_folder()`;
delete it to start afresh), and PYTHONDONTWRITEBYTECODE is removed for the subprocesses
(`sys.dont_write_bytecode` off here). Where it was set (as here), each of about 200
interpreters compiled promptlint's sources again (0.45 s of CPU each, of 0.7 s for a small
`check`), and each test process compiled promptlint and assertion-rewrote the test modules at
every run (about 9 s of CPU of its 12 s of collection). The prefix keeps the bytecode out of the
source folders and of the checked trees; Python and pytest check a stored file against the
source's time and size before using it, and replace it atomically (the two workers share it).

The tests run in two pytest-xdist workers (pyproject's `addopts`), whole modules at a time
(`--dist loadfile`: a module's module-scoped fixtures are made once), the modules with the most
tests handed out first; the scheduler below keeps the modules of SHARED_REPORTS in one worker.
"""
import gc
import sys
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
def case_cache():
    """case name -> the analysis cache folder of fixtures/cases/NAME, one for the run (in the
    session folder of tests/early.py, shared by the xdist workers: the cache is safe for runs at
    once, tests/test_cache.py): the case tests that check a case folder
    (tests/test_breakpoint_rules.py, tests/test_cases.py) analyse it once and read the same report
    from the cache after (a warm run reports what the cold run did: tests/test_cache.py)."""
    root = early.session_folder() / "case-caches"

    def folder(case: str) -> str:
        (root / case).mkdir(parents=True, exist_ok=True)
        return str(root / case)
    return folder


def pytest_configure(config):
    """The run's session folder (tests/early.py), made here by the process that runs the session
    (a lone pytest, or xdist's controller before it starts its workers, which find it in their
    environment); the bytecode folder, for this process too (the test modules are imported after)."""
    early.session_folder()
    early.use_bytecode_folder(early.lasting_bytecode_folder())
    _saved_bytecode_settings[:] = [sys.pycache_prefix, sys.dont_write_bytecode]
    sys.pycache_prefix = early.bytecode_folder()
    sys.dont_write_bytecode = False


_saved_bytecode_settings: list = []


# Modules whose tests read one analysis per fixture folder (tests/fixture_reports.py, cached per
# process): one work unit, so one worker analyses each folder once.
SHARED_REPORTS = frozenset({"tests/test_fix_offers.py", "tests/test_loss_wording.py",
                            "tests/test_template_locations.py"})


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """With `--dist loadfile`: a work unit is a module, or the modules of SHARED_REPORTS together
    (xdist's `xdist_group` marks would do it, but pytest 9 ignores the test id it sets)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class ModulesAndSharedReports(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return "fixture-reports" if module in SHARED_REPORTS else module
    return ModulesAndSharedReports(config, log)


def pytest_collection_finish(session):
    """Start the slow subprocesses of the selected tests marked `early` (tests/early.py); none for
    `--collect-only`."""
    if not session.config.option.collectonly:
        worker = getattr(session.config, "workerinput", {}).get("workerid")
        early.start_all(session.items, worker)


def pytest_sessionfinish(session):
    # hypothesis times garbage collection with a gc callback that stays registered; a worker stopped
    # by xdist at the end could print a KeyboardInterrupt traceback from it (unraisable, not a failure)
    gc.callbacks[:] = [cb for cb in gc.callbacks if not getattr(cb, "__module__", "").startswith("hypothesis")]
    if _saved_bytecode_settings:  # (a folder of the run is removed now: no import may make it again)
        sys.pycache_prefix, sys.dont_write_bytecode = _saved_bytecode_settings
    early.stop_all()
