"""The access log: a record of every privileged (operator or auditor) call, in the event log itself.

GLI-19 calls these significant events: who read or changed what, when, from where, and whether the
service let them. ``records`` is the record and its event, ``writer`` appends them (one stream per
writer and day), ``reading`` lists them for an auditor. docs/access-log.md says what is recorded.
"""

from stud_service.access.reading import AccessPage, BadPosition, list_access_records
from stud_service.access.records import (
    ACCESS_RECORDED,
    STREAM_PREFIX,
    AccessRecord,
    Outcome,
    StoredAccessRecord,
)
from stud_service.access.writer import AccessLog

__all__ = [
    "ACCESS_RECORDED",
    "STREAM_PREFIX",
    "AccessLog",
    "AccessPage",
    "AccessRecord",
    "BadPosition",
    "Outcome",
    "StoredAccessRecord",
    "list_access_records",
]
