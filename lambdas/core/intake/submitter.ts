/**
 * Who submitted an upload. An upload through the status API is made with a URL the API
 * presigned, so S3 names the API's own role as the uploader; the API signs the caller's ARN
 * into the upload as `x-amz-meta-submitted-by`, and that names the submitter. The header is
 * believed only from an upload the API's role made: anyone else could write any name into it.
 */

/** The metadata key (without `x-amz-meta-`) the API signs the caller's ARN into. */
export const SUBMITTED_BY_METADATA = 'submitted-by';

/**
 * The owner to record for an upload.
 *
 * @param uploader The S3 event's `userIdentity.principalId` (`AWS:AROA…:session`, `AWS:AIDA…`);
 *   absent only where an emulator leaves it out, where the signed header is taken as given.
 * @param metadata The object's user metadata.
 * @param apiRoleId The unique id (`AROA…`) of the role the status API presigns uploads with.
 *
 * @example
 * submitterOf('AWS:AROAAPI:clause-review-api', { 'submitted-by': 'arn:aws:iam::1:user/alice' }, 'AROAAPI');
 * // 'arn:aws:iam::1:user/alice'
 */
export function submitterOf(
  uploader: string | undefined,
  metadata: Readonly<Record<string, string>>,
  apiRoleId: string | undefined,
): string | undefined {
  const claimed = metadata[SUBMITTED_BY_METADATA]?.trim();
  const fromApi =
    uploader === undefined || (apiRoleId !== undefined && uploader.startsWith(`AWS:${apiRoleId}:`));
  if (claimed && fromApi) return claimed;
  return uploader;
}

/**
 * The uploader an S3 event names, unless it names the ground's placeholder (an emulator writes
 * one id into every event): then nobody.
 */
export function uploaderOf(
  ref: { readonly principalId?: string },
  deps: { readonly placeholderPrincipalId?: string },
): string | undefined {
  return ref.principalId === deps.placeholderPrincipalId ? undefined : ref.principalId;
}

/** What names an upload's owner: the status API's role, and the ground's placeholder uploader. */
export interface OwnerRule {
  readonly apiRoleId?: string;
  readonly placeholderPrincipalId?: string;
}

/**
 * The owner of an upload, worked out once per upload: the submitter its metadata names when the
 * status API's role made the upload, else its uploader. An object deleted before it was read
 * (`metadata` absent) is its uploader's.
 *
 * @example
 * ownerOfUpload({ principalId: 'AWS:AIDABOB' }, undefined, {}); // 'AWS:AIDABOB'
 */
export function ownerOfUpload(
  ref: { readonly principalId?: string },
  metadata: Readonly<Record<string, string>> | undefined,
  rule: OwnerRule,
): string | undefined {
  const uploader = uploaderOf(ref, rule);
  return metadata ? submitterOf(uploader, metadata, rule.apiRoleId) : uploader;
}
