#!/usr/bin/env python3
"""moto's server, with these differences. One: requests are applied one at a time.

moto applies a TransactWriteItems by deep-copying the tables and restoring that copy when a
condition fails. With its threaded server, that restore can undo a write another request committed
in the meantime (a cancel racing a completion came back as "in_progress" in our tests), which real
DynamoDB never does. A lock around the application gives the serializable behaviour DynamoDB
guarantees, while connections are still accepted concurrently.

And two: only SES and SNS objects are listed at /moto-api/data.json. moto lists there every model
object it ever made and never lets one go (a deep copy of a whole table per TransactWriteItems,
copies of scanned items), so each read of that page (`make dev`'s e-mail printer every second, the
tests' sent e-mails and SMS) grew slower with every write, and held the lock above meanwhile. We
read only the sent e-mails and SMS there.

And three: a TransactWriteItems backs up only the items it names, not whole tables. moto
deep-copies the whole table once per item of every transaction, to restore it if the transaction
is cancelled; with thousands of items, every metered request then costs a copy of them all, and
the test run's time went to that copying. Under the lock above nothing else writes meanwhile, so
the named items (and the stream's length) are all a cancelled transaction must put back.

And four: it answers sooner, with the same answers. A DynamoDB query sorted every item of the
table before looking at the partition it names (a query of 1,000 items at 20,000 items in the table
sorted all 20,000, comparing each key through five type checks); moto looked its own package
folder up on disk for every request; an SQS receive worked out every attribute of the queue,
counting all its messages, once per message it handed out, to read the retention period; and every
request was logged to a stream nobody reads. A query now takes the table's items unsorted (the
query sorts what it keeps itself, by keys worked out once per item), a query of the table reads
its partition only, a query that projects its items no longer deep-copies them whole first, the
answers the tests ask for most are written as JSON directly (see PLAIN_ANSWERS), a scalar's value
is read in one step, the retention period is read from the queue, the package list is read once,
and nothing is logged per request.

And five: `/moto-api/sent?to=ADDRESS` answers with only the e-mails and SMS sent to one address
or number (see `_sent`).

And it says when it is ready: once listening, it prints `moto ready on port PORT` on stdout (PORT
0, the default, binds a free port, named there), so a launcher waits for that line, not on a probe.

Usage: python infra/moto_server.py -H 127.0.0.1 [-p PORT]
"""
import argparse
import base64
import calendar
import copy
import inspect
import json
import os
import threading
from datetime import datetime
from decimal import Decimal
from urllib.parse import parse_qs

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from moto import backends
from moto.core.common_models import BaseModel
from moto.core.utils import unix_time
from moto.dynamodb import models as dynamodb_models
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models import table as table_module
from moto.dynamodb.models.table import Table
from moto.core.responses import ActionResult
from moto.sqs import models as sqs_models
from werkzeug.serving import make_server

LISTED_SERVICES = {"ses", "sns"}
# Set to compare each answer written directly with moto's own (see PLAIN_ANSWERS).
CHECK_ANSWERS = os.environ.get("MOTO_CHECK_ANSWERS") == "1"


def _new_model(cls, *args, **kwargs):
    instance = super(BaseModel, cls).__new__(cls)
    # moto.<service>.models: the service names the model's list in /moto-api/data.json.
    if cls.__module__.split(".")[1] in LISTED_SERVICES:
        cls.instances_tracked.append(instance)
    return instance


BaseModel.__new__ = _new_model


class _TablesNotCopied:
    """Stands in for the `copy` module of moto's DynamoDB backend during a transaction: a whole
    table's backup is the table itself (`_transact_write_items` below backs up the items instead);
    everything else (an update's old image, for the stream) is copied as before."""

    @staticmethod
    def deepcopy(value, memo=None):
        if isinstance(value, Table):
            return value
        return copy.deepcopy(value, memo)


_moto_transact_write_items = dynamodb_models.DynamoDBBackend.transact_write_items


def _named_key(table, op):
    """The (hash, range) key a transaction's operation names, as the table stores it."""
    attrs = op["Item"] if "Item" in op else op["Key"]
    hash_value = DynamoType(attrs[table.hash_key_attr])
    range_value = DynamoType(attrs[table.range_key_attr]) if table.has_range_key else None
    return hash_value, range_value


def _put_back(table, hash_value, range_value, item):
    """Restores one item as it was (None: absent), without a stream record."""
    if range_value is None:
        if item is None:
            table.items.pop(hash_value, None)
        else:
            table.items[hash_value] = item
    elif item is None:
        table.items[hash_value].pop(range_value, None)
    else:
        table.items[hash_value][range_value] = item


