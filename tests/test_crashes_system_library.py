"""A shared library the sandbox image lacks is the environment's failure, not the submission's (issue 38).

The texts below are written from what the dynamic loader (glibc's dlerror), ctypes, lightgbm (it loads
lib_lightgbm.so with ctypes.cdll.LoadLibrary, whose dependency libgomp.so.1 is missing) and xgboost (its
XGBoostError lists the loader's messages after its "Likely causes" paragraph) print.
"""

from __future__ import annotations

import textwrap

from test_crashes_classify import run_script

from bakeoff.records import Attribution, CrashClass, LadderCheck, LadderStatus, Rung
from bakeoff.runner.scaffold_kit import check_attribution
from bakeoff.submission.crashes import classify
from sandbox.base import ExecResult


def failed(stderr: str) -> ExecResult:
    return ExecResult(argv=("python", "train.py"), exit_code=1, stdout="", stderr=textwrap.dedent(stderr).lstrip(),
                      timed_out=False, oom_killed=False, duration_s=0.1, isolation="docker")


LIGHTGBM = """
Traceback (most recent call last):
  File "/workspace/train.py", line 3, in <module>
    import lightgbm as lgb
  File "/opt/venv/lib/python3.11/site-packages/lightgbm/__init__.py", line 11, in <module>
    from .basic import Booster, Dataset, Sequence, register_logger
  File "/opt/venv/lib/python3.11/site-packages/lightgbm/basic.py", line 9, in <module>
    from .libpath import _LIB
  File "/opt/venv/lib/python3.11/site-packages/lightgbm/libpath.py", line 49, in <module>
    _LIB = ctypes.cdll.LoadLibrary(_find_lib_path()[0])
  File "/usr/lib/python3.11/ctypes/__init__.py", line 454, in LoadLibrary
    return self._dlltype(name)
  File "/usr/lib/python3.11/ctypes/__init__.py", line 376, in __init__
    self._handle = _dlopen(self._name, mode)
OSError: libgomp.so.1: cannot open shared object file: No such file or directory
"""

XGBOOST = """
Traceback (most recent call last):
  File "/workspace/train.py", line 2, in <module>
    import xgboost
  File "/opt/venv/lib/python3.11/site-packages/xgboost/core.py", line 268, in <module>
    _LIB = _load_lib()
  File "/opt/venv/lib/python3.11/site-packages/xgboost/core.py", line 222, in _load_lib
    raise XGBoostError(
xgboost.core.XGBoostError:
XGBoost Library (libxgboost.so) could not be loaded.
Likely causes:
  * OpenMP runtime is not installed
    - vcomp140.dll or libgomp-1.dll for Windows
    - libomp.dylib for Mac OSX
    - libgomp.so for Linux and other UNIX-like OSes
    Mac OSX users: Run `brew install libomp` to install OpenMP runtime.

  * You are running 32-bit Python on a 64-bit OS

Error message(s): ["libgomp.so.1: cannot open shared object file: No such file or directory"]
"""

# An extension module linked against a library that is not there fails its import this way.
EXTENSION_IMPORT = """
Traceback (most recent call last):
  File "/workspace/predict.py", line 1, in <module>
    import catboost
  File "/opt/venv/lib/python3.11/site-packages/catboost/__init__.py", line 1, in <module>
    from .core import FeaturesData, EFstrType, Pool, CatBoost
ImportError: /usr/lib/x86_64-linux-gnu/libbakeoff_absent.so.3: cannot open shared object file: No such file or directory
"""


def test_lightgbms_missing_openmp_runtime_is_a_missing_system_library():
    crash = classify(failed(LIGHTGBM))
    assert (crash.crash_class, crash.detail, crash.exception_type) == (
        CrashClass.MISSING_SYSTEM_LIBRARY, "libgomp.so.1", "OSError")


def test_xgboosts_wrapped_loader_message_past_its_blank_lines_names_the_library():
    crash = classify(failed(XGBOOST))
    assert (crash.crash_class, crash.detail) == (CrashClass.MISSING_SYSTEM_LIBRARY, "libgomp.so.1")


def test_an_extension_modules_import_error_names_the_library_without_its_folder():
    crash = classify(failed(EXTENSION_IMPORT))
    assert (crash.crash_class, crash.detail) == (CrashClass.MISSING_SYSTEM_LIBRARY, "libbakeoff_absent.so.3")


def test_a_program_the_loader_cannot_start_is_a_missing_system_library():
    stderr = "./solver: error while loading shared libraries: libbakeoff_absent.so.2: cannot open shared object file: " \
             "No such file or directory\n"
    crash = classify(failed(stderr))
    assert (crash.crash_class, crash.detail) == (CrashClass.MISSING_SYSTEM_LIBRARY, "libbakeoff_absent.so.2")


def test_a_real_ctypes_load_of_an_absent_library(tmp_path):
    result = run_script(tmp_path, "train.py", "import ctypes\nctypes.CDLL('libbakeoff_absent.so.1')\n")
    crash = classify(result)
    assert (crash.crash_class, crash.detail) == (CrashClass.MISSING_SYSTEM_LIBRARY, "libbakeoff_absent.so.1"), result.stderr


def test_a_missing_python_module_stays_the_submissions(tmp_path):
    result = run_script(tmp_path, "train.py", "import lightgbm_not_installed_here\n")
    assert classify(result).crash_class == CrashClass.MODULE_NOT_FOUND
    missing_file = run_script(tmp_path, "predict.py", "open('libfoo.so.1')\n")
    assert classify(missing_file).crash_class == CrashClass.FILE_NOT_FOUND


def _crashed(crash_class: CrashClass, detail: str) -> LadderCheck:
    return LadderCheck(Rung.INSTALLED, LadderStatus.CRASHED, "train", None, crash_class=crash_class,
                       detail=detail)


def test_a_check_ended_by_a_missing_system_library_is_the_harnesss():
    attribution, reason = check_attribution(_crashed(CrashClass.MISSING_SYSTEM_LIBRARY, "libgomp.so.1"))
    assert attribution == Attribution.HARNESS_ERROR
    assert reason is not None and "libgomp.so.1" in reason and "environment" in reason


def test_a_check_ended_by_a_missing_module_stays_the_models():
    assert check_attribution(_crashed(CrashClass.MODULE_NOT_FOUND, "lightgbm")) == (
        Attribution.MODEL_ERROR, CrashClass.MODULE_NOT_FOUND)
