"""A request's body as the web application reads it: due in full within the body timeout, and read to its
end (within bounds) after an answer given before it was, so the client gets to read that answer.

Two things hypercorn leaves to the application:

- a body that trickles or stops would hold its call, and the body's memory, for as long as the client liked;
- an answer sent before the body was read (a refusal by the request's head: too large, unknown route, bad
  header) ends the request while the client is still sending. hypercorn then closes the connection with the
  client's bytes unread, which resets it, and the client, still writing, may never read the answer. Worse,
  hypercorn hands the body to the application through a queue of ten messages: once the queue is full, the
  "disconnect" it queues when the response ends waits for room that no one makes, and the connection hangs
  for good. So the rest of the body is read and dropped ("lingering") before the answer's last message goes.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from stud_service.server.web.early import send_refusal
from stud_service.server.web.limits import MAX_REQUEST_BYTES, request_timeout

# After an early answer, the rest of a body is read and dropped for at most this long and this much; a
# client sending more than that is cut off (a reset, which a client sending a body this large has earned).
LINGER_SECONDS = 2.0
LINGER_BYTES = 2 * MAX_REQUEST_BYTES


class RequestBody:
    """One request's ``receive`` and ``send``: its body is due in full ``seconds`` (0: no limit) after its
    head. Past that the client is answered REQUEST_TIMEOUT (HTTP 408, in the request's protocol's form),
    what waits for the body reads that the client went away, and what the application sends after is dropped.
    Once the body is in, waits are not limited (a watch's client sends nothing more)."""

    def __init__(self, scope: dict[str, Any], receive: Any, send: Any, seconds: float) -> None:
        self._scope, self._receive, self._send, self._seconds = scope, receive, send, seconds
        self._due = asyncio.get_running_loop().time() + seconds if seconds > 0 else None
        self._body_done = False
        self._responded = False  # a response has started: the client has its answer
        self._timed_out = False

    async def receive(self) -> dict[str, Any]:
        if self._body_done:
            return await self._receive()
        try:
            async with asyncio.timeout_at(self._due):
                message = await self._receive()
        except TimeoutError:
            self._body_done = True
            if not self._responded:
                message = f"the request body did not arrive in full within {self._seconds:g} s"
                await send_refusal(self._scope, self._send, request_timeout(message), 408)
                self._timed_out = True
            return {"type": "http.disconnect"}
        self._note(message)
        return message

    async def send(self, message: dict[str, Any]) -> None:
        if self._timed_out:
            return
        self._responded = True
        if message["type"] == "http.response.body" and not message.get("more_body", False) \
                and not self._body_done:
            await self._send({**message, "more_body": True})
            await self._linger()
            await self._send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        await self._send(message)

    async def _linger(self) -> None:
        """Read and drop the rest of the body, within LINGER_SECONDS (and the body's own time) and
        LINGER_BYTES."""
        until = asyncio.get_running_loop().time() + LINGER_SECONDS
        if self._due is not None:
            until = min(until, self._due)
        dropped = 0
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout_at(until):
                while not self._body_done and dropped <= LINGER_BYTES:
                    message = await self._receive()
                    dropped += len(message.get("body", b""))
                    self._note(message)

    def _note(self, message: dict[str, Any]) -> None:
        if message["type"] != "http.request" or not message.get("more_body", False):
            self._body_done = True
