/**
 * `npm run bench`: the pipeline under load, then the adaptive limiter against the stand-in's
 * capacity model. Figures only; nothing here asserts a time (machines are shared and noisy).
 * The stand-in's own throughput is measured by `npm run bench:standin`.
 */
import { formatLimiterBench, runLimiterBench } from './limiter.js';
import { BENCH_CONTRACT, formatPipelineBench, runPipelineBench } from './pipeline.js';

const pipelineOptions = {
  latencyMs: 400,
  capacity: 12,
  file: BENCH_CONTRACT,
  log: (line: string) => console.error(line),
};
console.log('== pipeline (local runtime, moto, Bedrock stand-in)');
console.log(formatPipelineBench(pipelineOptions, await runPipelineBench(pipelineOptions)));

console.log('\n== adaptive limiter against the stand-in capacity model');
console.log(formatLimiterBench(await runLimiterBench({})));
