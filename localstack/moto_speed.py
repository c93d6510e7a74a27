"""moto made cheaper where it spends its time, every answer the same as moto's own.

moto's Query walks every item of every partition, sorted, to pick the partition asked for:
each Query costs time in proportion to the whole table, and a job of 10,000 calls holds that
many ledger items. Here a Query on the table walks only the partition asked for, which is what
DynamoDB's key lookup does, and a Query on an index (the sweeper's status index) sorts only the
items whose index key matches, after one plain pass over the table (a string key compared
inline, the way DynamoType compares two strings: the pass was 9 % of the server's CPU with a
thousand jobs' items in the table). A plain Query on the table
with string sort keys (no filter, no projection: the ledger and checkpoint reads) is paged here
with moto's own key comparisons and size measure but without its per-page re-sort, item-by-item
skip of earlier pages and deep copy, so reading a 10,000-call job's ledger costs time in
proportion to its pages, not to its pages times the partition.

moto writes each DynamoDB answer through a generic serializer driven by the service model,
attribute by attribute: about half a millisecond per item, so reading a 10,000-call job's
ledger takes seconds. An item-reading answer (Query, Scan, GetItem, BatchGetItem) is
already in DynamoDB's wire form once moto has built it, so here it is written as JSON
directly; an answer JSON cannot hold as it is (binary attributes) goes the generic way.

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

moto validates every UpdateItem by walking its parsed expression with ten processors, and each
processor built its map of node types anew for every node it visited; two of them (at most one
clause of each kind, no two paths overlapping) walked the whole tree again per update, though
their answer depends only on the expression's text and its attribute names. Profiled under the
pipeline bench, UpdateItem was 57 % of the server's CPU and its validation 37 %, most of it on
the call ledger's settlements (thirteen SET actions each). Here each processor keeps its map, and a parsed
expression (kept by its text, above) that passed the two structural checks with a set of names
skips them with those names again; any other names, or a text that was refused, are checked in
full. The validator then works on a deep copy of the kept tree, and Python's generic deepcopy
(each node reduced and rebuilt through copyreg) was 13 % of the server's CPU in the thousand
bench. A kept tree is pickled once as parsed, and its copy is that pickle loaded (a fifth of
deepcopy's time): the same graph of nodes, parents included, since both go through the nodes'
reduce protocol. Any other node copies itself field by field, its parent and children through
the same memo. Finding the backend of a request listed moto's 150 service directories from disk and
matched the host against every service's URL patterns, and finding its action listed the
response class's methods with inspect, on every request: each is worked out once here.
"""

import bisect
import copy
import functools
import json
import operator
import pickle
import threading
import time

import moto.backends as moto_backends
import moto.core.responses as core_responses
import moto.sqs.models as sqs_models
from moto.dynamodb.comparisons import OpDefault
from moto.dynamodb.models.table import RESULT_SIZE_LIMIT, Table
from moto.dynamodb.parsing.ast_nodes import DepthFirstTraverser, Node
from moto.dynamodb.parsing.expressions import UpdateExpressionParser
from moto.dynamodb.parsing.validators import (
    ActionCountValidator,
    OverlappingPathsValidator,
    UpdateExpressionValidator,
)
from moto.dynamodb.responses import DynamoResult
from moto.moto_server.werkzeug_app import DomainDispatcherApplication


def _table_order(item):
    return (item.hash_key, item.range_key) if item.range_key else item.hash_key


def _equal(attr, value):
    return attr is not None and attr == value


def _index_partition(table, conditions):
    """The items an index query's key conditions can match, in moto's own (table key) order.

    Every item of the table is looked at: a string index key (the usual kind) is compared as
    moto's DynamoType compares two strings, by type and text, inline; any other key goes through
    DynamoType's own equality."""
    (name, value), rest = conditions[0], conditions[1:]
    text = value.value if value.type == "S" else None
    out = []
    for hash_set in table.items.values():
        for item in hash_set.values() if table.range_key_attr else (hash_set,):
            attr = item.attrs.get(name)
            if attr is None:
                continue
            if text is not None:
                if attr.value != text or attr.type != "S":
                    continue
            elif attr != value:
                continue
            if all(_equal(item.attrs.get(n), v) for n, v in rest):
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
                    # A kept tree's copies are made from this (_patch_tree_copy): the tree as parsed.
                    tree.__dict__["_copy_blob"] = pickle.dumps(tree, pickle.HIGHEST_PROTOCOL)
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


_ATOMS = (str, int, float, bool, bytes, type(None))


def _patch_tree_copy() -> None:
    """A parsed expression copied node by node, as deepcopy copies it (see above)."""

    def tree_copy(self, memo):
        blob = self.__dict__.get("_copy_blob")
        if blob is not None and not memo:
            return pickle.loads(blob)
        return node_copy(self, memo)

    def node_copy(self, memo):
        copied = memo.get(id(self))
        if copied is not None:
            return copied
        copied = object.__new__(self.__class__)
        memo[id(self)] = copied
        fields = {}
        for key, value in self.__dict__.items():
            if key in ("_structure_checked", "_copy_blob"):
                continue  # what the kept tree learned stays with it
            if key == "children" and value is not None:
                fields[key] = [field_copy(c, memo) for c in value]
            else:
                fields[key] = field_copy(value, memo)
        copied.__dict__.update(fields)
        return copied

    def field_copy(value, memo):
        if type(value) in _ATOMS:
            return value
        if isinstance(value, Node):
            return node_copy(value, memo)
        return copy.deepcopy(value, memo)

    Node.__deepcopy__ = tree_copy


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


def install() -> None:
    """Every shortcut above, each with moto's own outcome."""
    _patch_partition_query()
    _patch_fast_item_answers()
    _patch_sqs_receive_cost()
    _patch_parsed_update_expressions()
    _patch_validation_cost()
    _patch_tree_copy()
    _patch_dispatch_cost()
