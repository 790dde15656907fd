"""Requirements: every line of requirements.txt gets a fate; what the image lacks is installed offline."""

from __future__ import annotations

import pytest
from package_index import index_that_hangs_up as hanging_up_index

from sandbox.base import SandboxSpec
from sandbox.factory import open_sandbox
from sandbox.requirements import install_requirements
from sandbox.requirements_lines import (
    IGNORED,
    INVALID_LINE,
    PENDING,
    PROVIDED_BY_IMAGE,
    UNAVAILABLE,
    normalize_name,
    parse_requirements,
    pinned_version,
)
from sandbox.wheelhouse import default_wheelhouse


def only(text: str):
    lines = parse_requirements(text)
    assert len(lines) == 1
    return lines[0]


def test_blank_lines_and_comments_are_not_requirements():
    assert parse_requirements("\n# a comment\n   \n") == ()
    line = only("tabulate>=0.9  # for tables\n")
    assert (line.text, line.name, line.fate) == ("tabulate>=0.9", "tabulate", PENDING)


@pytest.mark.parametrize(
    "text, name",
    [
        ("numpy", "numpy"),
        ("Scikit_Learn>=1.3,<2", "scikit-learn"),
        ("pandas == 2.1.0", "pandas"),
        ("tabulate[widechars]~=0.9", "tabulate"),
        ('xgboost; python_version >= "3.8"', "xgboost"),
    ],
)
def test_valid_requirements_wait_for_resolution(text, name):
    line = only(text)
    assert (line.name, line.fate) == (name, PENDING)


@pytest.mark.parametrize("text", ["scikit-learn 1.2", "pandas=1.5", "numpy>=", "!!!"])
def test_lines_pip_cannot_read_are_invalid(text):
    assert only(text).fate == INVALID_LINE


@pytest.mark.parametrize("text", ["git+https://github.com/x/y.git", "./vendor/pkg", "pkg @ https://x.org/p.whl"])
def test_url_and_path_requirements_are_unavailable(text):
    assert only(text).fate == UNAVAILABLE


@pytest.mark.parametrize("text", ["-r base.txt", "--index-url https://example.org/simple", "-e ."])
def test_pip_options_are_ignored_with_a_reason(text):
    line = only(text)
    assert line.fate == IGNORED
    assert "option" in line.reason


@pytest.mark.parametrize("text", ["os", "json", "typing", "dataclasses", "pickle"])
def test_standard_library_names_are_ignored_not_installed(text):
    line = only(text)
    assert line.fate == IGNORED
    assert "standard-library" in line.reason


def test_sklearn_alias_means_the_images_scikit_learn():
    line = only("sklearn")
    assert (line.name, line.fate) == ("scikit-learn", PROVIDED_BY_IMAGE)


def test_line_numbers_follow_the_file():
    lines = parse_requirements("# head\nnumpy\n\nos\n")
    assert [line.line_number for line in lines] == [2, 4]


def test_pinned_version_and_name_normalization():
    assert pinned_version(only("pandas==1.5.3")) == "1.5.3"
    assert pinned_version(only("pandas>=1.5")) is None
    assert normalize_name("Python.Dateutil") == normalize_name("python_dateutil") == "python-dateutil"


# -- in a real sandbox: resolution on the host, offline install inside ---------------------

MIXED_REQUIREMENTS = """\
pandas==1.5.3
sklearn
json
tabulate==0.9.0  # not in the image
colorama; python_version < "3.0"
-r more.txt
"""


@pytest.mark.docker
def test_mixed_requirements_get_their_fates_and_the_missing_package_is_importable(tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    requirements = workspace / "requirements.txt"
    requirements.write_text(MIXED_REQUIREMENTS, encoding="utf-8")
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    with open_sandbox("docker", SandboxSpec(workspace=workspace), wheelhouse=wheelhouse) as sandbox:
        report = install_requirements(sandbox, requirements, wheelhouse)
        imported = sandbox.exec(["python", "-c", "import tabulate; print(tabulate.__file__)"])
    fates = {line.text: (line.fate, line.reason) for line in report.lines}
    assert fates["pandas==1.5.3"][0] == "provided_by_image"
    assert "pins 1.5.3" in fates["pandas==1.5.3"][1]
    assert fates["sklearn"][0] == "provided_by_image"
    assert fates["json"][0] == "ignored"
    assert fates["tabulate==0.9.0"][0] == "installed"
    assert fates['colorama; python_version < "3.0"'][0] == "ignored"
    assert fates["-r more.txt"][0] == "ignored"
    assert report.ok
    assert report.install_exit_code == 0
    assert imported.ok, imported.stderr
    assert imported.stdout.startswith("/deps/")


@pytest.mark.docker
def test_an_unreadable_line_makes_the_requirements_unmet(tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    requirements = workspace / "requirements.txt"
    requirements.write_text("numpy\nscikit-learn 1.2\n", encoding="utf-8")
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    with open_sandbox("docker", SandboxSpec(workspace=workspace), wheelhouse=wheelhouse) as sandbox:
        report = install_requirements(sandbox, requirements, wheelhouse)
    assert not report.ok
    assert [line.text for line in report.unmet] == ["scikit-learn 1.2"]
    assert report.install_exit_code is None  # nothing to install, so pip never ran


@pytest.fixture
def index_that_hangs_up(monkeypatch):
    """A package index on this test's own 127.0.0.1 listener that drops every connection."""
    with hanging_up_index(monkeypatch):
        yield


def test_on_an_offline_grader_a_name_the_wheelhouse_lacks_is_the_submissions_unmet_requirement(
    tmp_path, index_that_hangs_up
):
    # Issue 32, row 17: raising here made `bakeoff score` exit 2, so any unknown name left a submission ungraded.
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    requirements = workspace / "requirements.txt"
    requirements.write_text("bakeoff-never-cached-package-31c9\n", encoding="utf-8")
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir()
    spec = SandboxSpec(workspace=workspace)
    with open_sandbox("none", spec, wheelhouse=wheelhouse, i_understand_this_is_unsafe=True) as sandbox:
        report = install_requirements(sandbox, requirements, wheelhouse)
    (line,) = report.unmet
    assert line.fate == UNAVAILABLE and "the package index could not be reached" in line.reason
    assert str(wheelhouse) in line.reason  # the operator learns where to offer the package


def test_a_linked_requirements_file_is_not_followed(tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    secret = tmp_path / "host-secret.txt"
    secret.write_text("hunter2-package\n", encoding="utf-8")
    (workspace / "requirements.txt").symlink_to(secret)
    spec = SandboxSpec(workspace=workspace)
    with open_sandbox("none", spec, wheelhouse=tmp_path, i_understand_this_is_unsafe=True) as sandbox:
        report = install_requirements(sandbox, workspace / "requirements.txt", tmp_path)
    assert not report.ok
    assert "hunter2" not in str(report.to_dict())
