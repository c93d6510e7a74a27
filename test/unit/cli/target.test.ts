import { describe, expect, it } from 'vitest';
import { isCliError } from '../../../bin/commands/cli-error.js';
import { explainAwsError, splitTargetArgs } from '../../../bin/commands/target.js';

const awsError = (name: string, message: string) => Object.assign(new Error(message), { name });

describe('splitTargetArgs', () => {
  it('takes the target options out, in both --opt value and --opt=value forms', () => {
    expect(
      splitTargetArgs(['redrive', '--stack', 'cr', '--class', 'transient', '--region=eu-west-1', '--local']),
    ).toEqual({
      target: { stack: 'cr', region: 'eu-west-1', local: true },
      rest: ['redrive', '--class', 'transient'],
    });
    expect(() => splitTargetArgs(['ls', '--profile'])).toThrow('--profile needs a value');
  });
});

describe('explainAwsError', () => {
  it('says to deploy or pass --stack when the stack does not exist', () => {
    const e = explainAwsError(
      awsError('ValidationError', 'Stack with id cr does not exist'),
      { region: 'eu-west-1' },
      'cr',
    );
    expect(isCliError(e)).toBe(true);
    expect(e?.message).toBe(
      "stack 'cr' not found in eu-west-1: deploy it with 'npx cdk deploy' or pass --stack NAME (and --region)",
    );
  });

  it('names the profile the credentials were looked for in', () => {
    const e = explainAwsError(
      awsError('CredentialsProviderError', 'Could not load credentials from any providers'),
      { profile: 'legal-dev' },
      'clause-review',
    );
    expect(e?.message).toMatch(/^no usable AWS credentials from profile 'legal-dev'.*--profile NAME/);
  });

  it('asks for a region when none is configured, and leaves other errors alone', () => {
    expect(explainAwsError(new Error('Region is missing'), {}, 'x')?.message).toBe(
      'no AWS region: pass --region or set AWS_REGION',
    );
    expect(explainAwsError(awsError('ThrottlingException', 'Rate exceeded'), {}, 'x')).toBeUndefined();
  });
});
