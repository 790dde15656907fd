"""Surface variation inside a template: each pair gets its own names, import order and notes, drawn from its id.

The pairs of one template share an idea, and before this pass they shared its text: the same variable
names around the same lines, so the flawed twins of a template repeated each other's line adjacencies
and a reader that compresses code (or mines n-grams) learned the template's surface from its sibling
pairs. Here every pair draws, from a seed made of its pair id, the names of its working variables
(`model` may be `clf` or `estimator`, `X_train` may be `X_tr` or `train_X`), the order of its imports,
and a few notebook-style notes and blank lines between top-level statements. Both twins get exactly
the same draw, so they still differ only by the flaw.

Nothing here changes what the code computes: a name is renamed only where it is a name in the code
(never an attribute, a keyword argument or the text of a string: a column name or a printed word), and
`check_renamed` compares the syntax trees before and after to prove it.
"""

from __future__ import annotations

import ast
import io
import random
import re
import tokenize
from collections.abc import Callable

# Working names and the names a pair may use instead (first: the template's own). None of them is a fixture
# column or a keyword argument the templates pass, and none is a word that hints at a verdict.
ALTERNATIVES: dict[str, tuple[str, ...]] = {
    "model": ("model", "clf", "estimator", "learner", "pipe", "m"),
    "features": ("features", "feature_cols", "inputs", "predictors", "used_cols"),
    "vectorizer": ("vectorizer", "vec", "word_vec", "text_vec"),
    "results": ("results", "by_setting", "outcome", "table"),
    "scores": ("scores", "marks", "score_by_part", "figures"),
    "best": ("best", "pick", "chosen", "idx"),
    "best_C": ("best_C", "chosen_C", "c_pick", "top_C"),
    "best_alpha": ("best_alpha", "chosen_alpha", "a_pick"),
    "thresholds": ("thresholds", "cutoffs", "grid", "candidates"),
    "curves": ("curves", "f1_by_part", "by_part", "traces"),
    "scaler": ("scaler", "standardiser", "sc", "zscore"),
    "pred": ("pred", "predicted", "y_hat", "guesses"),
    "splitter": ("splitter", "cv_split", "fold_maker"),
    "within": ("within", "hit_rate", "in_band", "share_close"),
    "actual": ("actual", "observed", "obs", "seen"),
    "forecast": ("forecast", "predicted_values", "fc"),
    "n_test": ("n_test", "horizon", "n_last", "n_scored"),
    "history": ("history", "past", "record"),
    "error": ("error", "err", "miss"),
    "labels": ("labels", "targets", "classes_seen"),
    "counts": ("counts", "tallies", "freq"),
    "texts": ("texts", "docs", "bodies"),
    "cutoff": ("cutoff", "cut_date", "boundary"),
    "imputer": ("imputer", "filler", "fill_model"),
    "selector": ("selector", "picker", "kbest"),
    "evaluate": ("evaluate", "score_on", "measure"),
    "fitted": ("fitted", "train_model", "make_model"),
    "auc": ("auc", "auc_on", "rank_score"),
    "search": ("search", "gs", "tuner"),
    "nb": ("nb", "bayes", "nb_model"),
    "rows": ("rows", "picked_rows", "sel"),
    "recall": ("recall", "rec", "recall_value"),
    "precision": ("precision", "prec", "precision_value"),
    "proba": ("proba", "probs", "p_hat"),
}
# The split names move together, one style per pair: X_train, X_tr or train_X (and so on for each part).
SPLIT_STYLES: tuple[Callable[[str, str], str], ...] = (
    lambda base, part: f"{base}_{part}",
    lambda base, part: f"{base}_{ {'train': 'tr', 'test': 'te', 'val': 'va', 'fit': 'ft'}[part]}",
    lambda base, part: f"{part}_{base}",
)
SPLIT_NAMES = tuple(f"{base}_{part}" for base in ("X", "y") for part in ("train", "test", "val", "fit"))
NOTES = (
    "# model", "# evaluation", "# the figure for the write-up", "# as in the cell above", "# fit", "# scoring",
    "# setup", "# check", "# main run", "# numbers for the summary table", "# ---", "# prepare the data",
)
MAX_NOTES = 3
MECHANISM_CODE_KEYS = ("expr", "held", "probe", "train", "test", "X", "cv")


def draw(pair_id: str, codes: tuple[str, ...]) -> dict[str, str]:
    """The renames for one pair: old name -> new name, seeded by the pair id, never onto a word already used."""
    rng = random.Random(f"vary:{pair_id}")
    words = set(re.findall(r"\w+", "\n".join(codes)))
    renames: dict[str, str] = {}
    style = rng.choice(SPLIT_STYLES)
    for name in SPLIT_NAMES:
        base, part = name.split("_")
        renames[name] = style(base, part)
    for name, options in ALTERNATIVES.items():
        renames[name] = rng.choice(options)
    chosen: dict[str, str] = {}
    for old, new in renames.items():
        kept = words - set(chosen) - {old}  # names that stay in the code
        if old in words and new != old and new not in kept and new not in chosen.values():
            chosen[old] = new
    return chosen


def rename_words(text: str, renames: dict[str, str]) -> str:
    """Whole-word names of `renames` replaced, except after a dot (an attribute)."""
    if not renames:
        return text
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, sorted(renames, key=len, reverse=True))) + r")(?!\w)")
    return pattern.sub(lambda m: renames[m.group(1)], text)


