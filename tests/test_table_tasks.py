"""The runtime's background tasks end when it closes, even one whose cancel was lost.

On Python 3.11 a cancel that lands as an ``asyncio.wait_for`` finishes (a pool's checkout) is swallowed
and the task goes on; a runtime's close must not wait for it for ever (a tournament's level clock would
sleep until a start hours away).
"""

from __future__ import annotations

import asyncio

from stud_service.server.tables.tasks import TableTasks


async def test_close_ends_a_task_that_went_on_after_its_cancel_and_one_that_failed():
    tasks = TableTasks(None, lambda _stream_id: None)
    cancels: list[int] = []

    async def goes_on_after_a_cancel() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancels.append(1)  # as a lost cancel: the task carries on
        await asyncio.sleep(3600)

    async def fails() -> None:
        raise ValueError("failed as it was closed")

    going_on = tasks.spawn(goes_on_after_a_cancel())
    failing = tasks.spawn(fails())
    asleep = tasks.spawn(asyncio.sleep(3600))
    await asyncio.sleep(0)
    closing = asyncio.create_task(tasks.close())
    ended, _ = await asyncio.wait({closing}, timeout=30)  # generous: it takes half a second
    if not ended:
        closing.cancel()
    assert closing in ended, "close() still waits for a task whose cancel was lost"
    assert cancels == [1] and going_on.cancelled() and asleep.cancelled()
    assert isinstance(failing.exception(), ValueError)