def _transact_write_items(self, transact_items):
    backups, streams = [], {}
    for entry in transact_items:
        op = next(iter(entry.values()))
        table = self.tables.get(op.get("TableName"))
        if table is None:
            continue
        try:
            hash_value, range_value = _named_key(table, op)
        except (KeyError, TypeError):
            continue  # moto refuses the malformed operation itself
        before = table.get_item(hash_value, range_value)
        backups.append((table, hash_value, range_value, copy.deepcopy(before)))
        if table.stream_shard is not None:
            streams.setdefault(id(table), (table.stream_shard, len(table.stream_shard.items)))
    module_copy = dynamodb_models.copy
    dynamodb_models.copy = _TablesNotCopied
    try:
        return _moto_transact_write_items(self, transact_items)
    except Exception:
        for table, hash_value, range_value, item in reversed(backups):
            _put_back(table, hash_value, range_value, item)
        for shard, length in streams.values():
            del shard.items[length:]
        raise
    finally:
        dynamodb_models.copy = module_copy


dynamodb_models.DynamoDBBackend.transact_write_items = _transact_write_items


_moto_cast_value = DynamoType.cast_value.fget


def _cast_value(self):
    """moto's `cast_value`, with its common cases first: a string, binary or boolean is its value
    and a number its Decimal (moto reaches them after five type checks, for every comparison)."""
    kind = self.type
    if kind in ("S", "B", "BOOL"):
        return self.value
    if kind == "N":
        return Decimal(self.value)
    return _moto_cast_value(self)


DynamoType.cast_value = property(_cast_value)

_moto_all_items = Table.all_items
_moto_query = Table.query
_in_query = threading.local()


def _all_items(self):
    """moto's list of a table's items: sorted by key for a scan, whose pages follow that order;
    as stored for a query, which keeps the items it wants and sorts those itself. A query of the
    table (not an index) names its partition: only that partition's items are handed over."""
    query = getattr(_in_query, "table", None)
    if query is not self:
        return _moto_all_items(self)
    partition = _in_query.partition
    if partition is not None:
        stored = self.items.get(partition)
        if stored is None:
            return []
        return list(stored.values()) if self.range_key_attr else [stored]
    items = []
    for stored in self.items.values():
        items.extend(stored.values() if self.range_key_attr else [stored])
    return items


_query_arguments = inspect.signature(_moto_query)


class _QueryCopies:
    """The `copy` module as moto's table code sees it: a query that projects its results makes
    new items from them anyway, so its deep copy of every whole item it returns is skipped."""

    copy = staticmethod(copy.copy)

    @staticmethod
    def deepcopy(value, memo=None):
        if getattr(_in_query, "projected", False):
            return value
        return copy.deepcopy(value, memo)


table_module.copy = _QueryCopies

_moto_project = Item.project


def _project(self, projection_expressions):
    """moto's projection of an item; for top-level attributes (a keys-only query's), a new item
    holding those attributes, where moto turned the whole item into plain JSON and back."""
    names = [path[0] for path in projection_expressions if len(path) == 1]
    if len(names) != len(projection_expressions) or any("[" in name for name in names):
        return _moto_project(self, projection_expressions)
    projected = Item(hash_key=self.hash_key, range_key=self.range_key, attrs={})
    # The values passed the item's size check when it was written: no second check per value.
    dict.update(projected.attrs, {name: self.attrs[name] for name in names if name in self.attrs})
    if CHECK_ANSWERS:
        _check("projection", _moto_project(self, projection_expressions).attrs, projected.attrs)
    return projected


Item.project = _project


def _query(self, *args, **kwargs):
    arguments = _query_arguments.bind(self, *args, **kwargs).arguments
    _in_query.table = self
    _in_query.partition = None if arguments.get("index_name") else arguments.get("hash_key")
    _in_query.projected = bool(arguments.get("projection_expressions"))
    try:
        return _moto_query(self, *args, **kwargs)
    finally:
        _in_query.table = None
        _in_query.projected = False


def _sorted_items(self, hash_key_attrs, range_key_attrs, items):
    """moto's sort of an index query's items, by the same keys, each worked out once per item
    (a key attribute has one type in every item, so its values order as its DynamoTypes do)."""
    names = self._generate_attr_to_sort_by(hash_key_attrs, range_key_attrs)
    items.sort(key=lambda item: tuple(item.attrs[name].cast_value for name in names))
    return items


Table.all_items = _all_items
Table.query = _query
Table.sorted_items = _sorted_items

def _retained(self, queue_name, message):
    """moto's retention check, reading the one attribute it needs instead of all of them."""
    retention = int(self.get_queue(queue_name).message_retention_period)
    return retention + message.sent_timestamp / 1000 > unix_time()


