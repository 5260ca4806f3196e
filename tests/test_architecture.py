"""The layers of issue 23 hold (.importlinter, checked by import-linter): the live side
(tables) above the patron back office (patrons), above the back office (collections_fees),
above rounds, above the schema (every app's models), above the kernel (cardroom); the
rules engine (rounds.engine) imports no Django and nothing outside itself; nothing imports
the composition root (settings, URLs, ASGI). `make test` runs these with the rest."""

import configparser
import pkgutil
import subprocess
import sys
from importlib import import_module
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / ".importlinter"
PACKAGES = ("config", "cardroom", "rounds", "collections_fees", "patrons", "tables", "web")


def test_the_import_contracts_hold():
    # The command-line tool, as a developer runs it: its report is the failure message.
    # --no-cache: nothing written into the working tree.
    lint = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--config", str(CONFIG), "--no-cache"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert lint.returncode == 0, f"import contracts broken:\n{lint.stdout}\n{lint.stderr}"


def _named_by_contracts() -> set[str]:
    config = configparser.ConfigParser()
    config.read(CONFIG)
    named = set()
    for section in config.sections():
        if not section.startswith("importlinter:contract:"):
            continue
        for field in ("layers", "protected_modules", "source_modules"):
            for line in config[section].get(field, "").splitlines():
                named.update(name.strip() for name in line.split(":") if name.strip())
    return named


def test_every_module_is_named_by_a_contract():
    """The layers name modules, not whole apps (the models modules form a layer of their
    own), so a new module would otherwise sit outside every contract, unchecked."""
    named = _named_by_contracts()
    modules = {
        f"{package}.{child.name}"
        for package in PACKAGES
        for child in pkgutil.iter_modules(import_module(package).__path__)
    }
    assert modules - named == set(), "modules no import contract names: add each to its layer in .importlinter"
    assert named - modules - {"rounds.*"} - set(PACKAGES) == set(), "contracts name modules that do not exist"


def test_no_module_imports_itself_through_others():
    """No import loop at run time (issue 23 removed the five-file one through the back
    office): a module that reaches itself through its imports loads only in a lucky order.
    Imports made only for type checking are not run, so they make no loop."""
    import grimp

    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True)
    loops = sorted(
        (module, imported)
        for module in graph.modules
        for imported in graph.find_modules_directly_imported_by(module)
        if imported != module and graph.chain_exists(importer=imported, imported=module)
    )
    assert loops == [], f"modules that import each other, directly or through others: {loops}"


def test_the_kernel_reads_app_models_only_as_their_apps_provide_them():
    """No `get_model(` in the kernel outside migrations: the apps hand their models in
    (cardroom/kernel_models.py), so the dependency is written where it is made."""
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in (ROOT / "cardroom").rglob("*.py")
        if "migrations" not in path.parts
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "get_model(" in line
    ]
    assert found == []


def test_no_migration_imports_an_apps_runtime_modules():
    """A migration imports Django, the standard library, the kernel, and an app's module
    only where that module is pure (it loads no Django and no Channels: the patrons' name
    folding, whose keys a data migration must compute as the app does). An app's runtime
    module (its events, its views) would pull Channels and the floor into every migrate."""
    import ast

    apps = set(PACKAGES) - {"cardroom"}
    imported = set()
    for path in ROOT.glob("*/migrations/*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            imported |= {name for name in names if name.split(".")[0] in apps}
    assert imported == {"patrons.folding"}  # a new one is looked at here first
    loads = subprocess.run(
        [sys.executable, "-c", "import sys, patrons.folding; print(sorted({m.split('.')[0] for m in sys.modules} & "
         "{'django', 'channels', 'tables', 'collections_fees'}))"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert loads.stdout.strip() == "[]", loads.stderr


def test_the_kernel_models_are_provided_when_django_is_ready():
    from cardroom import kernel_models

    assert {name: kernel_models.model(name)._meta.label for name in sorted(kernel_models.NEEDED)} == {
        "Approval": "tables.Approval", "DealerAssignment": "tables.DealerAssignment",
        "JackpotMeter": "collections_fees.JackpotMeter", "Table": "tables.Table",
    }


def test_the_old_settings_names_still_work_for_one_release_and_say_so():
    """An operator's DJANGO_SETTINGS_MODULE=cardroom.settings.base (or .prod) keeps working
    after the move to config/ (docs/operations.md), and warns that the name goes."""
    env = {k: v for k, v in __import__("os").environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["DJANGO_SETTINGS_MODULE"] = "cardroom.settings.base"
    read = subprocess.run(
        [sys.executable, "-c", "from django.conf import settings; print(settings.ROOT_URLCONF, settings.ASGI_APPLICATION)"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )
    assert read.stdout.split() == ["config.urls", "config.asgi.application"], read.stderr
    assert "FutureWarning" in read.stderr and "config.settings.base" in read.stderr
