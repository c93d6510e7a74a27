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

moto's Query walks every item of every partition, sorted, to pick the partition asked for:
each Query costs time in proportion to the whole table, and a job of 10,000 calls holds that
many ledger items. Here a Query on the table walks only the partition asked for, which is what
DynamoDB's key lookup does, and a Query on an index (the sweeper's status index) sorts only the
items whose index key matches, after one plain pass over the table. A plain Query on the table
with string sort keys (no filter, no projection: the ledger and checkpoint reads) is paged here
with moto's own key comparisons and size measure but without its per-page re-sort, item-by-item
skip of earlier pages and deep copy, so reading a 10,000-call job's ledger costs time in
proportion to its pages, not to its pages times the partition.

moto writes each DynamoDB answer through a generic serializer driven by the service model,
attribute by attribute: about half a millisecond per item, so reading a 10,000-call job's
ledger takes seconds. An item-reading answer (Query, Scan, GetItem, BatchGetItem) is
already in DynamoDB's wire form once moto has built it, so here it is written as JSON
directly; an answer JSON cannot hold as it is (binary attributes) goes the generic way.

Real DynamoDB refuses a write that meets a transaction in flight on the same item: a
TransactWriteItems touching an item another transaction holds is cancelled with a
`TransactionConflict` reason, and a PutItem, UpdateItem or DeleteItem on such an item fails
with TransactionConflictException
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling).
moto applies every request at once, so nothing ever conflicts and code that would meet
conflicts on AWS is never tested. Here every transaction holds its items for a window sampled
uniformly from 0 to MOTO_TRANSACTION_HOLD_MS milliseconds (default 10; 0 turns it off), and
writes that reach a held item in that window are refused as DynamoDB refuses them.

