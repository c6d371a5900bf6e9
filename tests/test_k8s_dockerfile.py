"""The container build file: multi-stage, C core compiled in the build stage, non-root numeric user, fit for a
read-only root filesystem, ``stud-service serve`` as the entry point, no secret baked in.

Docker is not needed: the Dockerfile is parsed here (continuation lines joined, comments dropped).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
DEPLOYMENT = ROOT / "k8s" / "base" / "deployment.yaml"
SETTINGS_DOC = ROOT / "docs" / "settings.md"
SECRET_NAMES = re.compile(r"DATABASE_URL|SECRET|PASSWORD|PASSWD|TOKEN|API_KEY|PRIVATE_KEY", re.IGNORECASE)


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def args_of(self, keyword: str) -> list[str]:
        return [args for word, args in self.instructions if word == keyword]


def parse_dockerfile(text: str) -> tuple[list[tuple[str, str]], list[Stage]]:
    """(instructions before the first FROM, stages), each instruction as (KEYWORD, arguments)."""
    logical: list[str] = []
    pending = ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if stripped.startswith("#") or (not stripped and not pending):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        logical.append(pending + stripped)
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    preamble: list[tuple[str, str]] = []
    stages: list[Stage] = []
    for line in logical:
        keyword, _, args = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            words = args.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append(Stage(base=words[0], name=name))
        elif stages:
            stages[-1].instructions.append((keyword, args.strip()))
        else:
            preamble.append((keyword, args.strip()))
    return preamble, stages


def env_pairs(args: str) -> dict[str, str]:
    """``ENV A=1 B="two words"`` -> {"A": "1", "B": "two words"}."""
    return dict(pair.split("=", 1) for pair in shlex.split(args))


@pytest.fixture(scope="module")
def parsed() -> tuple[list[tuple[str, str]], list[Stage]]:
    return parse_dockerfile(DOCKERFILE.read_text())


@pytest.fixture(scope="module")
def stages(parsed) -> list[Stage]:
    return parsed[1]


@pytest.fixture(scope="module")
def runtime(stages: list[Stage]) -> Stage:
    return stages[-1]


@pytest.fixture(scope="module")
def runtime_env(runtime: Stage) -> dict[str, str]:
    env: dict[str, str] = {}
    for args in runtime.args_of("ENV"):
        env.update(env_pairs(args))
    return env


def test_the_parser_joins_continued_lines_and_splits_stages():
    _, stages = parse_dockerfile("FROM a AS one\n# note\nRUN x \\\n && y\nFROM b\nUSER 5\n")
    assert [(s.base, s.name) for s in stages] == [("a", "one"), ("b", None)]
    assert stages[0].instructions == [("RUN", "x  && y")]
    assert stages[1].args_of("USER") == ["5"]


def test_the_build_is_multi_stage_and_compiles_the_package_in_the_build_stage(stages: list[Stage]):
    assert len(stages) >= 2
    build, runtime = stages[0], stages[-1]
    assert build.name
    assert any(re.search(r"pip install (--\S+ )*\.(\s|$)|pip wheel", run) for run in build.args_of("RUN"))
    assert any(re.search(r"\bgcc\b|build-essential", run) for run in build.args_of("RUN")), "no C compiler"
    # The runtime stage gets the built virtualenv and nothing else: no compiler, no source tree.
    copies = runtime.args_of("COPY")
    assert copies and all(copy.startswith(f"--from={build.name} ") for copy in copies)
    assert not any(re.search(r"\bgcc\b|build-essential", run) for run in runtime.args_of("RUN"))


def test_both_stages_use_the_same_python_so_the_copied_virtualenv_runs(parsed):
    preamble, stages = parsed
    assert stages[0].base == stages[-1].base
    args = dict(arg.split("=", 1) for word, arg in preamble if word == "ARG")
    base = stages[-1].base
    if base.startswith("${"):
        base = args[base.strip("${}")]
    # The package needs Python 3.11 or later (pyproject requires-python).
    match = re.match(r"python:3\.(\d+)-slim", base)
    assert match and int(match.group(1)) >= 11, base


def test_the_image_runs_as_a_numeric_non_root_user_matching_the_deployment(runtime: Stage):
    (user,) = runtime.args_of("USER")
    uid, _, gid = user.partition(":")
    # Numeric, so Kubernetes can verify runAsNonRoot without reading /etc/passwd.
    assert uid.isdigit() and gid.isdigit()
    assert int(uid) > 0 and int(gid) > 0
    deployment = yaml.safe_load(DEPLOYMENT.read_text())
    security = deployment["spec"]["template"]["spec"]["securityContext"]
    assert (security["runAsUser"], security["runAsGroup"]) == (int(uid), int(gid))
    # USER comes after every RUN, so nothing in the final image is set up as root afterwards.
    words = [word for word, _ in runtime.instructions]
    assert words.index("USER") > max(i for i, word in enumerate(words) if word in {"RUN", "COPY"})


def test_the_image_writes_only_under_tmp_so_the_root_filesystem_can_be_read_only(runtime_env: dict[str, str]):
    assert runtime_env["PYTHONDONTWRITEBYTECODE"] == "1"
    for variable in ("HOME", "TMPDIR", "STUD_DATA_DIR"):
        assert Path(runtime_env[variable]).is_relative_to("/tmp"), variable
    deployment = yaml.safe_load(DEPLOYMENT.read_text())
    (server,) = deployment["spec"]["template"]["spec"]["containers"]
    assert "/tmp" in {mount["mountPath"] for mount in server["volumeMounts"]}


def test_the_entry_point_is_stud_service_serve_and_migrate_is_one_argument_away(runtime: Stage):
    (entrypoint,) = runtime.args_of("ENTRYPOINT")
    (cmd,) = runtime.args_of("CMD")
    # Exec form (JSON): the process gets SIGTERM directly, which starts the graceful stop.
    assert json.loads(entrypoint) + json.loads(cmd) == ["stud-service", "serve"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["stud-service"] == "stud_service.cli:main"


def test_the_image_exposes_the_grpc_web_and_metrics_ports_it_listens_on(
    runtime: Stage, runtime_env: dict[str, str]
):
    exposed = {int(port) for args in runtime.args_of("EXPOSE") for port in args.split()}
    assert exposed == {50051, 8080, 9090}
    assert runtime_env["STUD_LISTEN"].endswith(":50051")
    assert runtime_env["STUD_METRICS_LISTEN"].endswith(":9090")
    assert runtime_env["STUD_WEB_LISTEN"].endswith(":8080")


DOCS = (ROOT / "README.md", ROOT / "docs" / "deployment.md")


def test_the_docs_give_every_port_the_image_exposes_and_docker_run_publishes_them(runtime: Stage) -> None:
    exposed = {port for args in runtime.args_of("EXPOSE") for port in args.split()}
    items = SETTINGS_DOC.read_text().split("\n- ")
    (ports_line,) = [item for item in items if item.startswith("Ports in the image")]
    assert {port for port in exposed if port not in ports_line} == set(), ports_line
    runs = [run for doc in DOCS for run in re.findall(r"docker run (?:[^\n]*\\\n)*[^\n]*", doc.read_text())]
    assert runs, "the docs show how to run the image"
    for run in runs:
        published = set(re.findall(r"-p (?:[\d.]+:)?\d+:(\d+)", run))
        assert published == exposed, run


def test_no_secret_is_baked_into_the_image(parsed):
    preamble, stages = parsed
    for stage in stages:
        for args in stage.args_of("ENV"):
            assert not [name for name in env_pairs(args) if SECRET_NAMES.search(name)], args
        for args in stage.args_of("ARG"):
            assert not SECRET_NAMES.search(args.split("=", 1)[0]), args
        for args in stage.args_of("COPY") + stage.args_of("ADD"):
            assert not re.search(r"\.env\b|\.pem\b|\.key\b|id_rsa|secret", args), args
        for args in stage.args_of("RUN"):
            assert not re.search(r"\w+://[^\s:/@]+:[^\s@/]+@", args), args
    assert not [arg for word, arg in preamble if word == "ARG" and SECRET_NAMES.search(arg)]


def test_the_build_context_leaves_out_git_virtualenvs_data_and_local_credentials():
    ignored = {line.strip() for line in DOCKERIGNORE.read_text().splitlines()}
    assert {".git", ".venv", ".data", ".env", "*.pem", "*.key"} <= ignored
    # ... but keeps everything `pip install .` needs.
    for needed in ("pyproject.toml", "setup.py", "csrc", "stud_service", "proto", "README.md", "MANIFEST.in"):
        assert needed not in ignored


# Local secrets a developer's checkout holds: a keyring sealing cards at rest, token signing keys, TLS keys.
LOCAL_SECRETS = ("keys.json", "dev-keys/token-key.pem", "dev-keys/jwks.json", "deploy/keys.json",
                 "server.pem", "certs/tls.key", ".env")


def _dockerignore_regex(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern (anchored at the context's root; ``**`` any number of directories, ``*`` and
    ``?`` within one) as a regular expression over a relative path."""
    parts, position = [], 0
    while position < len(pattern):
        if pattern.startswith("**/", position):
            parts.append("(?:.*/)?")
            position += 3
        elif pattern.startswith("**", position):
            parts.append(".*")
            position += 2
        elif pattern[position] == "*":
            parts.append("[^/]*")
            position += 1
        elif pattern[position] == "?":
            parts.append("[^/]")
            position += 1
        else:
            parts.append(re.escape(pattern[position]))
            position += 1
    return re.compile("".join(parts))


