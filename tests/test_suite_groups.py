"""The suite's own layout on the workers (tests/conftest.py): a module's tests run on one worker, so its
module fixtures (servers, databases, clusters) are set up once. With pytest 9.2 and pytest-xdist 3.8 the
group silently stopped working (pytest-xdist issue 1386): each module's tests went to every worker and the
suite took minutes longer. This fails should that happen again."""

from __future__ import annotations

import pytest


def test_a_modules_tests_run_on_one_worker(request: pytest.FixtureRequest) -> None:
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by xdist's --dist loadgroup (the suite's default: pyproject's addopts)")
    assert request.node.nodeid.endswith(f"@{request.path.relative_to(request.config.rootpath)}"), (
        f"{request.node.nodeid}: the test is in no group of xdist's; see pyproject's pin of pytest"
    )
