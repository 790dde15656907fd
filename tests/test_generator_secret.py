"""The spam corpus's hidden part is keyed by a secret: visible files from the seed alone (byte-identical to
the corpora made before secrets existed), the holdout from the seed and the secret, the secret only in
secret.hex and its id (never itself) in the manifest."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from bakeoff.cli import main
from generators.secret import PUBLIC_SECRET_HEX, SECRET_FILE, InvalidSecret, Secret, corpus_secret
from generators.spam_classifier import CorpusParams, generate_corpus

# sha256 of train.csv, excerpt.txt and the training rows of truth.csv (its header and first `rows` lines),
# written by the generator as it was before secrets (commit 6fe89a4, generator spam-1.0).
LEGACY_SMALL = CorpusParams(seed=7, rows=2000, holdout_rows=500)
LEGACY_SMALL_DIGESTS = {
    "train.csv": "0e89c2df5ee88fe17d4fb0bde5caa773c4a806659b18b0e9408b53a8d037f4ae",
    "excerpt.txt": "8b634195c154cbe565de592116601595f7c553af2f7caccd9409efaa4b1e0c8b",
    "truth.csv (training rows)": "4d2f1028b48d181c5ec7c5997468cc21d1e18478db6d09ef362281acbf78ab9c",
}
LEGACY_DEFAULT_DIGESTS = {  # the default corpus, seed 0, 208,000 + 50,000 rows
    "train.csv": "e1ebe7d194726aa4a9d2b9b10fa70c41214304726f23757fad4beed190c7503f",
    "excerpt.txt": "c084bd646d883fbca7c4307613c49ef94a5d9e92b299ca5b8b58a99127dd28c4",
    "truth.csv (training rows)": "55c9a40b3b20cad69144148c824fdbf4677b911b5f766086defaa5996ffefc5a",
}
HIDDEN_FILES = ("holdout.csv", "holdout_answers.csv")


def _visible_digests(folder: Path, rows: int) -> dict[str, str]:
    lines = (folder / "truth.csv").read_bytes().split(b"\n")
    training_truth = b"\n".join(lines[: rows + 1]) + b"\n"
    return {
        "train.csv": hashlib.sha256((folder / "train.csv").read_bytes()).hexdigest(),
        "excerpt.txt": hashlib.sha256((folder / "excerpt.txt").read_bytes()).hexdigest(),
        "truth.csv (training rows)": hashlib.sha256(training_truth).hexdigest(),
    }


def test_visible_files_are_byte_identical_to_the_generator_before_secrets(tmp_path):
    for secret in (Secret.fresh(), Secret.public()):
        out = tmp_path / secret.hex()[:8]
        generate_corpus(LEGACY_SMALL, out, secret=secret)
        assert _visible_digests(out, LEGACY_SMALL.rows) == LEGACY_SMALL_DIGESTS


@pytest.mark.slow
def test_the_default_corpus_visible_files_are_byte_identical_to_the_generator_before_secrets(tmp_path):
    generate_corpus(CorpusParams(), tmp_path / "default")
    assert _visible_digests(tmp_path / "default", CorpusParams().rows) == LEGACY_DEFAULT_DIGESTS


def test_the_holdout_depends_on_the_secret_and_the_same_secret_gives_the_same_bytes(tmp_path):
    params = CorpusParams(seed=3, rows=1500, holdout_rows=400)
    secret = Secret.fresh()
    generate_corpus(params, tmp_path / "a", secret=secret)
    generate_corpus(params, tmp_path / "b", secret=secret)
    generate_corpus(params, tmp_path / "c")  # a fresh secret of its own
    for name in ("train.csv", "excerpt.txt", *HIDDEN_FILES, "truth.csv", "manifest.json", SECRET_FILE):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert (tmp_path / "a" / "train.csv").read_bytes() == (tmp_path / "c" / "train.csv").read_bytes()
    for name in HIDDEN_FILES:
        assert (tmp_path / "a" / name).read_bytes() != (tmp_path / "c" / name).read_bytes(), name
    # Not only other rows: other labels, and not the first rows shifted.
    answers_a = (tmp_path / "a" / "holdout_answers.csv").read_text().splitlines()
    answers_c = (tmp_path / "c" / "holdout_answers.csv").read_text().splitlines()
    agree = sum(x == y for x, y in zip(answers_a[1:], answers_c[1:], strict=True)) / (len(answers_a) - 1)
    assert agree < 0.8  # two independent draws at 18% spam agree on about 70% of rows


def test_the_secret_lives_in_secret_hex_only_and_the_manifest_names_it_by_hash(tmp_path):
    secret = Secret.fresh()
    manifest = generate_corpus(CorpusParams(rows=300, holdout_rows=100), tmp_path / "c", secret=secret)
    folder = tmp_path / "c"
    assert corpus_secret(folder) == secret
    assert (folder / SECRET_FILE).stat().st_mode & 0o077 == 0, "readable by its owner only"
    written = json.loads((folder / "manifest.json").read_text())
    assert written["secret_id"] == manifest.secret_id == secret.identity
    assert written["generator_version"] == "spam-2.0"
    for name in os.listdir(folder):
        if name != SECRET_FILE:
            assert secret.hex() not in (folder / name).read_text(encoding="utf-8"), name
    assert SECRET_FILE not in written["sha256"]
    assert len(secret.value) * 8 >= 128 and Secret.fresh() != secret


def test_secret_files_are_read_strictly(tmp_path):
    (tmp_path / "short").write_text("abcd\n")
    (tmp_path / "nothex").write_text("z" * 64)
    (tmp_path / "binary").write_bytes(b"\xff\xfe" * 20)
    for name in ("short", "nothex", "binary", "absent"):
        with pytest.raises(InvalidSecret):
            Secret.read(tmp_path / name)
    (tmp_path / "spaced").write_text(" ".join(PUBLIC_SECRET_HEX[i : i + 8] for i in range(0, 64, 8)) + "\n")
    assert Secret.read(tmp_path / "spaced") == Secret.public()


def test_cli_secret_file_reproduces_the_hidden_part_and_a_bad_one_is_named(tmp_path):
    first, again, bad = tmp_path / "first", tmp_path / "again", tmp_path / "bad"
    args = ["generate", "--rows", "300", "--holdout-rows", "100", "--seed", "5"]
    result = CliRunner().invoke(main, [*args, "--out", str(first)])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, [*args, "--out", str(again), "--secret-file", str(first / SECRET_FILE)])
    assert result.exit_code == 0, result.output
    for name in ("holdout.csv", "holdout_answers.csv", "truth.csv", "manifest.json"):
        assert (first / name).read_bytes() == (again / name).read_bytes(), name
    (tmp_path / "weak.hex").write_text("00ff\n")
    result = CliRunner().invoke(main, [*args, "--out", str(bad), "--secret-file", str(tmp_path / "weak.hex")])
    assert result.exit_code != 0 and "error: InvalidSecret:" in result.output
    assert not bad.exists()


@pytest.mark.parametrize("task", ["spam_classifier", "ab_test"])
def test_grading_refuses_a_submission_that_brings_the_secret_in(tmp_path, task):
    from bakeoff.submission.safe_copy import ProtectedFileInSubmission, copy_submission
    from bakeoff.taskapi.plugin import GenerateRequest
    from bakeoff.tasks import task_plugin

    plugin = task_plugin(task)
    plugin.generate(GenerateRequest(tmp_path / "c", seed=0, options=dict(plugin.options.demo)))
    files = plugin.corpus_files(tmp_path / "c")
    assert (tmp_path / "c" / SECRET_FILE).resolve() in {p.resolve() for p in files.truth_files()}
    assert all(mount.host_path.name != SECRET_FILE for mount in files.mounts())
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "predict.py").write_text("print('hi')\n")
    os.link(tmp_path / "c" / SECRET_FILE, repo / "key.hex")  # a hard link regenerates the answers as well
    with pytest.raises(ProtectedFileInSubmission):
        copy_submission(repo, tmp_path / "ws", files.truth_files())


# --- pinned by mutation testing (bench/mutation.py): each value recomputed here by hand, not by the module -----


def test_the_public_secret_id_and_seed_material_match_an_independent_computation():
    public = Secret.public()
    assert public.hex() == "bc4d67ba5c335a5b2f2a67569f1f0df1500bba62b8f03c3aa17517cb979d0e7c"
    assert public.identity == "sha256:" + hashlib.sha256(
        b"bakeoff corpus secret id\x00" + bytes.fromhex(public.hex())).hexdigest()
    tag = int.from_bytes(hashlib.sha256(b"holdout").digest()[:8], "big")
    assert public.seed_sequence(7, "holdout").entropy == [7, int(public.hex(), 16), tag]
    assert public.seed_sequence(7, "holdout").entropy != public.seed_sequence(7, "labels").entropy


def test_a_fresh_secret_has_256_bits_and_128_bits_is_the_least_accepted():
    assert len(Secret.fresh().value) == 32
    assert Secret(b"\x01" * 16).hex() == "01" * 16
    with pytest.raises(InvalidSecret, match=r"^a secret needs at least 128 bits, got 120$"):
        Secret(b"\x01" * 15)
    with pytest.raises(InvalidSecret, match=r"^a secret is written as hexadecimal digits \(0-9, a-f\)$"):
        Secret.from_hex("0g" * 16)


def test_the_secret_file_is_written_for_its_owner_only_and_read_back(tmp_path):
    secret = Secret.fresh()
    path = secret.write(tmp_path)
    assert path == tmp_path / "secret.hex" and path.read_text(encoding="ascii") == secret.hex() + "\n"
    assert path.stat().st_mode & 0o777 == 0o600
    assert Secret.read(path) == secret == corpus_secret(tmp_path)
    with pytest.raises(FileExistsError):  # never over an existing secret
        secret.write(tmp_path)
    assert corpus_secret(tmp_path / "elsewhere") is None


def test_a_secret_file_is_refused_by_size_and_bytes_with_its_name(tmp_path):
    big, binary, short = tmp_path / "big.hex", tmp_path / "binary.hex", tmp_path / "short.hex"
    big.write_text("0" * 4097)
    with pytest.raises(InvalidSecret, match=f"^{big} is over 4096 bytes: not a secret file$"):
        Secret.read(big)
    big.write_text("0" * 4096)  # exactly the cap: read, and all zeros is a valid (if silly) secret
    assert Secret.read(big).value == bytes(2048)
    binary.write_bytes(b"\xff" * 40)
    with pytest.raises(InvalidSecret, match=f"^{binary} is not a secret file \\(not hexadecimal text\\)$"):
        Secret.read(binary)
    short.write_text("00ff\n")
    with pytest.raises(InvalidSecret, match=f"^{short}: a secret needs at least 128 bits, got 16$"):
        Secret.read(short)
    with pytest.raises(InvalidSecret, match=f"^cannot read the secret file {tmp_path / 'absent'}: No such file"):
        Secret.read(tmp_path / "absent")