DynamoDB refuses a request whose ExpressionAttributeNames or ExpressionAttributeValues hold a
placeholder no expression of it uses ("Value provided in ExpressionAttributeValues unused in
expressions: keys: {:x}", a ValidationException, before any table is read). moto checks this for
UpdateItem, and for names only on PutItem, DeleteItem, Query and Scan; it accepts unused values
there and accepts both in a TransactWriteItems action, which is where a shared set of values most
easily slips in. Here each of those is checked as DynamoDB checks it: a transaction's actions
one by one in request order, the first unused placeholder refused for the whole request. The
wording per operation (with or without the "1 validation error detected: " prefix) is as
measured against the live service in https://github.com/floci-io/floci/issues/2893 and
https://github.com/paritysuite/dynamodb-conformance (tests/tier3/validation-ordering).

Cognito identity pools, which moto answers with one fixed key for everyone, are modelled as
Cognito hands out credentials; see moto_cognito.py.

moto parses an UpdateExpression from its text twice per UpdateItem (and once per update in a
transaction), and the pipeline sends the same few expressions thousands of times. Parsed trees
are kept by their text here: moto's validator works on a deep copy of the tree it is given, so a
kept tree is never changed, and an expression that does not parse is parsed (and refused) anew
each time.

moto's ReceiveMessage checks each waiting message against the queue's retention period by
building every attribute of the queue, ApproximateNumberOfMessages among them, which walks the
whole queue again: a receive cost time in proportion to the square of the backlog, and a lane
holding thousands of chunk messages slowed every poll. Here the check reads the retention period
alone, and SQS's clock is read with time.time() instead of through datetime arithmetic, with the
same outcome.

SQS standard queues whose messages carry a MessageGroupId deliver as fair queues do (quiet
tenants first; see moto_fair_queues.py). MOTO_FAIR_QUEUES=0 leaves moto's send order.

S3 POST uploads are held to their POST policy (its conditions, its `content-length-range`) as
S3 holds them; see moto_s3_post.py.

Werkzeug's development server closes the connection after every answer (it sends `Connection:
close` because http.server cannot drain a request body the application left unread), so every
request paid a TCP connect and a new server thread on both sides: about a millisecond of the
client's CPU per request, and more of the server's. AWS endpoints keep HTTP/1.1 connections
open and the SDK reuses them
(https://docs.aws.amazon.com/sdk-for-javascript/v3/developer-guide/node-reusing-connections.html).
Here a request whose body has a Content-Length is read whole before it is handled, so nothing is
left on the connection, and the connection stays open for the next request; a chunked request
body still ends its connection.

moto validates every UpdateItem by walking its parsed expression with ten processors, and each
processor built its map of node types anew for every node it visited; two of them (at most one
clause of each kind, no two paths overlapping) walked the whole tree again per update, though
their answer depends only on the expression's text and its attribute names. Profiled under the
pipeline bench, UpdateItem was 57 % of the server's CPU and its validation 37 %, most of it on
the call ledger's settlements (thirteen SET actions each). Here each processor keeps its map, and a parsed
expression (kept by its text, above) that passed the two structural checks with a set of names
skips them with those names again; any other names, or a text that was refused, are checked in
full. Finding the backend of a request listed moto's 150 service directories from disk and
matched the host against every service's URL patterns, and finding its action listed the
response class's methods with inspect, on every request: each is worked out once here.

MOTO_PROFILE=<file> profiles the server: each request's handling (reading it, the answer,
writing it) is timed by cProfile on its own thread's CPU clock, and when the server stops the
functions that took the most CPU, in total and in themselves, are written to the file, with the
requests counted by service and action. It is for finding where the emulator's time goes; it
slows every request.

Usage: python moto_serve.py -H 127.0.0.1 -p 5000
"""

import argparse
import atexit
import bisect
import copy
import functools
import io
import json
import logging
import operator
import os
import random
import re
import signal
import sys
import threading
import time
from urllib.parse import urlsplit

from werkzeug.serving import run_simple

from moto_cognito import CredentialLookup, patch_cognito
import moto_fair_queues
import moto_s3_post

import moto.backends as moto_backends
import moto.core.responses as core_responses
import moto.dynamodb.models as dynamodb_models
import moto.sqs.models as sqs_models
from moto.dynamodb.exceptions import (
    DynamodbException,
    MockValidationException,
    TransactionCanceledException,
)
from moto.dynamodb.comparisons import OpDefault
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import RESULT_SIZE_LIMIT, Table
from moto.dynamodb.parsing.ast_nodes import DepthFirstTraverser
from moto.dynamodb.parsing.expressions import UpdateExpressionParser
from moto.dynamodb.parsing.validators import (
    ActionCountValidator,
    OverlappingPathsValidator,
    UpdateExpressionValidator,
)
from moto.dynamodb.responses import DynamoHandler, DynamoResult
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


class _NothingLeft:
    """A request stream already read to its end."""

    @staticmethod
    def read(size=-1):
        return b""


class _RequestProfile:
    """MOTO_PROFILE: per-request cProfile runs on the thread CPU clock, merged at exit (see above)."""

    def __init__(self, path):
        import cProfile
        import pstats

        self.path = path
        self.cprofile = cProfile
        self.pstats = pstats
        self.lock = threading.Lock()
        self.pending = []
        self.stats = None
        self.requests = {}

    def run(self, handle, label):
        profile = self.cprofile.Profile(time.thread_time)
        profile.enable()
        try:
            handle()
        finally:
            profile.disable()
            with self.lock:
                key = label()
                self.requests[key] = self.requests.get(key, 0) + 1
                self.pending.append(profile)
                if len(self.pending) >= 200:
                    self._merge()

    def _merge(self):
        for profile in self.pending:
            if self.stats is None:
                self.stats = self.pstats.Stats(profile)
            else:
                self.stats.add(profile)
        self.pending = []

    def write(self):
        with self.lock:
            self._merge()
            if self.stats is None:
                return
            with open(self.path, "w") as out:
                out.write("requests by service and action:\n")
                for key, n in sorted(self.requests.items(), key=lambda kv: -kv[1]):
                    out.write(f"{n:10d}  {key}\n")
                self.stats.stream = out
                self.stats.sort_stats("cumulative").print_stats(80)
                self.stats.sort_stats("tottime").print_stats(60)


_PROFILE = _RequestProfile(os.environ["MOTO_PROFILE"]) if os.environ.get("MOTO_PROFILE") else None


class KeepAliveRequestHandler(MotoRequestHandler):
    """Keeps HTTP/1.1 connections open between requests whose body length is known (see above)."""

    keep_alive = False

    def handle_one_request(self):
        # Until this request's body is read whole, an answer (an error among them) ends the connection.
        self.keep_alive = False
        if _PROFILE is None:
            super().handle_one_request()
        else:
            _PROFILE.run(super().handle_one_request, self._request_label)

    def _request_label(self):
        headers = getattr(self, "headers", None)
        target = headers.get("X-Amz-Target", "") if headers else ""
        if target:
            return target
        return f"{getattr(self, 'command', '?')} {urlsplit(getattr(self, 'path', '') or '').path.split('/')[1:2]}"

    def run_wsgi(self):
        # After answering, werkzeug drains whatever the client sent since (it expects to close the
        # connection): on a kept connection that would swallow the next request, so the drain is
        # given a stream with nothing left in it, and the connection's own stream comes back after.
        stream = self.rfile
        try:
            super().run_wsgi()
        finally:
            self.rfile = stream

    def make_environ(self):
        environ = super().make_environ()
        length = environ.get("CONTENT_LENGTH") or "0"
        if environ.get("wsgi.input_terminated") or not length.isdigit():
            return environ
        environ["wsgi.input"] = io.BytesIO(self.rfile.read(int(length)) if length != "0" else b"")
        self.keep_alive = True
        self.rfile = _NothingLeft()
        return environ

    def send_header(self, keyword, value):
        if keyword.lower() == "connection" and value.lower() == "close" and self.keep_alive:
            return
        super().send_header(keyword, value)


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


def _table_order(item):
    return (item.hash_key, item.range_key) if item.range_key else item.hash_key


def _equal(attr, value):
    return attr is not None and attr == value


def _index_partition(table, conditions):
    """The items an index query's key conditions can match, in moto's own (table key) order."""
    out = []
    for hash_set in table.items.values():
        for item in hash_set.values() if table.range_key_attr else (hash_set,):
            if all(_equal(item.attrs.get(name), value) for name, value in conditions):
                out.append(item)
    return sorted(out, key=_table_order)


def _string_keyed(table, start):
    """True when the table's sort key is a string (type S; moto refuses items whose key has
    another type) and so is the start key's, so items sort by their values as moto sorts them."""
    if table.range_key_type != "S":
        return False
    return start is None or set(start.get(table.range_key_attr) or {}) == {"S"}


_SORT_VALUE = operator.attrgetter("range_key.value")


def _table_page(table, partition, range_comparison, range_objs, limit, start, forward):
    """One page of a Query on the table's own key, with no index, filter or projection: the
    items matching the key condition in sort-key order from just after the start key, up to
    the limit or to 1 MB of items (moto's size measure), as DynamoDB pages a Query. moto walks
    and re-sorts the whole partition with its typed comparisons for every page, skips the earlier
    pages item by item and deep-copies the page; paging a 10,000-call ledger cost seconds, and
    so did every Query of one chunk's entries in it. Here the walk starts where the start key or
    a begins_with prefix puts it (a binary search), and a prefix's run ends at its first
    non-matching item; moto's own comparison decides every item."""
    partition.sort(key=_SORT_VALUE)
    lo, hi = 0, len(partition)
    if start is not None:
        after = start[table.range_key_attr]["S"]
        if forward:
            lo = bisect.bisect_right(partition, after, key=_SORT_VALUE)
        else:
            hi = bisect.bisect_left(partition, after, key=_SORT_VALUE)
    prefix = range_comparison == "BEGINS_WITH"
    if prefix and forward:
        lo = max(lo, bisect.bisect_left(partition, range_objs[0].value, key=_SORT_VALUE))
    candidates = partition[lo:hi] if forward else partition[lo:hi][::-1]
    results = []
    size = 0
    last_key = None
    for item in candidates:
        if range_comparison and not item.range_key.compare(range_comparison, range_objs):
            if prefix and results:
                break
            continue
        item_size = item.size()
        if len(results) == limit or size + item_size > RESULT_SIZE_LIMIT:
            last_key = table._get_last_evaluated_key(results[-1], None) if results else None
            break
        results.append(item)
        size += item_size
    # The items are the table's own, not copies: the answer is written out while this request
    # still holds the lock, and nothing here or there changes them.
    return results, len(results), last_key


def _patch_partition_query() -> None:
    original = Table.query

    def query(self, hash_key, *args, **kwargs):
        # moto's backend passes index_name as the eighth positional argument.
        index_name = args[6] if len(args) > 6 else kwargs.get("index_name")
        conditions = kwargs.get("hash_key_conditions") or []
        if index_name and conditions:
            # moto sorts every item of the table before picking those with the index key asked
            # for; here only those are picked (then sorted as moto sorts them), so an index
            # query costs time in proportion to a cheap pass, not to sorting the whole table.
            # moto's own key checks still run on what is handed to it.
            partition = _index_partition(self, conditions)
        elif index_name or hash_key is None or not self.range_key_attr:
            return original(self, hash_key, *args, **kwargs)
        else:
            partition = list(self.items.get(hash_key, {}).values())
            range_comparison, range_objs, limit, start, forward, projection = args[:6]
            filter_expression = args[8] if len(args) > 8 else kwargs.get("filter_expression")
            plain = (
                not projection
                and (filter_expression is None or isinstance(filter_expression, OpDefault))
                and len(kwargs.get("range_key_conditions") or []) <= 1
                and not set(kwargs) - {"hash_key_conditions", "range_key_conditions"}
            )
            if plain and _string_keyed(self, start):
                return _table_page(self, partition, range_comparison, range_objs, limit, start, forward)
        # Requests are serialised, so the override is seen by this call alone.
        self.all_items = lambda: partition
        try:
            return original(self, hash_key, *args, **kwargs)
        finally:
            del self.all_items

    Table.query = query


_EXPRESSIONS = (
    "ConditionExpression",
    "UpdateExpression",
    "KeyConditionExpression",
    "FilterExpression",
    "ProjectionExpression",
)
_PLACEHOLDER = re.compile(r"[#:][A-Za-z0-9_]+")


def unused_placeholders(request, prefix):
    """The ValidationException DynamoDB answers when `request` (one operation's parameters,
    or one transaction action's) provides a name or value no expression of it uses; None when
    every one is used (a request with no expression at all is left to moto's own checks)."""
    texts = [request[k] for k in _EXPRESSIONS if isinstance(request.get(k), str)]
    if not texts:
        return None
    used = set(_PLACEHOLDER.findall(" ".join(texts)))
    for kind in ("Names", "Values"):
        unused = [k for k in request.get(f"ExpressionAttribute{kind}") or {} if k not in used]
        if unused:
            return MockValidationException(
                f"{prefix}Value provided in ExpressionAttribute{kind} unused in expressions: "
                f"keys: {{{', '.join(unused)}}}"
            )
    return None


def _patch_unused_placeholders() -> None:
    prefixed = "1 validation error detected: "
    checks = {
        "put_item": lambda body: [unused_placeholders(body, prefixed)],
        "delete_item": lambda body: [unused_placeholders(body, prefixed)],
        "query": lambda body: [unused_placeholders(body, "")],
        "scan": lambda body: [unused_placeholders(body, "")],
        "transact_write_items": lambda body: [
            unused_placeholders(op, "")
            for entry in body.get("TransactItems") or []
            for op in entry.values()
            if isinstance(op, dict)
        ],
    }

    def checked(original, check):
        def action(self):
            for refusal in check(self.body):
                if refusal is not None:
                    raise refusal
            return original(self)

        return action

    for name, check in checks.items():
        setattr(DynamoHandler, name, checked(getattr(DynamoHandler, name), check))


_ITEM_READS = frozenset({"Query", "Scan", "GetItem", "BatchGetItem"})


def _patch_fast_item_answers() -> None:
    original = DynamoResult.execute_result

    def execute_result(self, context):
        if context.operation_model.name in _ITEM_READS:
            try:
                body = json.dumps(self.result, separators=(",", ":"))
            except TypeError:
                return original(self, context)
            return 200, {"Content-Type": "application/x-amz-json-1.0"}, body
        return original(self, context)

    DynamoResult.execute_result = execute_result


_PARSED_UPDATES_KEPT = 4096


def _patch_parsed_update_expressions() -> None:
    original = UpdateExpressionParser.make.__func__
    parsed = {}
    lock = threading.Lock()

    def make(cls, expression_str):
        tree = parsed.get(expression_str)
        if tree is None:
            tree = original(cls, expression_str)
            with lock:
                if len(parsed) < _PARSED_UPDATES_KEPT:
                    parsed[expression_str] = tree
        return tree

    UpdateExpressionParser.make = classmethod(make)


def _patch_validation_cost() -> None:
    """UpdateItem's validation with the same outcome at a fraction of moto's cost (see above)."""

    def processing(self):
        kept = self.__dict__.get("_kept_processing")
        if kept is None:
            by_type = self._processing_map()
            kept = (by_type, tuple(by_type))
            self.__dict__["_kept_processing"] = kept
        return kept

    def nodes_to_be_processed(self):
        return processing(self)[1]

    def process(self, node):
        for class_key, processor in processing(self)[0].items():
            if isinstance(node, class_key):
                return processor(node)

    # Subclasses that choose their own node types keep them.
    DepthFirstTraverser.nodes_to_be_processed = nodes_to_be_processed
    DepthFirstTraverser.process = process

    structural = (ActionCountValidator, OverlappingPathsValidator)
    original_init = UpdateExpressionValidator.__init__
    original_validate = UpdateExpressionValidator.validate

    def __init__(self, expression, expression_attribute_names, expression_attribute_values, item, table):
        original_init(self, expression, expression_attribute_names, expression_attribute_values, item, table)
        self._kept_tree = expression
        self._kept_names = frozenset((expression_attribute_names or {}).items())
        checked = expression.__dict__.get("_structure_checked", ())
        if self._kept_names in checked:
            self.processors = [p for p in self.processors if not isinstance(p, structural)]

    def validate(self):
        node = original_validate(self)
        checked = self._kept_tree.__dict__.setdefault("_structure_checked", set())
        if len(checked) < 64:
            checked.add(self._kept_names)
        return node

    UpdateExpressionValidator.__init__ = __init__
    UpdateExpressionValidator.validate = validate


def _patch_dispatch_cost() -> None:
    """Which backend and which action a request is for, worked out once (see above)."""
    modules = tuple(moto_backends.list_of_moto_modules())
    moto_backends.list_of_moto_modules = lambda: modules

    original_backend_for_host = DomainDispatcherApplication.get_backend_for_host
    backends_by_host = {}

    def get_backend_for_host(self, host):
        # Called under the dispatcher's own lock.
        if host not in backends_by_host:
            backends_by_host[host] = original_backend_for_host(self, host)
        return backends_by_host[host]

    DomainDispatcherApplication.get_backend_for_host = get_backend_for_host
    core_responses.method_names_from_class = functools.lru_cache(maxsize=None)(
        core_responses.method_names_from_class
    )


def _patch_sqs_receive_cost() -> None:
    original_unix_time = sqs_models.unix_time

    def unix_time(dt=None):
        return time.time() if dt is None else original_unix_time(dt)

    def unix_time_millis(dt=None):
        return unix_time(dt) * 1000.0

    def is_message_valid_based_on_retention_period(self, queue_name, message):
        retention_period = int(self.get_queue(queue_name).message_retention_period)
        return retention_period + message.sent_timestamp / 1000 > time.time()

    sqs_models.unix_time = unix_time
    sqs_models.unix_time_millis = unix_time_millis
    sqs_models.SQSBackend.is_message_valid_based_on_retention_period = is_message_valid_based_on_retention_period


def _leave_with_parent() -> None:
    """The launcher is a child of a test run or a CLI command: if that process is killed
    outright, nothing else would stop this server, so it exits when its parent goes."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(1)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, required=True)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    _patch_transactions()
    _patch_single_writes()
    _patch_partition_query()
    _patch_fast_item_answers()
    _patch_unused_placeholders()
    _patch_sqs_receive_cost()
    _patch_parsed_update_expressions()
    _patch_validation_cost()
    _patch_dispatch_cost()
    patch_cognito()
    moto_fair_queues.install()
    moto_s3_post.install()
    _leave_with_parent()
    if _PROFILE is not None:
        atexit.register(_PROFILE.write)
    # One log line per request costs the server about a tenth of its time under load, and
    # nobody reads it: the launcher drops it once the server answers. Errors still show.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    app = DomainDispatcherApplication(create_backend_app)
    run_simple(
        args.host,
        args.port,
        CredentialLookup(SerialDynamoDB(app)),
        threaded=True,
        request_handler=KeepAliveRequestHandler,
    )


if __name__ == "__main__":
    main()
