import { createHash } from 'node:crypto';

/**
 * The tenant of a job's chunk messages on the lanes' standard queues. SQS fair queues treat the
 * messages of one MessageGroupId as one tenant and, when one tenant takes a disproportionate
 * share of the consumers, deliver the other tenants' messages first
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues.html).
 * The owner is the tenant here, so one person's 800 uploads do not put everyone else's behind
 * them.
 */

/** The group of the jobs that record no owner (uploads straight to the bucket on an emulator). */
export const UNOWNED_GROUP = 'unowned';

/**
 * What SendMessage accepts as a MessageGroupId: 1 to 128 characters, alphanumeric and punctuation
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html).
 */
const GROUP_ID = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;

/**
 * The MessageGroupId of an owner's chunk messages: the owner itself (a principal ARN or id) when
 * SQS accepts it as one, else a hash of it (an assumed-role ARN with a long session name can be
 * longer than 128 characters), so two owners never share a group.
 *
 * @example
 * messageGroupOf('arn:aws:iam::111122223333:user/alice'); // 'arn:aws:iam::111122223333:user/alice'
 * messageGroupOf(undefined); // 'unowned'
 */
export function messageGroupOf(owner: string | undefined): string {
  if (owner === undefined || owner === '') return UNOWNED_GROUP;
  if (GROUP_ID.test(owner) && owner !== UNOWNED_GROUP && !owner.startsWith('owner-sha256:')) return owner;
  return `owner-sha256:${createHash('sha256').update(owner, 'utf8').digest('hex')}`;
}
