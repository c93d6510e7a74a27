/**
 * moto launcher only: each connection it accepts sends without Nagle's delay. An answer leaves
 * the launcher in two writes (headers, then body); with Nagle on, the body waited for the
 * client's delayed acknowledgement of the headers, 40 ms and more, on every request of a kept
 * connection while the server was otherwise idle.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureMotoVenv, PROJECT_ROOT } from '../../localstack/python-venv.js';

/** The launcher's request handler set up on a connection accepted over loopback: TCP_NODELAY as it reads it. */
const PROBE = `
import socket, sys
sys.path.insert(0, sys.argv[1])
import moto_serve
handler_class = getattr(moto_serve, sys.argv[2])
listener = socket.create_server(("127.0.0.1", 0))
client = socket.create_connection(listener.getsockname())
accepted, address = listener.accept()
handler = handler_class.__new__(handler_class)
handler.request, handler.client_address, handler.server = accepted, address, None
handler.setup()
print(accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
`;

function nodelayOf(handlerClass: string): string {
  const python = join(dirname(ensureMotoVenv()), 'python');
  const r = spawnSync(python, ['-c', PROBE, join(PROJECT_ROOT, 'localstack'), handlerClass], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim();
}

describe('the moto launcher’s connections', () => {
  it('turn Nagle’s algorithm off on every connection accepted, where moto’s own handler leaves it on', () => {
    expect(nodelayOf('KeepAliveRequestHandler')).not.toBe('0');
    expect(nodelayOf('MotoRequestHandler')).toBe('0');
  });
});
