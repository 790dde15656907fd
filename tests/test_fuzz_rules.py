"""Every fuzz test asserts its reach (issue 35): a hypothesis search whose examples are all refused at the first
syntax check passes while checking nothing, so each @given function is run by a plain test that makes a
fuzz_support.Reach, passes it in, and calls its `check` afterwards. Read from the tests' source with ast."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent


def _is_given(decorator: ast.expr) -> bool:
    called = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(called, ast.Name) and called.id == "given") or (
        isinstance(called, ast.Attribute) and called.attr == "given")


def _checks_a_reach_it_passes(test: ast.FunctionDef, searched: str) -> bool:
    """Whether `test` makes a Reach, passes it to `searched` and calls the Reach's `check`."""
    reaches = {target.id for node in ast.walk(test) if isinstance(node, ast.Assign)
               and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
               and node.value.func.id == "Reach" for target in node.targets if isinstance(target, ast.Name)}
    calls = [node for node in ast.walk(test) if isinstance(node, ast.Call)]
    passed = {arg.id for call in calls if isinstance(call.func, ast.Name) and call.func.id == searched
              for arg in [*call.args, *(keyword.value for keyword in call.keywords)] if isinstance(arg, ast.Name)}
    checked = {call.func.value.id for call in calls if isinstance(call.func, ast.Attribute) and call.func.attr == "check"
               and isinstance(call.func.value, ast.Name)}
    return bool(reaches & passed & checked)


def searches_without_reach(source: str) -> list[str]:
    """The @given functions of one test module that no test runs with a Reach it checks, each said why."""
    tree = ast.parse(source)
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
    tests = [node for node in functions if node.name.startswith("test")]
    found = []
    for function in functions:
        if not any(_is_given(decorator) for decorator in function.decorator_list):
            continue
        if function.name.startswith("test"):
            found.append(f"{function.name}: a @given test runs no Reach (name it _fuzz_* and wrap it)")
        elif not any(_checks_a_reach_it_passes(test, function.name) for test in tests):
            found.append(f"{function.name}: no test passes it a Reach and calls check()")
    return found


def test_every_fuzz_search_is_run_by_a_test_that_checks_its_reach():
    searched, missing = 0, []
    for path in sorted(TESTS.glob("**/*.py")):
        source = path.read_text(encoding="utf-8")
        searched += source.count("@given")
        missing += [f"{path.relative_to(TESTS)}: {problem}" for problem in searches_without_reach(source)]
    assert not missing, "fuzz searches without a reach assertion:\n" + "\n".join(missing)
    assert searched >= 20  # the scan sees the suite's fuzz tests (a moved folder must not make it pass on nothing)


def test_the_rule_names_a_search_without_a_reach_and_passes_one_with_it():
    unwrapped = "@FUZZ\n@given(st.text())\ndef test_any_text(text):\n    parse(text)\n"
    unchecked = ("@given(st.text())\ndef _fuzz_text(reach, text):\n    reach.saw(True)\n\n"
                 "def test_any_text():\n    reach = Reach('text')\n    _fuzz_text(reach)\n")
    checked = unchecked + "    reach.check()\n"
    elsewhere = ("@hypothesis.given(st.text())\ndef _fuzz_text(reach, text):\n    pass\n\n"
                 "def test_any_text():\n    reach = Reach('text')\n    other = Reach('other')\n    _fuzz_text(other)\n"
                 "    reach.check()\n")
    assert searches_without_reach(unwrapped) == ["test_any_text: a @given test runs no Reach (name it _fuzz_* and wrap it)"]
    assert searches_without_reach(unchecked) == ["_fuzz_text: no test passes it a Reach and calls check()"]
    assert searches_without_reach(elsewhere) == ["_fuzz_text: no test passes it a Reach and calls check()"]
    assert searches_without_reach(checked) == []
