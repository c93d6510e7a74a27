"""moto's server, with DynamoDB requests applied one at a time.

DynamoDB applies each write, condition and transaction atomically. moto's threaded server
does not: two concurrent `SET n = n + :x` updates can interleave and lose one, and a
condition can pass on a value another thread is changing. Everything this project proves
(one claim winner, no call billed twice, spend never over the ceiling) rests on those
atomic writes, so this launcher serialises DynamoDB requests behind one lock, as a
faithful emulator must. Other services (SQS long polls above all) stay concurrent.

moto also backs up every table a transaction touches with a deep copy before applying
it, which makes each TransactWriteItems cost time in proportion to the table's size; a
long contract's run slows to a crawl. Here a transaction backs up only the items it
touches and restores exactly those when it is cancelled, with the same outcome.

Usage: python moto_serve.py -H 127.0.0.1 -p 5000
"""

import argparse
import copy
import signal
import sys
import threading

from werkzeug.serving import run_simple

import moto.dynamodb.models as dynamodb_models
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)


class SerialDynamoDB:
    """WSGI middleware: one DynamoDB request at a time, response body included."""

    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        if not target.startswith("DynamoDB_"):
            return self.app(environ, start_response)
        with self.lock:
            body = self.app(environ, start_response)
            try:
                return [b"".join(body)]
            finally:
                close = getattr(body, "close", None)
                if close:
                    close()


class _CopyKeepingTables:
    """`copy` for moto's DynamoDB module: a whole table is not deep-copied (see above)."""

    def __getattr__(self, name):
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value, memo=None):
        return value if isinstance(value, Table) else copy.deepcopy(value, memo)


def _item_key(table, op):
    attrs = op.get("Item") or op.get("Key") or {}
    hash_value = DynamoType(attrs[table.hash_key_attr])
    range_value = DynamoType(attrs[table.range_key_attr]) if table.range_key_attr else None
    return hash_value, range_value


def _restore(table, hash_value, range_value, item):
    if item is None:
        table.delete_item(hash_value, range_value)
    elif range_value is not None:
        table.items[hash_value][range_value] = item
    else:
        table.items[hash_value] = item


def _patch_transactions() -> None:
    original = DynamoDBBackend.transact_write_items
    dynamodb_models.copy = _CopyKeepingTables()

    def transact_write_items(self, transact_items):
        backups = []
        for entry in transact_items:
            try:
                _, op = next(iter(entry.items()))
                table = self.tables.get(op.get("TableName"))
                if table is None:
                    continue
                hash_value, range_value = _item_key(table, op)
                current = table.get_item(hash_value, range_value)
            except Exception:
                continue  # malformed: moto's own validation reports it
            backups.append((table, hash_value, range_value, copy.deepcopy(current)))
        try:
            return original(self, transact_items)
        except Exception:
            for backup in reversed(backups):
                _restore(*backup)
            raise

    DynamoDBBackend.transact_write_items = transact_write_items


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, required=True)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    _patch_transactions()
    app = DomainDispatcherApplication(create_backend_app)
    run_simple(
        args.host,
        args.port,
        SerialDynamoDB(app),
        threaded=True,
        request_handler=MotoRequestHandler,
    )


if __name__ == "__main__":
    main()
