/**
 * Creates the project-local virtualenv with the pinned moto server (what `.ci/run` and a
 * newcomer's first test run need). Prints where it is; exits non-zero with the reason when
 * Python, venv or pip is missing.
 */
import { isPythonEnvironmentError } from './errors.js';
import { ensureMotoVenv } from './python-venv.js';

try {
  const motoServer = ensureMotoVenv({ log: (line) => console.log(line) });
  console.log(`moto server ready: ${motoServer}`);
} catch (error) {
  if (isPythonEnvironmentError(error)) {
    console.error(`error: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
