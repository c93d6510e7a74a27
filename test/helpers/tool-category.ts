/**
 * One risk category of a tool schema in the shape the analysts use (a nullable score 0-3 and up
 * to five findings, each a quote and a rationale), for requests the stand-in tests and the
 * stand-in's throughput bench send.
 */
export const toolCategory = (description: string) => ({
  type: 'object',
  description,
  properties: {
    score: { type: ['integer', 'null'], minimum: 0, maximum: 3 },
    findings: {
      type: 'array',
      maxItems: 5,
      items: {
        type: 'object',
        properties: {
          quote: { type: 'string', minLength: 1, maxLength: 300 },
          rationale: { type: 'string', maxLength: 500 },
        },
        required: ['quote', 'rationale'],
        additionalProperties: false,
      },
    },
  },
  required: ['score', 'findings'],
  additionalProperties: false,
});