def dockerignored(path: str, lines: list[str]) -> bool:
    """Whether the build context leaves ``path`` out: the last pattern matching it or a parent directory wins
    (``!pattern`` puts it back)."""
    prefixes = ["/".join(path.split("/")[: count + 1]) for count in range(path.count("/") + 1)]
    ignored = False
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        regex = _dockerignore_regex(line.removeprefix("!").strip("/"))
        if any(regex.fullmatch(prefix) for prefix in prefixes):
            ignored = not negated
    return ignored


@pytest.mark.parametrize("path", LOCAL_SECRETS)
def test_the_build_context_leaves_out_local_secrets_at_any_depth(path: str) -> None:
    assert dockerignored(path, DOCKERIGNORE.read_text().splitlines()), path


def test_the_matcher_keeps_what_the_build_needs() -> None:
    lines = DOCKERIGNORE.read_text().splitlines()
    for needed in ("pyproject.toml", "stud_service/jwks.py", "stud_service/server/grpc/app.py",
                   "proto/stud/v1/table.proto"):
        assert not dockerignored(needed, lines), needed
    assert dockerignored("a/b/c.pem", ["**/*.pem"]) and not dockerignored("a/c.pem", ["*.pem"])
    assert not dockerignored("keys.json", ["**/keys.json", "!keys.json"])


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout")
@pytest.mark.parametrize("path", LOCAL_SECRETS)
def test_git_ignores_local_secrets(path: str) -> None:
    """`git add .` in a checkout where someone made a dev keyring or token keys must not commit them."""
    result = subprocess.run(["git", "check-ignore", "--no-index", "-q", path], cwd=ROOT, timeout=60)
    assert result.returncode == 0, f"{path} is not ignored by .gitignore"


def test_every_environment_variable_the_image_sets_for_the_service_is_documented(runtime_env: dict[str, str]):
    documented = SETTINGS_DOC.read_text()
    for name in runtime_env:
        if name.startswith("STUD_") or name == "DATABASE_URL":
            assert f"`{name}`" in documented, name
