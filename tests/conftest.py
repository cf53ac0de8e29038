"""pytest wiring: fixtures and the parametrization over the conformance suite (the helpers
themselves are in ``helpers.py``, the oracles in ``oracle/``).

Tests ask for conformance data through these parametrized fixtures:

* ``conformance_case``  - every manifest entry (from_jelly and to_jelly)
* ``from_jelly_case``   - every from_jelly entry
* ``to_jelly_case``     - every to_jelly entry
* ``positive_jelly``    - (case id, path) of every positive from_jelly ``in.jelly``
* ``valid_jelly``       - (case id, path) of every valid Jelly file of the suite: positive
                          from_jelly inputs and to_jelly expected outputs
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

from helpers import ConformanceMissing, load_cases  # noqa: E402

try:  # keep property tests reproducible-ish and free of on-disk state
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "jelly", deadline=None, database=None, print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                               HealthCheck.filter_too_much])
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "jelly"))
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    pass

class _Missing:
    """Parameter value standing in for the conformance data when it cannot be loaded."""

    def __init__(self, reason: str):
        self.reason = reason


def _params(select):
    try:
        cases = load_cases()
    except ConformanceMissing as e:
        return [pytest.param(_Missing(str(e)), id="conformance-suite-missing")]
    except Exception as e:  # a broken manifest must fail loudly, not vanish
        return [pytest.param(_Missing(f"cannot load the manifests: {e!r}"),
                             id="conformance-manifest-broken")]
    out = select(cases)
    if not out:
        return [pytest.param(_Missing("no matching conformance cases"), id="no-cases")]
    return out


def _valid_jelly(cases):
    out = []
    for c in cases:
        if c.direction == "from_jelly" and c.positive:
            out.append(pytest.param((c.id, c.action[0]), id=c.id))
        elif c.direction == "to_jelly" and c.positive:
            out.append(pytest.param((c.id + "/out", c.result[0]), id=c.id + "/out"))
    return out


_SELECTORS = {
    "conformance_case": lambda cs: [pytest.param(c, id=c.id) for c in cs],
    "from_jelly_case": lambda cs: [pytest.param(c, id=c.id) for c in cs
                                   if c.direction == "from_jelly"],
    "to_jelly_case": lambda cs: [pytest.param(c, id=c.id) for c in cs
                                 if c.direction == "to_jelly"],
    "positive_jelly": lambda cs: [pytest.param((c.id, c.action[0]), id=c.id) for c in cs
                                  if c.direction == "from_jelly" and c.positive],
    "valid_jelly": _valid_jelly,
}


_W3C_CASES: list = []


def _w3c_params():
    """The W3C RDF suites (tests/w3c_suites.py), loaded once; a suite that cannot be had is one
    failing case."""
    if not _W3C_CASES:
        import w3c_suites
        try:
            cases = w3c_suites.load_cases()
            params = [pytest.param(c, id=c.id) for c in cases]
        except w3c_suites.SuiteMissing as e:
            params = [pytest.param(_Missing(str(e)), id="w3c-suite-missing")]
        except Exception as e:  # a broken manifest must fail loudly, not vanish
            params = [pytest.param(_Missing(f"cannot load the W3C manifests: {e!r}"),
                                   id="w3c-manifest-broken")]
        _W3C_CASES.extend(params)
    return _W3C_CASES


def pytest_generate_tests(metafunc):
    for name, select in _SELECTORS.items():
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, _params(select), indirect=True)
    if "w3c_case" in metafunc.fixturenames:
        metafunc.parametrize("w3c_case", _w3c_params(), indirect=True)


def _unwrap(request):
    value = request.param
    if isinstance(value, _Missing):
        pytest.fail(value.reason, pytrace=False)
    return value


@pytest.fixture
def conformance_case(request):
    return _unwrap(request)


@pytest.fixture
def from_jelly_case(request):
    return _unwrap(request)


@pytest.fixture
def to_jelly_case(request):
    return _unwrap(request)


@pytest.fixture
def positive_jelly(request):
    return _unwrap(request)


@pytest.fixture
def valid_jelly(request):
    return _unwrap(request)


@pytest.fixture
def w3c_case(request):
    return _unwrap(request)


def import_jelly():
    """Import the library under test; a failure to import FAILS the test (never skips)."""
    try:
        import jelly
        jelly.parse_frames  # noqa: B018 - the API must exist
        jelly.JellyError  # noqa: B018
    except Exception as e:  # ImportError, AttributeError, a broken build...
        pytest.fail(f"cannot import the jelly library under test: {e!r}", pytrace=False)
    return jelly


@pytest.fixture(scope="session")
def jelly():
    return import_jelly()
