#!/usr/bin/env python3
"""moto's server, with two differences. One: requests are applied one at a time.

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

And it says when it is ready: once listening, it prints `moto ready on port PORT` on stdout (PORT
0, the default, binds a free port, named there), so a launcher waits for that line, not on a probe.

Usage: python infra/moto_server.py -H 127.0.0.1 [-p PORT]
"""
import argparse
import threading

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from moto.core.common_models import BaseModel
from werkzeug.serving import make_server

LISTED_SERVICES = {"ses", "sns"}


def _new_model(cls, *args, **kwargs):
    instance = super(BaseModel, cls).__new__(cls)
    # moto.<service>.models: the service names the model's list in /moto-api/data.json.
    if cls.__module__.split(".")[1] in LISTED_SERVICES:
        cls.instances_tracked.append(instance)
    return instance


BaseModel.__new__ = _new_model


class Serialized:
    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
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
        args.host, args.port, Serialized(app), threaded=True, request_handler=MotoRequestHandler
    )
    print(f"moto ready on port {server.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
