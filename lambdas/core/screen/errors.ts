/** The classifier's weights could not be read, or are not a model this code understands. */
export class LearnedModelError extends Error {
  override readonly name = 'LearnedModelError';
  /** Where the weights were read from: a file, or the generated module. */
  readonly path: string;
  constructor(message: string, path: string, options?: { cause?: unknown }) {
    super(message, options);
    this.path = path;
  }
}

/** Whether `e` is a {@link LearnedModelError}. */
export function isLearnedModelError(e: unknown): e is LearnedModelError {
  return e instanceof Error && e.name === 'LearnedModelError';
}
