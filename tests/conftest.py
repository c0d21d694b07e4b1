"""Shared test set-up: no test writes a `.promptlint_cache` into the repository.

Every test runs with PROMPTLINT_CACHE_DIR set to a folder of its own under pytest's temporary
folder (subprocesses inherit it), and so do the module- and session-scoped fixtures that run
promptlint once for many tests (set up before any test's own fixtures); a test of where the cache
goes by default removes the variable itself (`monkeypatch.delenv`) and runs in a temporary
folder."""
import pytest


@pytest.fixture(scope="session", autouse=True)
def _cache_outside_the_repository_for_shared_fixtures(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PROMPTLINT_CACHE_DIR", str(tmp_path_factory.mktemp("promptlint-cache-shared")))
        yield


@pytest.fixture(autouse=True)
def _cache_outside_the_repository(monkeypatch, tmp_path_factory):
    monkeypatch.setenv("PROMPTLINT_CACHE_DIR", str(tmp_path_factory.mktemp("promptlint-cache")))
