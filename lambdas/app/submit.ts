/**
 * Starting a review from the browser, as the upload form and the Word add-in both do: the
 * presigned upload asked for, the document sent through it, and a wait until intake has read
 * the document (or the wait runs out), so the page can go straight to the job.
 */
import { type AppApi, type JobView, type SubmitRequest, uploadDocument, uploadVersion } from './api.js';

/** How long to wait for intake to read an upload. */
const WAIT_MS = 60_000;

/**
 * True while intake has not read the upload: not recorded yet (`queued` without a plan) or being
 * read. A `queued` job with a plan was read, and waits for one of its owner's jobs to end.
 */
export function awaitsIntake(view: JobView): boolean {
  return view.status === 'intake' || (view.status === 'queued' && view.progress.chunksTotal === 0);
}

/**
 * Submits, uploads (our version first, when the document answers a file of it), and waits until
 * intake has read the document (or the wait runs out).
 */
export async function submitAndWait(
  api: AppApi,
  bytes: ArrayBuffer,
  request: SubmitRequest,
  version?: ArrayBuffer,
): Promise<JobView> {
  const submission = await api.submit(request);
  if (version) await uploadVersion(submission, version);
  await uploadDocument(submission, bytes);
  const deadline = Date.now() + WAIT_MS;
  let view = await api.status(submission.submissionId);
  while (awaitsIntake(view) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 400));
    view = await api.status(submission.submissionId);
  }
  return view;
}
