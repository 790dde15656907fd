"""What bakeoff reads of files that are not records, typed and lenient: a journal line (bakeoff.records.journal:
the live display and `bakeoff status` read the journal while a batch appends to it) and a corpus manifest's head
(bakeoff.records.manifest: a generator of any age made it)."""

from __future__ import annotations

from bakeoff.batchfolder.files import Journal
from bakeoff.records.journal import JournalEvent
from bakeoff.records.manifest import ManifestHead


def test_a_line_reads_as_its_fields():
    line = {"at": "2026-12-06T00:00:00Z", "event": "stage_done", "run_id": "m-r01", "stage": "implement", "pid": 7,
            "wall_s": 3, "completion_tokens": 120, "generation_s": 1.5}
    assert JournalEvent.of(line) == JournalEvent("stage_done", "2026-12-06T00:00:00Z", "m-r01", "implement",
                                                 wall_s=3.0, completion_tokens=120, generation_s=1.5)


def test_a_field_of_another_type_reads_as_absent_never_as_an_error():
    line = {"event": 3, "run_id": ["x"], "stage": None, "step": "2", "wall_s": "slow", "completion_tokens": True,
            "generation_s": {"s": 1}, "node": 5}
    assert JournalEvent.of(line) == JournalEvent("")


def test_the_journal_hands_its_lines_typed_in_order(tmp_path):
    journal = Journal(tmp_path / "events.jsonl")
    journal.append("run_started", run_id="m-r01")
    journal.append("step_started", run_id="m-r01", stage="loop", step=2)
    events = journal.events()
    assert [(e.event, e.run_id, e.stage, e.step) for e in events] == [
        ("run_started", "m-r01", None, None), ("step_started", "m-r01", "loop", 2)]
    assert all(e.at for e in events)
    later, end = journal.events_from(0)
    assert later == events and end == (tmp_path / "events.jsonl").stat().st_size


def test_a_manifest_head_reads_its_text_fields_and_nothing_else():
    manifest = {"task": "x", "generator_version": "gen-2.0", "secret_id": "s1", "measured": {"rate": 0.1}}
    assert ManifestHead.of(manifest) == ManifestHead("x", "gen-2.0", "s1")
    assert ManifestHead.of({"task": 3, "secret_id": ["s"]}) == ManifestHead()
    assert ManifestHead.of(["not", "an", "object"]) == ManifestHead() == ManifestHead.of(None)