sqs_models.SQSBackend.is_message_valid_based_on_retention_period = _retained


# The answers the tests ask for most (DynamoDB's items, SQS's messages, the stream's records) are
# plain values, counts and keys: JSON as they stand once the members the operation doesn't have
# are left out, where moto's generic serializer walked every value against the service model (a
# fifth of a large query's time). Binary values and dates are the conversions (moto hands them over
# as bytes and datetimes; the JSON protocol sends them as base64 and epoch seconds); an answer
# holding anything else goes to moto's serializer as before.
# MOTO_CHECK_ANSWERS=1 compares each answer with moto's own and writes any difference to the file
# MOTO_CHECK_ANSWERS_LOG names.
PLAIN_ANSWERS = {
    "dynamodb": {
        "GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan",
        "BatchGetItem", "BatchWriteItem", "TransactGetItems", "TransactWriteItems",
    },
    "sqs": {
        "ReceiveMessage", "SendMessage", "SendMessageBatch", "DeleteMessage",
        "DeleteMessageBatch", "ChangeMessageVisibility", "ChangeMessageVisibilityBatch",
        "GetQueueAttributes",
    },
    "dynamodbstreams": {"GetRecords"},
}
_moto_execute_result = ActionResult.execute_result


def _json_value(value):
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, datetime):
        seconds = calendar.timegm(value.timetuple())
        return seconds + value.microsecond // 1000 / 1000 if value.microsecond else seconds
    raise TypeError(f"{type(value).__name__} is not a plain value")


def _without_nulls(value):
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _execute_result(self, context):
    operation = context.operation_model
    service = context.service_model
    plain = PLAIN_ANSWERS.get(service.service_name, ())
    if operation.name not in plain or not isinstance(self.result, dict):
        return _moto_execute_result(self, context)
    members = operation.output_shape.members if operation.output_shape else {}
    answer = {k: v for k, v in self.result.items() if k in members}
    try:
        body = json.dumps(_without_nulls(answer), default=_json_value, separators=(",", ":"))
    except TypeError:
        return _moto_execute_result(self, context)
    version = service.metadata.get("jsonVersion", "1.0")
    headers = {"Content-Type": f"application/x-amz-json-{version}"}
    if CHECK_ANSWERS:
        status, moto_headers, moto_body = _moto_execute_result(self, context)
        expected = (status, moto_headers, json.loads(moto_body))
        _check(operation.name, expected, (200, headers, json.loads(body)))
    return 200, headers, body


ActionResult.execute_result = _execute_result


def _check(what, expected, answered):
    if expected != answered:
        with open(os.environ["MOTO_CHECK_ANSWERS_LOG"], "a") as log:
            print(f"{what}: moto's {expected} != {answered}", file=log)


# moto lists its package folder on disk for every request to find the service.
_moto_modules = tuple(backends.list_of_moto_modules())
backends.list_of_moto_modules = lambda: _moto_modules


class QuietRequestHandler(MotoRequestHandler):
    """moto's request handler without the per-request log line (its stderr goes nowhere)."""

    def log_request(self, code="-", size="-"):
        pass


SENT_PATH = "/moto-api/sent"


def _sent(query):
    """The e-mails SES accepted for one address and the SMS SNS sent to one number (`?to=`), in
    /moto-api/data.json's shapes. That page serialises every message every test ever sent, so a
    test asking about its own tenant paid for all the others' (and held the lock meanwhile)."""
    from moto.ses.models import Message
    from moto.sns.models import SMS

    to = parse_qs(query).get("to", [""])[0]
    fields = lambda instance: {k: v for k, v in vars(instance).items() if not k.startswith("_")}
    emails = [
        fields(m)
        for m in Message.instances_tracked
        if to in (m.destinations or {}).get("ToAddresses", [])
    ]
    sms = [fields(m) for m in SMS.instances_tracked if m.phone_number == to]
    return json.dumps({"emails": emails, "sms": sms}).encode()


class Serialized:
    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") == SENT_PATH:
            with self.lock:
                body = _sent(environ.get("QUERY_STRING", ""))
            start_response("200 OK", [("Content-Type", "application/json")])
            return [body]
        with self.lock:
            # Consume the response inside the lock: moto builds it lazily.
            return list(self.app(environ, start_response))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, default=0)
    args = parser.parse_args()
    app = DomainDispatcherApplication(create_backend_app)
    server = make_server(
        args.host, args.port, Serialized(app), threaded=True, request_handler=QuietRequestHandler
    )
    print(f"moto ready on port {server.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
