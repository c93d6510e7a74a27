"""moto's server, with DynamoDB requests applied one at a time.

DynamoDB applies each write, condition and transaction atomically. moto's threaded server
does not: two concurrent `SET n = n + :x` updates can interleave and lose one, and a
condition can pass on a value another thread is changing. Everything this project proves
(one claim winner, no call billed twice, spend never over the ceiling) rests on those
atomic writes, so this launcher serialises DynamoDB requests behind one lock, as a
faithful emulator must. Other services (SQS long polls above all) stay concurrent.

Werkzeug's development server closes the connection after every answer (it sends `Connection:
close` because http.server cannot drain a request body the application left unread), so every
request paid a TCP connect and a new server thread on both sides: about a millisecond of the
client's CPU per request, and more of the server's. AWS endpoints keep HTTP/1.1 connections
open and the SDK reuses them
(https://docs.aws.amazon.com/sdk-for-javascript/v3/developer-guide/node-reusing-connections.html).
Here a request whose body has a Content-Length is read whole before it is handled, so nothing is
left on the connection, and the connection stays open for the next request; a chunked request
body still ends its connection.

The rest of what this launcher changes lives beside it, one module per concern, each installed
by main(): moto_transactions.py (a transaction backs up only its items; transaction conflicts
as DynamoDB has them), moto_placeholders.py (unused expression placeholders refused),
moto_speed.py (Query, answers, UpdateItem validation, dispatch and SQS receives at a fraction of
moto's cost, with its outcomes), moto_cognito.py (Cognito identity pools handing out credentials
per person), moto_fair_queues.py (SQS fair queues; MOTO_FAIR_QUEUES=0 leaves moto's send order),
moto_s3_post.py (S3 POST uploads held to their POST policy) and moto_profile.py (MOTO_PROFILE).

Usage: python moto_serve.py -H 127.0.0.1 -p 5000
"""

import argparse
import atexit
import io
import logging
import os
import signal
import socket
import sys
import threading
import time
from urllib.parse import urlsplit

from werkzeug.serving import run_simple

from moto_cognito import CredentialLookup, patch_cognito
from moto_profile import PROFILE
import moto_fair_queues
import moto_placeholders
import moto_s3_post
import moto_speed
import moto_transactions

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


class KeepAliveRequestHandler(MotoRequestHandler):
    """Keeps HTTP/1.1 connections open between requests whose body length is known (see above)."""

    keep_alive = False

    def setup(self):
        # An answer goes out as two writes (the status line and headers, then the body). With
        # Nagle's algorithm on, the body waits for the client to acknowledge the headers, and
        # the client delays that acknowledgement up to 40 ms: every request on a kept connection
        # took 40-50 ms whenever the server was otherwise idle (a job's first claims, its last
        # chunk's closing writes, finalize). AWS's endpoints answer without that stall.
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle_one_request(self):
        # Until this request's body is read whole, an answer (an error among them) ends the connection.
        self.keep_alive = False
        if PROFILE is None:
            super().handle_one_request()
        else:
            PROFILE.run(super().handle_one_request, self._request_label)

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
    moto_transactions.install()
    moto_placeholders.install()
    moto_speed.install()
    patch_cognito()
    moto_fair_queues.install()
    moto_s3_post.install()
    _leave_with_parent()
    if PROFILE is not None:
        atexit.register(PROFILE.write)
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