def rename(code: str, renames: dict[str, str]) -> str:
    """`code` with the names of `renames` replaced where they are code: names, and the fields of f-strings.

    The text of a string is left alone (a column name, a printed word), so is an attribute (after a dot) and a
    keyword argument's name (`C=` in a call)."""
    if not renames:
        return code
    lines = code.splitlines(keepends=True)
    edits: list[tuple[int, int, int, str]] = []  # (row, start column, end column, new text), one line each
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(code).readline)
              if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT)]
    depth = 0
    for n, token in enumerate(tokens):
        (row, start), (end_row, end) = token.start, token.end
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        after_dot = n > 0 and tokens[n - 1].string == "."
        keyword = depth > 0 and n + 1 < len(tokens) and tokens[n + 1].string == "="
        if token.type == tokenize.NAME and token.string in renames and not after_dot and not keyword:
            edits.append((row, start, end, renames[token.string]))
        elif token.type == tokenize.STRING and row == end_row and re.match(r"[rRbB]?[fF]", token.string):
            fields = re.sub(r"\{[^{}]*\}", lambda m: rename_words(m.group(0), renames), token.string)
            edits.append((row, start, end, fields))
    for row, start, end, text in sorted(edits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + text + line[end:]
    return "".join(lines)


def _shape(code: str, renames: dict[str, str]) -> str:
    """The syntax tree with every Name, argument and function name renamed: equal before and after a rename."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            node.id = renames.get(node.id, node.id)
        elif isinstance(node, ast.arg):
            node.arg = renames.get(node.arg, node.arg)
        elif isinstance(node, ast.FunctionDef):
            node.name = renames.get(node.name, node.name)
    return ast.dump(tree)


def check_renamed(before: str, after: str, renames: dict[str, str]) -> None:
    if _shape(before, renames) != _shape(after, {}):
        raise ValueError("a rename changed more than names")


def _top_level_starts(code: str) -> set[int]:
    """0-based lines where a top-level statement starts, past the imports."""
    tree = ast.parse(code)
    return {node.lineno - 1 for node in tree.body if not isinstance(node, (ast.Import, ast.ImportFrom))}


def _imports(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith(("import ", "from "))]


def _with_notes(code: str, notes: dict[str, str]) -> str:
    """`notes[line]` (a comment, or "" for a blank line) before each top-level statement that is a key of it."""
    lines = code.splitlines()
    starts = _top_level_starts(code)
    out = []
    for n, line in enumerate(lines):
        if n in starts and line in notes:
            out.append(notes[line])
        out.append(line)
    return "\n".join(out) + "\n"


def _layout(pair_id: str, ok_code: str, bad_code: str) -> tuple[str, str]:
    """Both twins with the imports in a seeded order and a few seeded notes before lines they share."""
    rng = random.Random(f"layout:{pair_id}")
    ok_lines, bad_lines = ok_code.splitlines(), bad_code.splitlines()
    head = _imports(ok_lines)
    if sorted(head) != sorted(_imports(bad_lines)) or ok_lines[:len(head)] != head or sorted(
            bad_lines[:len(head)]) != sorted(head):
        raise ValueError(f"{pair_id}: the twins must open with the same imports")
    rng.shuffle(head)
    ok_lines, bad_lines = head + ok_lines[len(head):], head + bad_lines[len(head):]
    # Notes go before top-level statements that stand at the same place in both twins, once each: a note never
    # travels with a line the flaw moves, so the twins' difference stays the flaw's own.
    once = {line for line in ok_lines if ok_lines.count(line) == 1 and bad_lines.count(line) == 1}
    level = _top_level_starts("\n".join(ok_lines)) & _top_level_starts("\n".join(bad_lines))
    anchors = sorted(ok_lines[n] for n in level if n < len(bad_lines) and ok_lines[n] == bad_lines[n]
                     and ok_lines[n] in once and not ok_lines[n].startswith("#"))
    picked = rng.sample(anchors, min(len(anchors), rng.randint(1, MAX_NOTES)))
    notes = {line: rng.choice((*NOTES, "")) for line in picked}
    return _with_notes("\n".join(ok_lines), notes), _with_notes("\n".join(bad_lines), notes)


def vary(pair_id: str, ok_code: str, bad_code: str) -> tuple[str, str, dict[str, str]]:
    """Both twins with this pair's names, import order and notes; and the renames (for markers and mechanisms)."""
    renames = draw(pair_id, (ok_code, bad_code))
    renamed = []
    for code in (ok_code, bad_code):
        renamed.append(rename(code, renames))
        check_renamed(code, renamed[-1], renames)
    ok, bad = _layout(pair_id, *renamed)
    return ok, bad, renames


def vary_mechanism(mechanism: dict, renames: dict[str, str]) -> dict:
    """The mechanism record with the code expressions it names renamed as the code was."""
    out = dict(mechanism)
    if out.get("kind") in ("reaches", "deploy") and "held" not in out:
        out["held"] = "y_test.index"  # the mechanism test's default, named explicitly so that it can be renamed
    for key in MECHANISM_CODE_KEYS:
        if isinstance(out.get(key), str):
            out[key] = rename_words(out[key], renames) if renames else out[key]
    return out
