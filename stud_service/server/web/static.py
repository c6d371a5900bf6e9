"""The web table's files (``stud_service/web/static``, built from ``web/``) at ``/``."""

from __future__ import annotations

import hashlib
import mimetypes
from dataclasses import dataclass
from importlib import resources
from typing import Any

# The page talks only to its own origin; nothing inline runs.
SECURITY_HEADERS = (
    (b"content-security-policy",
     b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
     b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


@dataclass(frozen=True)
class File:
    body: bytes
    content_type: str
    etag: str


def load_files() -> dict[str, File]:
    """Every file of the built page, by URL path ("/" is index.html); empty when none is built."""
    root = resources.files("stud_service.web").joinpath("static")
    files: dict[str, File] = {}
    if not root.is_dir():
        return files
    pending = [(root, "")]
    while pending:
        folder, prefix = pending.pop()
        for entry in folder.iterdir():
            if entry.is_dir():
                pending.append((entry, f"{prefix}/{entry.name}"))
                continue
            body = entry.read_bytes()
            kind = mimetypes.guess_type(entry.name)[0] or "application/octet-stream"
            if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
                kind += "; charset=utf-8"
            etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
            files[f"{prefix}/{entry.name}"] = File(body, kind, etag)
    if "/index.html" in files:
        files["/"] = files["/index.html"]
    if "/favicon.svg" in files:  # where a browser or a bookmark looks for a site's icon unasked
        files["/favicon.ico"] = files["/favicon.svg"]
    return files


async def send_file(file: File, scope: dict[str, Any], send: Any) -> None:
    headers = dict(scope.get("headers", ()))
    fresh = headers.get(b"if-none-match", b"").decode("latin-1") == file.etag
    response_headers = [
        (b"content-type", file.content_type.encode()),
        (b"etag", file.etag.encode()),
        (b"cache-control", b"no-cache"),  # revalidated each time: the ETag makes that cheap
        *SECURITY_HEADERS,
    ]
    if fresh:
        await send({"type": "http.response.start", "status": 304, "headers": response_headers})
        await send({"type": "http.response.body", "body": b""})
        return
    response_headers.append((b"content-length", str(len(file.body)).encode()))
    await send({"type": "http.response.start", "status": 200, "headers": response_headers})
    await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else file.body})
