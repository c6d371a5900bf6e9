"""Where the database is: settings (flag / environment), the embedded PostgreSQL, connecting.

Use :func:`open_database` at service start and in commands::

    settings = DatabaseSettings.resolve(url=args.database_url, data_dir=args.data_dir)
    async with open_database(settings) as db:
        ...  # db.pool is a psycopg AsyncConnectionPool on a migrated database

No URL given (neither ``--database-url`` nor ``DATABASE_URL``) starts the embedded PostgreSQL
(the ``pgserver`` package) in ``<data dir>/pg``; a real server is only a URL away.
"""

from stud_service.db.connect import Database, DatabaseUnavailable, open_database, open_pool
from stud_service.db.embedded import EmbeddedPostgres
from stud_service.db.settings import (
    DatabaseSettings,
    add_database_arguments,
    default_data_dir,
    describe_url,
    redact_url,
    settings_from_args,
)

__all__ = [
    "Database",
    "DatabaseSettings",
    "DatabaseUnavailable",
    "EmbeddedPostgres",
    "add_database_arguments",
    "default_data_dir",
    "describe_url",
    "open_database",
    "open_pool",
    "redact_url",
    "settings_from_args",
]
