"""docker-compose.yml, .env.example and the Dockerfile agree with the Compose spec and the code."""

import ast
import json
import re
import shlex
from pathlib import Path

import jsonschema
import pytest
import yaml

from properties.scorers.registry import QUEUES

ROOT = Path(__file__).resolve().parents[3]
COMPOSE_FILE = ROOT / "docker-compose.yml"
ENV_EXAMPLE = ROOT / ".env.example"
# Vendored from the docker-compose 1.29.2 wheel, see tests/data/README.md.
COMPOSE_SCHEMA = ROOT / "tests" / "data" / "compose_spec.json"
CODE_DIRS = [ROOT / "evalsite", ROOT / "properties"]
# Chosen by manage.py/wsgi.py/celery.py before settings (and so .env) are read: not a .env setting.
NOT_CONFIGURATION = {"DJANGO_SETTINGS_MODULE"}
# ${VAR}, ${VAR:-default}, ${VAR:?error} and $VAR, but not $$VAR (a literal $ for the container).
INTERPOLATION = re.compile(r"(?<!\$)\$(?:\{([A-Za-z_][A-Za-z0-9_]*)|([A-Za-z_][A-Za-z0-9_]*))")
ENV_LINE = re.compile(r"^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$")
SECRETS = {"SECRET_KEY", "POSTGRES_PASSWORD"}


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE_FILE.read_text())


@pytest.fixture(scope="module")
def compose_validator() -> jsonschema.protocols.Validator:
    schema = json.loads(COMPOSE_SCHEMA.read_text())
    # The file names draft 2019-09 by a URL jsonschema does not recognise: name the class instead.
    jsonschema.Draft201909Validator.check_schema(schema)
    return jsonschema.Draft201909Validator(schema)


def env_example_lines() -> list[tuple[int, bool, str, str]]:
    """(line index, commented out, name, value) for every VAR=value line of .env.example."""
    lines = []
    for index, line in enumerate(ENV_EXAMPLE.read_text().splitlines()):
        if match := ENV_LINE.match(line):
            lines.append((index, bool(match[1]), match[2], match[3]))
    return lines


def variable_read_by(node: ast.AST, in_settings: bool) -> str | None:
    """The variable name `node` reads: env.int("X"), env("X") in settings, os.environ/os.getenv anywhere."""
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        function = ast.unparse(node.func)
        if function in ("os.getenv", "os.environ.get", "os.environ.setdefault") or (
            in_settings and re.fullmatch(r"env(\.\w+)?", function)
        ):
            return node.args[0].value
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and ast.unparse(node.value) == "os.environ"
    ):
        return node.slice.value
    return None


