"""The sandbox image carries the shared libraries data-science wheels load without shipping them (libgomp for
lightgbm and xgboost): a submission that declares lightgbm installs it and trains, and `bakeoff check` says what the
image provides. Before, lightgbm installed and then died on import (`OSError: libgomp.so.1`), charged to the model."""

from __future__ import annotations

import pytest

from sandbox.availability import check_docker
from sandbox.base import SandboxSpec
from sandbox.docker_engine import IMAGE_TAG
from sandbox.factory import open_sandbox
from sandbox.requirements import install_requirements
from sandbox.wheelhouse import default_wheelhouse

pytestmark = pytest.mark.docker

TRAIN_LIGHTGBM = """
import numpy as np, lightgbm
rng = np.random.default_rng(0)
X = rng.random((300, 3))
y = (X[:, 0] + 0.1 * rng.random(300) > 0.55).astype(int)
model = lightgbm.LGBMClassifier(n_estimators=10, verbose=-1).fit(X, y)
print("accuracy", (model.predict(X) == y).mean())
"""


def test_a_submission_that_declares_lightgbm_installs_it_and_trains(tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "requirements.txt").write_text("lightgbm\n", encoding="utf-8")
    (workspace / "train.py").write_text(TRAIN_LIGHTGBM, encoding="utf-8")
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    with open_sandbox("docker", SandboxSpec(workspace=workspace), wheelhouse=wheelhouse) as sandbox:
        report = install_requirements(sandbox, workspace / "requirements.txt", wheelhouse)
        trained = sandbox.exec(["python", "train.py"], timeout_s=300)
    assert report.ok, report
    assert trained.ok, trained.stderr[-2000:]
    assert float(trained.stdout.split()[-1]) > 0.8


def test_bakeoff_check_names_the_libraries_the_image_provides():
    usable = check_docker(IMAGE_TAG)
    assert usable.usable, usable.detail
    assert "provides libgomp.so.1 (the OpenMP runtime lightgbm and xgboost load)" in usable.detail
