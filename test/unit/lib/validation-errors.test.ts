/**
 * The infrastructure's validation errors (lib/errors.ts) and the one wording of a value out of
 * range (lib/number-range.ts): what each error carries, which guard knows it, and the message.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { DeployContextError, readDeployContext } from '../../../lib/deploy-context.js';
import { isValidationError, UnscopedValidationError, ValidationError } from '../../../lib/errors.js';
import { describeRange, rangeViolation } from '../../../lib/number-range.js';
import { isTopologyError, type TopologyError, topology } from '../../../lib/topology.js';

describe('ValidationError', () => {
  it('carries its id, its message, the path of its construct and its cause', () => {
    const scope = new Construct(new Stack(new App(), 'Stack'), 'Queues');
    const cause = new RangeError('inner');
    const error = new ValidationError(
      'OutOfRange',
      'Queues size must be an integer from 1 to 3; got 4',
      scope,
      {
        cause,
      },
    );
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ValidationError');
    expect(error.id).toBe('OutOfRange');
    expect(error.type).toBe('validation');
    expect(error.message).toBe('Queues size must be an integer from 1 to 3; got 4');
    expect(error.constructPath).toBe('Stack/Queues');
    expect(error.cause).toBe(cause);
  });

  it('has no cause of its own when given none', () => {
    const error = new ValidationError('BadValue', 'm', new App(), { cause: undefined });
    expect(Object.hasOwn(error, 'cause')).toBe(false);
  });

  it('is unscoped where no construct is at hand', () => {
    const error = new UnscopedValidationError('BadValue', 'm');
    expect(error.name).toBe('UnscopedValidationError');
    expect(error.constructPath).toBeUndefined();
    expect(isValidationError(error)).toBe(true);
  });

  it('is what a bad context flag and a bad topology option raise, each keeping its own name', () => {
    const app = new App();
    let flag: unknown;
    try {
      readDeployContext((key) => (key === 'retentionDays' ? '0' : undefined), app);
    } catch (error) {
      flag = error;
    }
    expect(flag).toBeInstanceOf(DeployContextError);
    expect(isValidationError(flag)).toBe(true);
    expect((flag as DeployContextError).name).toBe('DeployContextError');
    expect((flag as DeployContextError).constructPath).toBe(app.node.path);
    expect((flag as DeployContextError).message).toBe(
      '-c retentionDays: must be an integer from 1 to 3650; got 0',
    );
    // The range check's own error is kept as the cause.
    expect(isValidationError((flag as DeployContextError).cause)).toBe(true);

    let option: unknown;
    try {
      topology({ chunkMaxReceiveCount: 0 });
    } catch (error) {
      option = error;
    }
    expect(isTopologyError(option)).toBe(true);
    expect(isValidationError(option)).toBe(true);
    expect((option as TopologyError).name).toBe('TopologyError');
    expect((option as TopologyError).constructPath).toBeUndefined();
  });

  it('is not any other error or value', () => {
    expect(isValidationError(new Error('x'))).toBe(false);
    expect(isValidationError({ name: 'ValidationError', message: 'x', id: 'OutOfRange' })).toBe(false);
    expect(isValidationError(undefined)).toBe(false);
    expect(isTopologyError(new UnscopedValidationError('BadValue', 'm'))).toBe(false);
  });
});

describe('the wording of a range', () => {
  it('says what the value must be: an integer or a number, the bounds, a unit and where they come from', () => {
    expect(describeRange({ min: 1, max: 10 })).toBe('an integer from 1 to 10');
    expect(describeRange({ min: 60 })).toBe('an integer of at least 60');
    expect(describeRange({ min: 0, max: 1, integer: false })).toBe('a number from 0 to 1');
    expect(describeRange({ min: 1, max: 60, unit: 'minutes' })).toBe('an integer from 1 to 60 minutes');
    expect(describeRange({ min: 2, max: 1000, why: "Lambda's limits" })).toBe(
      "an integer from 2 to 1000 (Lambda's limits)",
    );
  });

  it('is nothing for a value inside the range, and names the property, range and value otherwise', () => {
    const range = { min: 1, max: 10 };
    expect(rangeViolation('size', 1, range)).toBeUndefined();
    expect(rangeViolation('size', 10, range)).toBeUndefined();
    expect(rangeViolation('size', 0, range)).toBe('size must be an integer from 1 to 10; got 0');
    expect(rangeViolation('size', 11, range)).toBe('size must be an integer from 1 to 10; got 11');
    expect(rangeViolation('size', 2.5, range)).toBe('size must be an integer from 1 to 10; got 2.5');
    expect(rangeViolation('size', Number.NaN, { min: 0, integer: false })).toBe(
      'size must be a number of at least 0; got NaN',
    );
    expect(rangeViolation('size', Number.POSITIVE_INFINITY, { min: 0, integer: false })).toBe(
      'size must be a number of at least 0; got Infinity',
    );
    expect(rangeViolation('wait', 90, { min: 1, max: 60, unit: 's' })).toBe(
      'wait must be an integer from 1 to 60 s; got 90 s',
    );
  });
});
