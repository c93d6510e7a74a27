import {
  AccessDeniedException,
  InternalServerException,
  ModelErrorException,
  ModelNotReadyException,
  ModelTimeoutException,
  ResourceNotFoundException,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import { UnpricedModelError } from '../../../lambdas/core/model-catalogue.js';
import {
  classifyCallError,
  describeError,
  isThrottle,
  isUnanswered,
} from '../../../lambdas/core/worker/error-class.js';

const meta = { $metadata: {} };

function socketError(code: string, message = `connect ${code} 10.0.0.1:443`): Error {
  return Object.assign(new Error(message), { code });
}

describe('classifyCallError', () => {
  it.each([
    ['ThrottlingException', new ThrottlingException({ message: 'Too many requests', ...meta })],
    ['ServiceUnavailableException', new ServiceUnavailableException({ message: 'Unavailable', ...meta })],
    ['InternalServerException', new InternalServerException({ message: 'Internal', ...meta })],
    ['ModelTimeoutException', new ModelTimeoutException({ message: 'Model took too long', ...meta })],
    ['ModelNotReadyException', new ModelNotReadyException({ message: 'Not ready', ...meta })],
    ['ModelErrorException', new ModelErrorException({ message: 'Model failed', ...meta })],
  ])('retries Bedrock %s (transient)', (_name, error) => {
    expect(classifyCallError(error)).toBe('transient');
  });

  it.each([
    'ThrottlingException',
    'ServiceUnavailableException',
    'InternalServerException',
    'ModelTimeoutException',
    'ModelNotReadyException',
    'ModelErrorException',
    'TimeoutError',
    'RequestTimeout',
    'AbortError',
  ])('knows %s as transient by its name alone', (name) => {
    expect(classifyCallError(Object.assign(new Error('request failed'), { name }))).toBe('transient');
  });

  it.each([
    ['ValidationException', new ValidationException({ message: 'Malformed input request', ...meta })],
    ['AccessDeniedException', new AccessDeniedException({ message: 'not authorized', ...meta })],
    ['ResourceNotFoundException', new ResourceNotFoundException({ message: 'no such model', ...meta })],
  ])('fails Bedrock %s at once (logic)', (_name, error) => {
    expect(classifyCallError(error)).toBe('logic');
  });

  it('fails an unpriced model at once: spending on it could break the ceiling', () => {
    expect(classifyCallError(new UnpricedModelError('some.model-v1'))).toBe('logic');
  });

  it.each(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED'])(
    'retries the socket error %s',
    (code) => {
      expect(classifyCallError(socketError(code, 'network failure'))).toBe('transient');
    },
  );

  it('retries socket failures known only by their message', () => {
    expect(classifyCallError(new Error('socket hang up'))).toBe('transient');
    expect(classifyCallError(new Error('Connection timed out after 60000 ms'))).toBe('transient');
  });

  it('retries the aborts and timeouts of the per-call deadline', () => {
    expect(
      classifyCallError(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ).toBe('transient');
    expect(classifyCallError(new DOMException('This operation was aborted', 'AbortError'))).toBe('transient');
  });

  it('retries unknown server-side faults and errors the SDK marks retryable', () => {
    const fault = Object.assign(new Error('Bad gateway'), { name: 'BadGateway', $fault: 'server' });
    const status = Object.assign(new Error('oops'), { name: 'Unknown', $metadata: { httpStatusCode: 503 } });
    const retryable = Object.assign(new Error('x'), { name: 'SomethingNew', $retryable: {} });
    expect(classifyCallError(fault)).toBe('transient');
    expect(classifyCallError(status)).toBe('transient');
    expect(classifyCallError(retryable)).toBe('transient');
  });

  it('treats unknown client errors and non-errors as logic errors, never retried', () => {
    const clientFault = Object.assign(new Error('Bad request'), {
      name: 'UnknownClientError',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    expect(classifyCallError(clientFault)).toBe('logic');
    expect(classifyCallError('ThrottlingException')).toBe('logic');
    expect(classifyCallError(undefined)).toBe('logic');
  });
});

describe('isThrottle', () => {
  it('is true only for ThrottlingException, which also moves a call to the fallback model', () => {
    expect(isThrottle(new ThrottlingException({ message: 'slow down', ...meta }))).toBe(true);
    expect(isThrottle(new ServiceUnavailableException({ message: 'down', ...meta }))).toBe(false);
    expect(isThrottle(new ModelNotReadyException({ message: 'not ready', ...meta }))).toBe(false);
    expect(isThrottle({ name: 'ThrottlingException' })).toBe(false);
  });
});

describe('isUnanswered', () => {
  it('is true for a request that went out and got no answer back: a timeout, an abort, a cut connection', () => {
    const named = (name: string) => Object.assign(new Error('no answer'), { name });
    expect(isUnanswered(named('TimeoutError'))).toBe(true);
    expect(isUnanswered(named('AbortError'))).toBe(true);
    expect(isUnanswered(socketError('ECONNRESET', 'read ECONNRESET'))).toBe(true);
    expect(isUnanswered(new Error('socket hang up'))).toBe(true);
  });

  it("is false for the service's own error answers, a connection never made, and errors that are not transient", () => {
    expect(isUnanswered(new ThrottlingException({ message: 'slow down', ...meta }))).toBe(false);
    expect(isUnanswered(new ModelTimeoutException({ message: 'model timed out', ...meta }))).toBe(false);
    expect(isUnanswered(new ServiceUnavailableException({ message: 'down', ...meta }))).toBe(false);
    expect(isUnanswered(socketError('ECONNREFUSED'))).toBe(false);
    expect(isUnanswered(socketError('ENOTFOUND'))).toBe(false);
    expect(isUnanswered(new ValidationException({ message: 'bad input', ...meta }))).toBe(false);
    expect(isUnanswered(new TypeError('x is undefined'))).toBe(false);
    expect(isUnanswered('TimeoutError')).toBe(false);
  });
});

describe('describeError', () => {
  it('gives name and message on one line', () => {
    const error = new ValidationException({ message: 'bad\n  input\trequest', ...meta });
    expect(describeError(error)).toBe('ValidationException: bad input request');
  });

  it('is bounded to 500 characters', () => {
    expect(describeError(new Error('x'.repeat(2000)))).toHaveLength(500);
    expect(describeError('y'.repeat(2000))).toHaveLength(500);
  });

  it('describes values that are not errors', () => {
    expect(describeError(42)).toBe('42');
  });
});
