"""DynamoDB transactions on moto: what a transaction backs up, and the conflicts it meets.

moto also backs up every table a transaction touches with a deep copy before applying
it, which makes each TransactWriteItems cost time in proportion to the table's size; a
long contract's run slows to a crawl. Here a transaction backs up only the items it
touches and restores exactly those when it is cancelled, with the same outcome.

Real DynamoDB refuses a write that meets a transaction in flight on the same item: a
TransactWriteItems touching an item another transaction holds is cancelled with a
`TransactionConflict` reason, and a PutItem, UpdateItem or DeleteItem on such an item fails
with TransactionConflictException
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling).
moto applies every request at once, so nothing ever conflicts and code that would meet
conflicts on AWS is never tested. Here every transaction holds its items for a window sampled
uniformly from 0 to MOTO_TRANSACTION_HOLD_MS milliseconds (default 10; 0 turns it off), and
writes that reach a held item in that window are refused as DynamoDB refuses them.
"""

import copy
import os
import random
import time

import moto.dynamodb.models as dynamodb_models
from moto.dynamodb.exceptions import DynamodbException, TransactionCanceledException
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table


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


HOLD_SECONDS = float(os.environ.get("MOTO_TRANSACTION_HOLD_MS", "10")) / 1000
ONGOING = "Transaction is ongoing for the item"

# (table name, hash key, range key) -> until when a transaction holds the item (monotonic s).
_held: dict = {}


class TransactionConflictException(DynamodbException):
    """What DynamoDB answers a single-item write on an item a transaction holds."""

    error_type = "com.amazonaws.dynamodb.v20120810#TransactionConflictException"

    def __init__(self):
        super().__init__(TransactionConflictException.error_type, message=ONGOING)


def _identity(table, hash_value, range_value):
    return (table.name, repr(hash_value), repr(range_value))


def _is_held(identity, now):
    until = _held.get(identity)
    if until is None:
        return False
    if until <= now:
        del _held[identity]
        return False
    return True


def _patch_transactions() -> None:
    original = DynamoDBBackend.transact_write_items
    dynamodb_models.copy = _CopyKeepingTables()

    def transact_write_items(self, transact_items):
        backups = []
        identities = []
        for entry in transact_items:
            try:
                _, op = next(iter(entry.items()))
                table = self.tables.get(op.get("TableName"))
                if table is None:
                    continue
                hash_value, range_value = _item_key(table, op)
                current = table.get_item(hash_value, range_value)
            except Exception:
                identities.append(None)
                continue  # malformed: moto's own validation reports it
            identities.append(_identity(table, hash_value, range_value))
            backups.append((table, hash_value, range_value, copy.deepcopy(current)))
        if HOLD_SECONDS > 0:
            now = time.monotonic()
            conflicts = [i is not None and _is_held(i, now) for i in identities]
            if any(conflicts):
                raise TransactionCanceledException(
                    [("TransactionConflict", ONGOING, None) if c else (None, None, None) for c in conflicts]
                )
        try:
            return original(self, transact_items)
        except Exception:
            for backup in reversed(backups):
                _restore(*backup)
            raise
        finally:
            # Held from now on, whatever its outcome: it was in flight on these items.
            if HOLD_SECONDS > 0:
                until = time.monotonic() + random.uniform(0, HOLD_SECONDS)
                for identity in identities:
                    if identity is not None:
                        _held[identity] = until

    DynamoDBBackend.transact_write_items = transact_write_items


def _patch_single_writes() -> None:
    """PutItem, UpdateItem and DeleteItem on an item a transaction holds are refused."""

    def guarded(original, key_of):
        def write(self, table_name, *args, **kwargs):
            if HOLD_SECONDS > 0 and _held:
                try:
                    table = self.get_table(table_name)
                    hash_value, range_value = _item_key(table, {"Key": key_of(args, kwargs)})
                    held = _is_held(_identity(table, hash_value, range_value), time.monotonic())
                except Exception:
                    held = False  # malformed: moto's own validation reports it
                if held:
                    raise TransactionConflictException()
            return original(self, table_name, *args, **kwargs)

        return write

    first = lambda name: lambda args, kwargs: args[0] if args else kwargs[name]  # noqa: E731
    DynamoDBBackend.put_item = guarded(DynamoDBBackend.put_item, first("item_attrs"))
    DynamoDBBackend.update_item = guarded(DynamoDBBackend.update_item, first("key"))
    DynamoDBBackend.delete_item = guarded(DynamoDBBackend.delete_item, first("key"))


def install() -> None:
    """Transactions back up only their items, and hold them against other writes for a moment."""
    _patch_transactions()
    _patch_single_writes()