def variables_read_by_code() -> set[str]:
    names = set()
    for path in [ROOT / "manage.py", *(p for d in CODE_DIRS for p in d.rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names.add(variable_read_by(node, in_settings=path == ROOT / "evalsite" / "settings.py"))
    return names - NOT_CONFIGURATION - {None}


def variables_used_by_compose(compose: dict) -> set[str]:
    interpolated = {a or b for a, b in INTERPOLATION.findall(COMPOSE_FILE.read_text())}
    environment_keys = {key for service in compose["services"].values() for key in service.get("environment", {})}
    return interpolated | environment_keys


def command_args(service: dict) -> list[str]:
    command = service.get("command", [])
    return shlex.split(command) if isinstance(command, str) else command


def consumed_queues(service: dict) -> set[str]:
    args = command_args(service)
    queues = set()
    for index, arg in enumerate(args):
        if arg in ("-Q", "--queues"):
            queues.update(args[index + 1].split(","))
        elif arg.startswith("--queues="):
            queues.update(arg.removeprefix("--queues=").split(","))
    return queues


def celery_workers(compose: dict) -> dict[str, dict]:
    return {
        name: service
        for name, service in compose["services"].items()
        if command_args(service)[:1] == ["celery"] and "worker" in command_args(service)
    }


def test_compose_file_follows_the_compose_specification(compose, compose_validator):
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in compose_validator.iter_errors(compose)]
    assert errors == []


def test_the_schema_catches_a_misspelt_key(compose, compose_validator):
    broken = {**compose, "services": {**compose["services"], "web": {**compose["services"]["web"], "comand": "x"}}}
    assert not compose_validator.is_valid(broken)


def test_compose_has_the_services():
    services = yaml.safe_load(COMPOSE_FILE.read_text())["services"]
    assert {"postgres", "redis", "migrate", "web", "worker-cpu", "worker-models"} <= services.keys()


def test_postgres_and_redis_have_healthchecks(compose):
    for name in ("postgres", "redis"):
        assert compose["services"][name]["healthcheck"]["test"], name


def test_start_order(compose):
    services = compose["services"]
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert services["migrate"]["restart"] == "no"
    assert command_args(services["migrate"]) == ["python", "manage.py", "migrate", "--noinput"]
    for name in ["web", *celery_workers(compose)]:
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully", name


def test_workers_consume_every_queue(compose):
    workers = celery_workers(compose)
    assert "cpu" in consumed_queues(workers["worker-cpu"])
    assert "models" in consumed_queues(workers["worker-models"])
    consumed = set().union(*(consumed_queues(service) for service in workers.values()))
    assert set(QUEUES) <= consumed, f"no worker consumes {set(QUEUES) - consumed}"


def test_workers_can_be_scaled(compose):
    """`docker compose up --scale worker-cpu=4` needs no fixed name and no fixed host port."""
    for name, service in celery_workers(compose).items():
        assert "container_name" not in service, name
        assert "ports" not in service, name


def test_web_and_workers_share_the_media_volume(compose):
    services = compose["services"]
    mounts = {name: set(services[name].get("volumes", [])) for name in ["web", *celery_workers(compose)]}
    media_dir = services["web"]["environment"]["EVALSITE_MEDIA_DIR"]
    shared = set.intersection(*mounts.values())
    assert any(mount.endswith(f":{media_dir}") for mount in shared), mounts


def test_every_variable_is_in_env_example(compose):
    listed = {name for _, _, name, _ in env_example_lines()}
    assert variables_read_by_code() - listed == set(), "read by the code, missing from .env.example"
    assert variables_used_by_compose(compose) - listed == set(), "used by compose, missing from .env.example"


def test_the_code_scan_finds_settings_variables():
    assert {"SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "EVALSITE_MEDIA_DIR"} <= variables_read_by_code()


def test_env_example_explains_each_variable():
    lines = ENV_EXAMPLE.read_text().splitlines()
    entries = env_example_lines()
    assert len({name for _, _, name, _ in entries}) == len(entries), "a variable is listed twice"
    for index, _, name, _ in entries:
        above = lines[index - 1]
        assert above.startswith("# ") and not ENV_LINE.match(above), f"{name} has no comment above it"


def test_env_example_has_no_empty_setting_but_the_secrets():
    """django-environ reads VAR= as an empty string, not as unset: int() and URL parsing would fail."""
    for _, commented, name, value in env_example_lines():
        if name in SECRETS:
            assert not commented and value == "", f"{name} must be an empty line to fill in"
        elif not commented:
            assert value, f"{name}= is empty; comment it out to keep the default"


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined, comments dropped."""
    text = (ROOT / "Dockerfile").read_text()
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = "\n".join(lines).replace("\\\n", " ")
    return [(line.split()[0].upper(), line.split(None, 1)[1]) for line in joined.splitlines() if line.strip()]


def test_dockerfile_base_image_and_user():
    instructions = dockerfile_instructions()
    assert instructions[0] == ("FROM", "python:3.11-slim")
    users = [arguments for instruction, arguments in instructions if instruction == "USER"]
    assert users and users[-1] not in ("root", "0")


def test_dockerfile_pins_torch_wherever_it_installs_it():
    for instruction, arguments in dockerfile_instructions():
        if instruction == "RUN":
            torch = [token for token in shlex.split(arguments) if re.match(r"torch\b", token)]
            assert set(torch) <= {"torch==2.13.0"}, arguments


def test_dockerignore_keeps_env_out_of_the_image():
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    assert ".env" in ignored


def test_the_web_server_reads_bodies_in_an_event_loop_everywhere(compose):
    """docker compose, the image and `manage.py start` run the ASGI app, whose body limits
    (evalsite/body_limits.py) tests/integration/test_slow_clients.py checks on loopback."""
    start_command = (ROOT / "properties" / "management" / "commands" / "start.py").read_text()
    image_command = dict(dockerfile_instructions())["CMD"]
    for name, command in [
        ("compose", " ".join(command_args(compose["services"]["web"]))),
        ("Dockerfile", " ".join(json.loads(image_command))),
        ("start.py", start_command),
    ]:
        assert "evalsite.asgi:application" in command and "evalsite.web_server.UvicornWorker" in command, name
        assert "wsgi" not in command, name


def test_the_image_installs_what_make_install_does():
    """The default models' weights, NLTK's Punkt data and a CPU torch: without them the image could
    not score a model-backed property offline."""
    runs = " ".join(arguments for instruction, arguments in dockerfile_instructions() if instruction == "RUN")
    makefile = (ROOT / "Makefile").read_text()
    for step in ("--no-deps -r requirements-nodeps.txt", "-m evalsite.nltk_data"):
        assert step in makefile and step in runs, step
    assert "--index-url https://download.pytorch.org/whl/cpu torch==2.13.0" in runs


def test_the_web_service_is_checked_through_healthz(compose):
    check = compose["services"]["web"]["healthcheck"]["test"]
    assert any("/healthz" in part for part in check), check
