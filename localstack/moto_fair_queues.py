"""SQS fair queues on moto's standard queues.

A standard queue is a fair queue once its messages carry a MessageGroupId: the group names the
message's tenant, and a message without one is a tenant of its own. SQS watches how much of the
consumers' capacity each tenant takes, and when one takes a disproportionate share (a "noisy
neighbour") it delivers the other, quiet tenants' messages first. As the SQS Developer Guide
describes it (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues-detailed.html):

- two measures: the concurrency share (a tenant's in-flight messages as a fraction of all the
  queue's in-flight messages) and the processing time share (the tenant's recent share of the
  consumers' total processing time);
- a tenant is noisy when it holds more than 10% of the in-flight messages and at least 30 of
  them, or when its recent share of processing time exceeds 10%;
- once one is, a receive gets a quiet tenant's message whenever one is waiting; noisy tenants'
  messages are neither dropped nor throttled, only delivered later, and as usual when no quiet
  tenant's message waits; among several noisy tenants, the one with the fewest messages in
  flight is served first;
- a tenant stops being noisy when its backlog is drained or it has sent nothing for 5 minutes.

moto keeps the group id on a standard queue's message but serves visible messages in the order
they were sent, so one tenant's backlog of hundreds puts every other tenant behind it. Here the
list of visible messages moto's receive walks is put in the order a fair queue would deliver:
the choice is made one message at a time, counting each message chosen as in flight for the next
choice, over the first `LOOKAHEAD` messages (more than a receive takes: 10); the rest follow in
send order. Nothing is removed from the queue, so nothing can be lost by the reordering.

The model's own choices, where the guide gives no figure: "recent" processing time is the last
`WINDOW_S` seconds (an in-flight message's time counts up to now); processing of a message ends
when it is deleted or becomes visible again (a visibility timeout or ChangeMessageVisibility
to 0). FIFO queues are left as moto has them. MOTO_FAIR_QUEUES=0 turns the model off.
"""

import collections
import os
import threading
import time

from moto.sqs.models import Message, Queue

CONCURRENCY_SHARE = 0.10
CONCURRENCY_MINIMUM = 30
PROCESSING_SHARE = 0.10
QUIET_AFTER_S = 300.0
WINDOW_S = 60.0
LOOKAHEAD = 20

_lock = threading.Lock()


def tenant_of(message) -> str:
    """The tenant a fair queue assigns a message to: its group, else the message itself."""
    return message.group_id if message.group_id is not None else f"message:{message.id}"


def _state(queue):
    state = getattr(queue, "_fair_state", None)
    if state is None:
        state = {"ended": collections.deque(), "last_sent": {}}
        queue._fair_state = state
    return state


def _close_ended(queue, now_s):
    """Records the processing of every message whose receive ended by becoming visible again."""
    ended = _state(queue)["ended"]
    for m in queue._messages:
        started = getattr(m, "_fair_received_at", None)
        if started is not None and m.visible:
            ended.append((tenant_of(m), started, min(now_s, m.visible_at / 1000.0)))
            m._fair_received_at = None
    while ended and ended[0][2] < now_s - WINDOW_S:
        ended.popleft()


def measures(queue, now_s):
    """Each tenant's in-flight count and its processing time in the recent window."""
    _close_ended(queue, now_s)
    since = now_s - WINDOW_S
    in_flight = collections.Counter()
    busy = collections.Counter()
    for m in queue._messages:
        started = getattr(m, "_fair_received_at", None)
        if started is not None:
            tenant = tenant_of(m)
            in_flight[tenant] += 1
            busy[tenant] += now_s - max(started, since)
    for tenant, started, ended in _state(queue)["ended"]:
        busy[tenant] += max(0.0, ended - max(started, since))
    return in_flight, busy


def is_noisy(tenant, in_flight, busy, totals, last_sent, now_s) -> bool:
    """The guide's two measures, and its rule that a tenant silent for 5 minutes is quiet."""
    if now_s - last_sent.get(tenant, now_s) >= QUIET_AFTER_S:
        return False
    total_in_flight, total_busy = totals
    own = in_flight.get(tenant, 0)
    if own >= CONCURRENCY_MINIMUM and own > CONCURRENCY_SHARE * total_in_flight:
        return True
    return total_busy > 0 and busy.get(tenant, 0.0) > PROCESSING_SHARE * total_busy


def fair_order(visible, in_flight, busy, last_sent, now_s):
    """The visible messages in the order a fair queue delivers them (see the module's text).

    Each tenant's state is judged once; after each choice the chosen tenant's is judged again
    with the message counted in flight (the others' can only move towards quiet by it)."""
    waiting = collections.OrderedDict()
    for m in visible:
        waiting.setdefault(tenant_of(m), collections.deque()).append(m)
    in_flight = collections.Counter(in_flight)
    totals = [sum(in_flight.values()), sum(busy.values())]
    noisy = {t for t in waiting if is_noisy(t, in_flight, busy, totals, last_sent, now_s)}
    if not noisy:
        return list(visible)  # every waiting tenant is quiet: oldest first, as sent
    chosen = []
    while waiting and len(chosen) < LOOKAHEAD:
        quiet = [t for t in waiting if t not in noisy]
        if quiet:
            # Among quiet tenants, the oldest waiting message first, as a standard queue does.
            tenant = min(quiet, key=lambda t: waiting[t][0].sent_timestamp or 0)
        else:
            tenant = min(waiting, key=lambda t: in_flight[t])
        chosen.append(waiting[tenant].popleft())
        in_flight[tenant] += 1
        totals[0] += 1
        if not waiting[tenant]:
            del waiting[tenant]
        elif is_noisy(tenant, in_flight, busy, totals, last_sent, now_s):
            noisy.add(tenant)
    picked = {id(m) for m in chosen}
    return chosen + [m for m in visible if id(m) not in picked]


def install() -> None:
    """Patches moto's standard queues to deliver as fair queues do."""
    if os.environ.get("MOTO_FAIR_QUEUES", "1") == "0":
        return
    original_messages = Queue.messages.fget
    original_mark_received = Message.mark_received
    original_add = Queue.add_message
    original_delete = Queue.delete_message

    def messages(self):
        visible = original_messages(self)
        if self.fifo_queue or len(visible) < 2:
            return visible
        with _lock:
            now_s = time.time()
            in_flight, busy = measures(self, now_s)
            return fair_order(visible, in_flight, busy, _state(self)["last_sent"], now_s)

    def mark_received(self, visibility_timeout=None):
        original_mark_received(self, visibility_timeout)
        self._fair_received_at = time.time()

    def add_message(self, message):
        message._fair_received_at = None  # a message moved to a DLQ starts there unreceived
        original_add(self, message)
        with _lock:
            _state(self)["last_sent"][tenant_of(message)] = time.time()

    def delete_message(self, receipt_handle):
        with _lock:
            now_s = time.time()
            for m in self._messages:
                started = getattr(m, "_fair_received_at", None)
                if started is not None and m.had_receipt_handle(receipt_handle):
                    _state(self)["ended"].append((tenant_of(m), started, now_s))
                    m._fair_received_at = None
        original_delete(self, receipt_handle)

    original_groups = Queue.pending_message_groups.fget

    def pending_message_groups(self):
        # Only a FIFO queue blocks a group with messages in flight; moto works the set out (and
        # copies it) for every receive of a standard queue too, which grouped messages make costly.
        return original_groups(self) if self.fifo_queue else set()

    Queue.messages = property(messages)
    Queue.pending_message_groups = property(pending_message_groups)
    Message.mark_received = mark_received
    Queue.add_message = add_message
    Queue.delete_message = delete_message
