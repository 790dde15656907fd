"""Writing Every Eval Ever records, each checked against the schemas the `every-eval-ever` package ships.

The layout is the datastore's: data/<benchmark>/<developer>/<model>/<uuid>.json with its
instances beside it as <uuid>_samples.jsonl (sha256 and row count in the aggregate's
`detailed_evaluation_results`). A record that does not validate is never written.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import durable
from bakeoff.export.eee_records import EeeRecord, review_records, run_records
from bakeoff.export.errors import ExportExtraMissing, ExportOutputInvalid
from bakeoff.export.source import ExportSource

EXTRA = "eee"
AGGREGATE_SCHEMA = "eval.schema.json"
INSTANCE_SCHEMA = "instance_level_eval.schema.json"


def load_schemas() -> tuple[dict, dict]:
    """The aggregate and the instance schema as every_eval_ever ships them, or ExportExtraMissing."""
    try:
        from importlib import resources

        import jsonschema  # noqa: F401  (the validator below)

        folder = resources.files("every_eval_ever.schemas")
        return (durable.loads(folder.joinpath(AGGREGATE_SCHEMA).read_bytes(), what=AGGREGATE_SCHEMA),
                durable.loads(folder.joinpath(INSTANCE_SCHEMA).read_bytes(), what=INSTANCE_SCHEMA))
    except (ImportError, FileNotFoundError) as exc:
        raise ExportExtraMissing(f"the eee format needs every-eval-ever and jsonschema ({exc}): "
                                 f"pip install 'bakeoff[{EXTRA}]'") from None


def schema_errors(record: dict, schema: dict) -> list[str]:
    import jsonschema

    validator = jsonschema.Draft7Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in validator.iter_errors(record)]


def _finish(record: EeeRecord, aggregate_schema: dict, instance_schema: dict) -> tuple[dict, str | None]:
    """The aggregate (pointing at its instances, when it has any) and the instances' text, both validated."""
    lines = []
    for instance in record.instances:
        errors = schema_errors(instance, instance_schema)
        if errors:
            raise ExportOutputInvalid(f"an instance of {record.path} does not fit the EEE schema: {errors[:3]}")
        lines.append(durable.dumps(instance, ensure_ascii=False))
    text = "".join(line + "\n" for line in lines)
    aggregate = dict(record.aggregate)
    if lines:  # a model never graded has aggregates only; the datastore refuses an empty instances file
        aggregate["detailed_evaluation_results"] = {
            "format": "jsonl", "file_path": record.instances_path, "hash_algorithm": "sha256",
            "checksum": hashlib.sha256(text.encode("utf-8")).hexdigest(), "total_rows": len(lines)}
    errors = schema_errors(aggregate, aggregate_schema)
    if errors:
        raise ExportOutputInvalid(f"{record.path} does not fit the EEE schema: {errors[:3]}")
    return aggregate, text if lines else None


def export_eee(source: ExportSource, out: Path) -> list[Path]:
    aggregate_schema, instance_schema = load_schemas()
    retrieved = str(int(time.time()))
    written = []
    for record in run_records(source, retrieved) + review_records(source, retrieved):
        aggregate, text = _finish(record, aggregate_schema, instance_schema)
        path = out / record.path
        path.parent.mkdir(parents=True, exist_ok=True)
        durable.write_text(path, durable.dumps(aggregate, indent=1, ensure_ascii=False) + "\n")
        written.append(path)
        if text is not None:
            durable.write_text(out / record.instances_path, text)
            written.append(out / record.instances_path)
    return written
