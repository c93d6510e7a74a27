"""DynamoDB's refusal of an expression placeholder no expression uses, on moto.

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
"""

import re

from moto.dynamodb.exceptions import MockValidationException
from moto.dynamodb.responses import DynamoHandler


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


def install() -> None:
    """Each operation DynamoDB checks for unused placeholders is checked here before moto runs it."""
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
