"""bakeoff's records, typed: what a batch folder holds (docs/records.md), as frozen dataclasses.

Each record (batch, stage, run, analysis, and each of their parts) has `to_json()`, the object written to
disk, and `from_json(data)`; both come from its declared fields through one library (bakeoff.records.codec, msgspec).
A top-level record's `from_json` checks the `schema` tag first (UnknownRecordSchema for one it does not know); a
missing key, a value of the wrong type or outside its enum is a DamagedRecord naming its path. Unknown extra keys
are ignored on read. Reading and writing the files themselves is the runner's (bakeoff.batchfolder.files: durable's
capped reader, then the first schema's upgrade); this package holds no I/O.
"""

from bakeoff.records.analysis import ANALYSIS_SCHEMA, AnalysisRecord
from bakeoff.records.batch import BATCH_SCHEMA, BatchRecord, CodeVersion, Extension
from bakeoff.records.enums import (
    ENVIRONMENT_CRASHES,
    STAGE_NAME_PATTERN,
    STAGE_NAMES,
    TOOL_CALL_REASONS,
    UNCAPTURED_REASONS,
    UNUSABLE_REASONS,
    Attribution,
    CaptureReason,
    CaptureStatus,
    ClaimSource,
    CrashClass,
    LadderStatus,
    LoopEnd,
    RepairEffect,
    RepairGrant,
    RunStatus,
    Stage,
    StageName,
    environment_failure,
)
from bakeoff.records.errors import DamagedRecord, UnknownRecordSchema
from bakeoff.records.ladder import RUNG_NAMES, TOP_RUNG, Headline, LadderCheck, Requirement, Rung, turn_effect
from bakeoff.records.loop import (
    CallResult,
    LoopStep,
    LoopSummary,
    LoopUsage,
    StepReader,
    StepReaders,
    no_step_readers,
)
from bakeoff.records.parts import (
    Capture,
    Claim,
    Command,
    Commit,
    CompletionRecord,
    Crash,
    FileWritten,
    Prompt,
    PromptCut,
    PromptMessage,
    Resources,
    SkippedPath,
    Timings,
)
from bakeoff.records.plan import (
    DEFAULT_SCAFFOLD,
    ModelEntry,
    Plan,
    PlanChanged,
    PlanError,
    RunLimits,
    row_label,
)
from bakeoff.records.run import (
    RUN_SCHEMA,
    CaptureCounts,
    CorpusRef,
    ModelFacts,
    ModelRef,
    Outcome,
    RunRecord,
    StageSummary,
    TokenCounts,
)
from bakeoff.records.stage import STAGE_SCHEMA, RepairTurn, StageRecord

__all__ = [
    "STAGE_NAMES", "STAGE_NAME_PATTERN", "StageName", "ClaimSource", "CodeVersion", "Extension",
    "Headline", "ModelEntry", "Plan", "PlanChanged", "PlanError", "Rung", "RunLimits", "Stage",
    "turn_effect",
    "ANALYSIS_SCHEMA", "BATCH_SCHEMA", "ENVIRONMENT_CRASHES", "RUNG_NAMES", "RUN_SCHEMA", "STAGE_SCHEMA", "TOP_RUNG",
    "UNCAPTURED_REASONS", "UNUSABLE_REASONS", "AnalysisRecord", "Attribution", "BatchRecord", "Capture",
    "CaptureCounts", "CaptureReason", "CaptureStatus", "Claim", "Command", "Commit", "CompletionRecord", "CorpusRef",
    "Crash", "CrashClass", "DamagedRecord", "FileWritten", "LadderCheck", "LadderStatus", "ModelFacts", "ModelRef", "Outcome",
    "Prompt", "PromptCut", "PromptMessage", "RepairEffect", "RepairGrant", "RepairTurn", "Requirement", "Resources",
    "RunRecord", "RunStatus", "SkippedPath", "StageRecord", "StageSummary", "Timings", "TokenCounts",
    "UnknownRecordSchema",
    "DEFAULT_SCAFFOLD", "TOOL_CALL_REASONS", "CallResult", "LoopEnd", "LoopStep", "LoopSummary", "LoopUsage",
    "StepReader", "StepReaders", "environment_failure", "no_step_readers", "row_label",
]
