/**
 * The ceiling as `review` and `submit` are given it: `--ceiling`, or `--budget`, its earlier
 * name, still read for one release (`--ceiling` wins when both are given). The flag is named
 * back so that a refusal names what the person typed.
 */
export function ceilingFlag(values: {
  readonly ceiling?: string | undefined;
  readonly budget?: string | undefined;
}): {
  readonly flag: 'ceiling' | 'budget';
  readonly given: string | undefined;
} {
  return values.ceiling === undefined && values.budget !== undefined
    ? { flag: 'budget', given: values.budget }
    : { flag: 'ceiling', given: values.ceiling };
}
