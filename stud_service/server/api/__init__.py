"""The application services: what each method of ``stud.v1`` does, whatever port the call came in on.

The servicers:

``table_service``    ``stud.v1.TableService``: tables, seats, the game and its watch streams
``table_watch``      TableService's watch streams: from the log, then live, redacted per viewer
``audit_service``    ``stud.v1.AuditService``: hand histories, replays, verification, client seeds
``cashier_service``  ``stud.v1.CashierService``: deposits, withdrawals, statements, suspensions
``tournament_service``  ``stud.v1.TournamentService``: the tournaments' lobby, entries, views and watches
``tournament_watch``    TournamentService's shared resources and its watch streams

What they share, about the call:

``call``         what a method knows of its call on either transport (metadata, deadline, peer)
``caller``       who is calling: the principal of the call's bearer token
``access``       privileged calls recorded in the access log before they run
``money_gate``   real money refused under the development keyring
``names``        resource names and ids, parsed and checked
``request_ids``  request ids scoped to the caller and bound to the request (AIP-155)
``page_tokens``  opaque, authenticated page tokens
``errors``       refusals as ``google.rpc.Status`` with ``ErrorInfo`` reasons (``Refused``)
``reasons``      the reasons a refusal may give (``stud.v1.ErrorReason``), each with its status code
``resuming``     where a watch stream may resume, and its heartbeat, checked

and about the messages, to and from proto:

``convert``         table configs in, tables and per-viewer table views out
``table_views``     a caller's view of a table and the ``Table`` resource, shared per version
``redact``          what one viewer may see of an event
``events_proto``    an event's JSON (as redacted for the viewer) as the typed ``TableEvent``
``replies``         reply parts built once per table version and shared (views per viewer, public events)
``ledger_convert``  accounts, entries and standings
``money_replies``   the money reconciliation report
``tournament_convert``  a tournament's structure in, the ``Tournament`` and a player's view out
``tournament_events``   a tournament's events as the typed ``TournamentEvent``
"""
