"""moto's server, with DynamoDB requests applied one at a time.

DynamoDB applies each write, condition and transaction atomically. moto's threaded server
does not: two concurrent `SET n = n + :x` updates can interleave and lose one, and a
condition can pass on a value another thread is changing. Everything this project proves
(one claim winner, no call billed twice, spend never over the ceiling) rests on those
atomic writes, so this launcher serialises DynamoDB requests behind one lock, as a
faithful emulator must. Other services (SQS long polls above all) stay concurrent.

Usage: python moto_serve.py -H 127.0.0.1 -p 5000
"""

import argparse
import signal
import sys
import threading

from werkzeug.serving import run_simple

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, required=True)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
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
